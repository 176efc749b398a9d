"""Whether a database step measured the storage under test or memory: each consumer's
data on disk against the memory its database may keep it in, and what the device itself
read and wrote while the clients ran."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from harness.records.device_check import DeviceWindow

# reads from the device below this share of the operations served are "negligible"
READ_SHARE = 0.01
MIB = 2**20


@dataclass(frozen=True)
class StorageUse:
    data_bytes: int | None  # the largest consumer's data on disk
    memory_bytes: int | None  # the memory each consumer's database may keep data in
    memory: str  # which memory, in words
    device: str
    device_read_iops: float | None
    device_write_iops: float | None
    device_read_mib_s: float | None
    device_write_mib_s: float | None
    memory_not_storage: bool
    why: str  # the figures that show it, when memory_not_storage


def reads_negligible(device_read_iops: float | None, served_per_s: float | None) -> bool:
    """The device read (almost) nothing while the clients were served many reads."""
    if device_read_iops is None or not served_per_s:
        return False
    return device_read_iops < READ_SHARE * served_per_s


def storage_use(
    datasets: dict[str, dict[str, Any]],
    window: DeviceWindow | None,
    served_per_s: float | None,
    served: str,
) -> StorageUse:
    """``served_per_s``: the reads the clients asked for per second, all consumers
    together (None where the workload does not read), named by ``served``."""
    data = [d["data_bytes"] for d in datasets.values() if d.get("data_bytes") is not None]
    memory = [d["memory_bytes"] for d in datasets.values() if d.get("memory_bytes") is not None]
    data_bytes, memory_bytes = max(data, default=None), min(memory, default=None)
    what = next((str(d.get("memory", "")) for d in datasets.values()), "")
    read_iops = window.read_iops if window else None
    reasons = []
    if data_bytes is not None and memory_bytes is not None and data_bytes <= memory_bytes:
        reasons.append(
            f"each consumer's data ({data_bytes / MIB:,.0f} MiB) fits in the memory its "
            f"database may keep it in ({memory_bytes / MIB:,.0f} MiB: {what})"
        )
    if window is not None and reads_negligible(window.read_iops, served_per_s):
        reasons.append(
            f"the device {window.device} read {window.read_iops:,.1f} times/s while the "
            f"clients were served {served_per_s:,.0f} {served}/s"
        )
    return StorageUse(
        data_bytes,
        memory_bytes,
        what,
        window.device if window else "",
        read_iops,
        window.write_iops if window else None,
        window.read_kib_s / 1024 if window else None,
        window.write_kib_s / 1024 if window else None,
        bool(reasons),
        "; ".join(reasons),
    )
