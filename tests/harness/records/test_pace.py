"""records/pace.py: how far behind its schedule a fixed-rate consumer fell, second by
second, and the seconds it fell short of its rate."""

from __future__ import annotations

import pytest

from harness.records.pace import StepPace, behind_schedule, consumer_pace


def test_a_consumer_on_its_rate_is_never_behind():
    assert behind_schedule([100, 100, 100], 100) == [0.0, 0.0, 0.0]


def test_a_stall_puts_it_behind_until_it_catches_up():
    # 1 s with nothing done, then 50 % over the rate for two seconds: caught up
    assert behind_schedule([100, 0, 150, 150], 100) == [0.0, 1.0, 0.5, 0.0]


def test_running_ahead_does_not_bank_time():
    # a second above the rate (Poisson arrivals bunch) is not credit: never below 0
    assert behind_schedule([120, 80], 100) == [0.0, 0.0]


def test_a_device_that_holds_half_the_rate_leaves_it_further_behind_each_second():
    assert behind_schedule([50] * 4, 200) == pytest.approx([0.75, 1.5, 2.25, 3.0])


def test_a_consumers_pace_counts_its_short_seconds_and_its_worst_lag():
    pace = consumer_pace("c01-randread", 200, 150.0, [200, 100, 100, 200], 95)
    assert pace.achieved_pct == pytest.approx(75.0)
    assert (pace.seconds, pace.seconds_short) == (4, 2)
    assert (pace.behind_s, pace.behind_end_s) == (1.0, 1.0)


def test_a_step_names_its_worst_consumer():
    step = StepPace(
        [
            consumer_pace("c01", 100, 99.0, [100, 98], 95),
            consumer_pace("c02", 100, 80.0, [80, 80], 95),
        ],
        95,
    )
    assert step.worst_achieved_pct == pytest.approx(80.0)
    assert step.most_behind_s == pytest.approx(0.4)
    document = step.to_json()
    assert [c["consumer"] for c in document["consumers"]] == ["c01", "c02"]
    assert "submission" in document["latency_from"]


def test_a_consumers_seconds_are_kept_as_its_log_gave_them():
    step = StepPace([consumer_pace("c01", 100, 99.0, [100, 98.5, 0], 95)], 95)
    (consumer,) = step.to_json()["consumers"]
    assert consumer["per_second"] == [100, 98.5, 0]
