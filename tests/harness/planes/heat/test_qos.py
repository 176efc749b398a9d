"""harness/planes/heat/qos.py: a volume type's QoS limits and the checks of a VM's figures
against them, one function at a time."""

from __future__ import annotations

import pytest

from harness.planes.heat import qos


def kept(specs: dict[str, str] | None, size: int = 1, volume_type: str = "limited") -> dict:
    """A consumer's entry of qos.json, as collect.volumes_qos writes Cinder's answers."""
    return {
        "volume": {"id": "v1", "size": size, "volume_type": volume_type},
        "qos_specs": None if specs is None else {"consumer": "front-end", "specs": specs},
        "error": "",
    }


def test_rate_limits_take_absolute_and_per_gib_keys_and_leave_bursts_out():
    specs = {
        "total_iops_sec": "500",
        "read_iops_sec_per_gb": "40",  # x 10 GiB = 400
        "write_bytes_sec": "1048576",
        "total_iops_sec_max": "1000",  # a burst, not a rate
        "read_bytes_sec": "0",  # 0: no limit, as libvirt reads it
    }
    assert qos.rate_limits(specs, 10) == {
        "total_iops_sec": 500.0,
        "read_iops_sec": 400.0,
        "write_bytes_sec": 1048576.0,
    }


def test_the_lower_of_an_absolute_and_a_per_gib_limit_bounds():
    assert qos.rate_limits({"total_iops_sec": "300", "total_iops_sec_per_gb": "10"}, 20) == {
        "total_iops_sec": 200.0
    }


@pytest.mark.parametrize(
    ("key", "expected"),
    [("read_iops_sec", 100), ("write_iops_sec", 30), ("total_iops_sec", 130)]
    + [("read_bytes_sec", 4096), ("total_bytes_sec", 4096 + 1024)],
)
def test_a_limit_bounds_its_direction_or_both(key, expected):
    assert qos.measured_rate(key, (100, 4096), (30, 1024)) == expected


def test_a_rate_within_the_tolerance_holds_and_one_beyond_it_does_not():
    within = qos.check("c01", kept({"total_iops_sec": "200"}), (209.0, 0.0), (0.0, 0.0))
    beyond = qos.check("c02", kept({"total_iops_sec": "200"}), (211.0, 0.0), (0.0, 0.0))
    assert within.exceeded == ()
    assert beyond.exceeded == ("total_iops_sec",)
    assert beyond.summary() == {
        "volume_type": "limited",
        "qos_consumer": "front-end",
        "limits": {"total_iops_sec": 200.0},
        "measured": {"total_iops_sec": 211.0},
        "exceeded": ["total_iops_sec"],
    }


def test_a_type_without_qos_has_no_limits_and_nothing_to_flag():
    plain = qos.check("c01", kept(None, volume_type="ceph"), (5000.0, 0.0), (0.0, 0.0))
    assert (plain.limits, plain.qos_consumer, plain.exceeded) == ({}, "", ())
    assert qos.warnings_of([plain], {"c01": kept(None, volume_type="ceph")}, "", "device") == []


def test_warnings_name_the_vm_its_limit_and_how_far_over():
    entry = kept({"total_iops_sec": "200"})
    over = qos.check("c01", entry, (2400.0, 0.0), (0.0, 0.0))
    ((code, text),) = qos.warnings_of([over], {"c01": entry}, "limited", "device")
    assert code == "qos-exceeded"
    assert text == (
        "c01: 2,400 against its volume type limited's total_iops_sec of 200 (+1100%): "
        "the limit (front-end, applied by QEMU) did not hold"
    )


def test_a_limit_the_host_side_stand_in_bypasses_is_asked_but_not_applied():
    entry = kept({"write_iops_sec": "100"})
    held = qos.check("c02", entry, (0.0, 0.0), (90.0, 0.0))
    codes = [code for code, _ in qos.warnings_of([held], {"c02": entry}, "limited", "rbd")]
    assert codes == ["qos-bypassed"]


def test_a_volume_of_another_type_and_unreadable_specs_are_said():
    entry = kept(None, volume_type="ceph")
    entry["error"] = "Cinder answered GET /types with HTTP 403"
    plain = qos.check("c01", entry, (10.0, 0.0), (0.0, 0.0))
    found = dict(qos.warnings_of([plain], {"c01": entry}, "limited", "device"))
    assert found == {
        "qos-type": "c01: the volume is not of the asked type limited",
        "qos-unread": "QoS limits not checked: Cinder answered GET /types with HTTP 403",
    }


def test_the_console_line_gives_measured_over_limit_and_whether_each_held():
    held = qos.check("c01", kept({"total_iops_sec": "150"}), (151.5, 0.0), (0.0, 0.0))
    over = qos.check("c02", kept({"write_iops_sec": "100"}), (0.0, 0.0), (180.0, 0.0))
    line = qos.console_line({"c01": held.summary(), "c02": over.summary()})
    assert line == (
        "volume QoS, measured/limit: c01 total_iops_sec 152/150; "
        "c02 write_iops_sec 180/100: not held by c02"
    )
    assert qos.console_line({"c01": held.summary()}).endswith(": held")
    plain = qos.check("c01", kept(None), (10.0, 0.0), (0.0, 0.0))
    assert qos.console_line({"c01": plain.summary()}).endswith("c01 no limit: no limits")
