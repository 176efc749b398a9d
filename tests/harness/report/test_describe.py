"""A Rally workload's method line says how often Rally checked what it waited for: the
spec's poll interval, or rally-openstack's defaults and what they do to the times; and
how long it waited at most when the spec says."""

from __future__ import annotations

from harness.campaign import profiles
from harness.core.spec import validate
from harness.report.describe import describe_sweep, describe_workload


def _rally(**workload: object) -> dict:
    spec = validate(
        {
            "name": "cp",
            "sweep": [2],
            "target": {"type": "openstack"},
            "workloads": [{"name": "cp", "tool": "rally", **workload}],
        }
    )
    return spec.model_dump(mode="json")["workloads"][0]


def test_a_poll_interval_is_on_the_method_line():
    line = describe_workload(_rally(poll_interval=0.25, times=4), "openstack")
    assert line == (
        "Rally task control-plane at each concurrency of the sweep; 4 iterations; "
        "Rally checked what it waited for every 0.25 s."
    )


def test_a_wait_timeout_is_on_the_method_line():
    line = describe_workload(_rally(poll_interval=1, wait_timeout=150, times=8), "openstack")
    assert line.endswith(
        "Rally checked what it waited for every 1 s; "
        "Rally failed an iteration that waited over 150 s for a status."
    )
    assert "waited over" not in describe_workload(_rally(poll_interval=1), "openstack")


def test_without_one_the_line_says_the_default_rounds_times_up():
    line = describe_workload(_rally(), "openstack")
    assert "2 iteration(s) per concurrent user" in line
    assert line.endswith(
        "at rally-openstack's default intervals (1 to 4 s: an action's time is rounded up to them)."
    )


def test_a_provisioning_workload_says_its_pace():
    spec = validate(
        {
            "name": "p",
            "sweep": [2],
            "target": {"type": "k8s", "storage_class": "standard"},
            "workloads": [
                {"name": "p", "tool": "pvc-provision", "pace": {"create_per_min": 10}},
                {"name": "q", "tool": "pvc-provision"},
            ],
        }
    )
    paced, free = spec.model_dump(mode="json")["workloads"]
    assert "namespaces created at most 10 a minute; deleted all at once" in describe_workload(
        paced, "k8s"
    )
    assert "namespaces created all at once; deleted all at once" in describe_workload(free, "k8s")


def test_a_sweep_in_words():
    assert describe_sweep([2, 4], []) == "2, 4"
    sweep = {"start": 1, "max": 4, "stop_when": {"no_space": True, "failures_above_pct": 5.0}}
    rules = "until a step runs out of space or more than 5 % of a step's consumers fail"
    assert describe_sweep(sweep, []) == f"1, 2, 4, {rules}"
    steps = [
        {"workload": "w", "concurrency": 1, "state": "done", "ended_sweep": None},
        {"workload": "w", "concurrency": 2, "state": "failed", "ended_sweep": "no space: full"},
        {"workload": "w", "concurrency": 4, "state": "skipped", "ended_sweep": None},
    ]
    assert describe_sweep(sweep, steps) == (
        f"1, 2, 4, {rules}; the sweep of w ended at 2 consumers (no space: full), so 4 did not run"
    )


def _quick(target: dict) -> dict:
    return profiles.profile_spec("quick", target, "q").to_dict()["workloads"][0]


def test_an_rbd_steps_method_says_fios_rbd_engine_not_the_workloads_ioengine():
    workload = _quick({"type": "rbd", "ceph_conf": "/etc/ceph/ceph.conf"})
    assert workload["ioengine"] == "libaio"  # the model's default, which rbd does not run
    line = describe_workload(workload, "rbd")
    assert "; ioengine rbd;" in line and "libaio" not in line, line
    # elsewhere the workload's own
    local = _quick({"type": "local", "dir": "/srv/data"})
    assert "; ioengine libaio;" in describe_workload(local, "local")
