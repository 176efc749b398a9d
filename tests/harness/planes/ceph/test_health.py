from __future__ import annotations

import pytest

from harness.planes.ceph.health import (
    UNREACHABLE,
    describe,
    health_events,
    sample_of,
    sampling_cost,
)
from tests.harness.planes.ceph.fixtures import ceph_status


def samples(*kinds: str, start: float = 1000.0, every: float = 2.0) -> list[dict]:
    """A series of real samples: 'ok', 'slow' (SLOW_OPS), 'peering' or 'down' (no answer)."""
    names = {"ok": "status-ok", "slow": "status-slow-ops", "peering": "status-peering"}
    series = []
    for i, kind in enumerate(kinds):
        t = start + i * every
        if kind == "down":
            series.append({"t": t, "error": "RADOS timed out (error connecting to the cluster)"})
        else:
            series.append(sample_of(ceph_status(names[kind]), t))
    return series


def test_sample_keeps_status_checks_pgs_and_osds():
    sample = sample_of(ceph_status("status-slow-ops"), 5.0)
    assert sample["t"] == 5.0
    assert sample["status"] == "HEALTH_WARN"
    assert sample["checks"]["SLOW_OPS"]["severity"] == "HEALTH_WARN"
    assert "slow ops" in sample["checks"]["SLOW_OPS"]["message"]
    assert sample["pgs"] == {"active+clean": 33}
    assert sample["osds"] == {"num_osds": 1, "num_up_osds": 1, "num_in_osds": 1}


def test_a_healthy_series_has_no_events():
    assert health_events(samples("ok", "ok", "peering", "ok")) == []


def test_a_check_that_comes_and_goes_is_one_event_with_its_duration():
    events = health_events(samples("ok", "slow", "slow", "ok", "ok"))
    assert len(events) == 1
    event = events[0]
    assert (event.code, event.severity, event.samples) == ("SLOW_OPS", "HEALTH_WARN", 2)
    assert (event.first_t, event.last_t, event.cleared_t) == (1002.0, 1004.0, 1006.0)
    assert event.seconds == pytest.approx(4.0)


def test_a_check_still_there_at_the_end_never_cleared():
    (event,) = health_events(samples("ok", "slow", "slow"))
    assert event.cleared_t is None and event.seconds is None


def test_each_spell_is_its_own_event():
    events = health_events(samples("slow", "ok", "slow", "ok"))
    assert [(e.first_t, e.cleared_t) for e in events] == [(1000.0, 1002.0), (1004.0, 1006.0)]


def test_an_unanswered_sample_neither_ends_nor_starts_other_checks():
    events = health_events(samples("slow", "down", "slow", "ok"))
    by_code = {e.code: e for e in events}
    assert by_code["SLOW_OPS"].first_t == 1000.0 and by_code["SLOW_OPS"].cleared_t == 1006.0
    assert by_code["SLOW_OPS"].samples == 2
    assert by_code[UNREACHABLE].first_t == 1002.0 and by_code[UNREACHABLE].cleared_t == 1004.0


def test_the_worst_message_is_kept():
    series = samples("slow", "slow", "slow")
    for sample, ops in zip(series, (3, 54, 7), strict=True):
        sample["checks"]["SLOW_OPS"]["message"] = f"{ops} slow ops, oldest one blocked for 1 sec"
    (event,) = health_events(series)
    assert event.message.startswith("54 slow ops")


def test_description_gives_times_relative_to_the_step():
    (event,) = health_events(samples("ok", "slow", "slow", "ok"))
    text = describe(event, step_start=999.0)
    assert text.startswith(
        "SLOW_OPS (HEALTH_WARN) from +3 s to +5 s of the step, cleared at +7 s: "
    )
    assert "slow ops" in text
    (open_event,) = health_events(samples("slow"))
    assert describe(open_event, 1000.0).startswith(
        "SLOW_OPS (HEALTH_WARN) +0 s of the step, not cleared"
    )


def test_sampling_cost_counts_unanswered_and_the_worst_status():
    series = samples("ok", "slow", "down")
    for sample in series:
        sample.update(cpu_ms=1.5, wall_ms=3.0)
    cost = sampling_cost(series)
    assert cost == {
        "samples": 3,
        "unanswered": 1,
        "worst": "HEALTH_WARN",
        "cpu_ms": 4.5,
        "wall_ms_mean": 3.0,
    }
    assert sampling_cost([])["samples"] == 0
