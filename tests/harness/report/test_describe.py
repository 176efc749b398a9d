"""A Rally workload's method line says how often Rally checked what it waited for: the
spec's poll interval, or rally-openstack's defaults and what they do to the times."""

from __future__ import annotations

from harness.core.spec import validate
from harness.report.describe import describe_workload


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
    line = describe_workload(_rally(poll_interval=0.25, times=4))
    assert line == (
        "Rally task control-plane at each concurrency of the sweep; 4 iterations; "
        "Rally checked what it waited for every 0.25 s."
    )


def test_without_one_the_line_says_the_default_rounds_times_up():
    line = describe_workload(_rally())
    assert "2 iteration(s) per concurrent user" in line
    assert line.endswith(
        "at rally-openstack's default intervals (1 to 4 s: an action's time is rounded up to them)."
    )
