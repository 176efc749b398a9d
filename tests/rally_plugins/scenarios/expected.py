"""The data-plane charts' figures as the VMs' own fio JSON has them, for the tests."""

from __future__ import annotations

from typing import Any


def sums_and_per_vm(reader: dict[str, Any], writer: dict[str, Any]) -> tuple[dict, list]:
    """The "IOPS summed" chart's points and the "IOPS per VM" table's values of one reader
    VM and one writer VM, from their fio jobs."""
    summed = {"read": reader["read"]["iops"], "write": writer["write"]["iops"]}
    per_vm = [
        ["read IOPS of a VM", reader["read"]["iops"]],
        ["write IOPS of a VM", writer["write"]["iops"]],
    ]
    return summed, per_vm
