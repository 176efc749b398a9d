"""A faulted step's phases and each phase's figures, each function against figures worked
out by hand (the Ceph plane's tests run them on a real OSD outage)."""

from __future__ import annotations

import pytest

from harness.records.phases import (
    DEGRADED,
    HEALED,
    HEALTHY,
    RECOVERING,
    Phase,
    fault_to_healed_s,
    ios_in,
    longest_stall_in,
    p99_in,
    phase_figures,
    phases,
    phases_sentence,
    step_phases,
)
from harness.records.stalls import Stall


def test_a_run_of_samples_in_one_state_is_a_phase_from_its_first_sample_to_the_next():
    samples = [
        (100.0, HEALTHY),
        (101.0, HEALTHY),
        (102.0, DEGRADED),
        (103.0, None),  # unanswered: the phase goes on
        (104.0, DEGRADED),
        (105.0, RECOVERING),
        (107.0, HEALTHY),
        (108.0, HEALTHY),
    ]
    assert phases(samples, end=110.0) == [
        Phase(HEALTHY, 100.0, 102.0),
        Phase(DEGRADED, 102.0, 105.0),
        Phase(RECOVERING, 105.0, 107.0),
        Phase(HEALED, 107.0, 110.0),  # healthy after a fault
    ]
    assert phases(list(reversed(samples)), end=110.0) == phases(samples, end=110.0)
    # from a start: the state then is the one sampled before it
    assert phases(samples, end=110.0, start=103.5) == [
        Phase(DEGRADED, 103.5, 105.0),
        Phase(RECOVERING, 105.0, 107.0),
        Phase(HEALED, 107.0, 110.0),
    ]
    # samples past the step's end are not the step's; a step never faulted is healthy
    assert phases([(100.0, HEALTHY), (111.0, DEGRADED)], end=110.0) == [
        Phase(HEALTHY, 100.0, 110.0)
    ]
    assert phases([(100.0, None)], end=110.0) == []
    # a second fault after healing: degraded again, then healed again
    again = [(0.0, DEGRADED), (2.0, HEALTHY), (4.0, DEGRADED), (6.0, HEALTHY)]
    assert [p.state for p in phases(again, end=8.0)] == [DEGRADED, HEALED, DEGRADED, HEALED]


def test_the_ios_of_a_phase_are_its_seconds_shares_of_the_per_second_log():
    # (end of the second, IOPS over it): 100 I/Os in 10.0-11.0, 50 in 11.0-12.0 …
    log = [(11.0, 100.0), (12.0, 50.0), (14.0, 80.0)]  # nothing completed in 12.0-13.0
    assert ios_in(Phase(DEGRADED, 10.0, 14.0), log) == pytest.approx(230.0)
    assert ios_in(Phase(DEGRADED, 10.5, 12.0), log) == pytest.approx(100.0)  # half + all
    assert ios_in(Phase(DEGRADED, 12.0, 13.0), log) == 0.0


def test_the_longest_stall_of_a_phase_is_the_part_of_each_stall_within_it():
    found = [Stall(10_500, 2.0), Stall(20_000, 1.2)]
    assert longest_stall_in(Phase(DEGRADED, 10.0, 20.0), found) == 2.0
    assert longest_stall_in(Phase(DEGRADED, 11.5, 30.0), found) == 1.2  # 1.0 of the first
    assert longest_stall_in(Phase(DEGRADED, 12.0, 12.4), found) == 0.4
    assert longest_stall_in(Phase(HEALTHY, 0.0, 10.0), found) == 0.0


def test_each_phase_keeps_a_share_of_the_healthy_phases_iops():
    found = [Phase(HEALTHY, 0.0, 2.0), Phase(DEGRADED, 2.0, 4.0), Phase(HEALED, 4.0, 5.0)]
    log = [(1.0, 100.0), (2.0, 100.0), (3.0, 10.0), (4.0, 30.0), (5.0, 90.0)]
    figures = phase_figures(found, log, [Stall(2_000, 1.0)], step_start=0.0)
    assert [(f.state, f.start_s, f.seconds, f.ios, f.iops) for f in figures] == [
        (HEALTHY, 0.0, 2.0, 200.0, 100.0),
        (DEGRADED, 2.0, 2.0, 40.0, 20.0),
        (HEALED, 4.0, 1.0, 90.0, 90.0),
    ]
    assert [f.kept_pct for f in figures] == [100.0, 20.0, 90.0]
    assert [f.longest_stall_s for f in figures] == [0.0, 1.0, 0.0]
    # no healthy phase (the fault before the first sample): nothing to keep a share of
    assert phase_figures(found[1:], log, [], 0.0)[0].kept_pct is None


def test_fault_to_healed_is_from_the_fault_to_the_healed_phase():
    found = [Phase(HEALTHY, 0.0, 10.4), Phase(DEGRADED, 10.4, 31.0), Phase(HEALED, 48.0, 60.0)]
    assert fault_to_healed_s(found, fault_t=10.0) == 38.0
    assert fault_to_healed_s(found[:2], fault_t=10.0) is None


def test_a_steps_phases_sum_its_consumers_and_say_so_in_a_sentence():
    found = [Phase(HEALTHY, 0.0, 2.0), Phase(DEGRADED, 2.0, 4.0), Phase(HEALED, 4.0, 5.0)]
    a = [(1.0, 100.0), (2.0, 100.0), (3.0, 10.0), (4.0, 30.0), (5.0, 90.0)]
    b = [(1.5, 50.0), (2.5, 50.0), (3.5, 0.0), (4.5, 50.0)]  # its seconds end at .5
    summary = step_phases(found, {"c01": (a, []), "c02": (b, [Stall(3_000, 1.2)])}, 0.0)
    assert summary["phases"] == [
        {"state": HEALTHY, "start_s": 0.0, "seconds": 2.0},
        {"state": DEGRADED, "start_s": 2.0, "seconds": 2.0},
        {"state": HEALED, "start_s": 4.0, "seconds": 1.0},
    ]
    assert [p["ios"] for p in summary["consumers"]["c01"]] == [200.0, 40.0, 90.0]
    # c02: 50 + 25 in the healthy phase, 25 + 0 + 25 degraded, 25 healed
    assert [p["ios"] for p in summary["consumers"]["c02"]] == [75.0, 50.0, 25.0]
    assert [p["ios"] for p in summary["sum"]] == [275.0, 90.0, 115.0]
    assert [p["longest_stall_s"] for p in summary["sum"]] == [0.0, 1.0, 0.2]
    assert summary["per_second"]["c02"] == [[1.5, 50.0], [2.5, 50.0], [3.5, 0.0], [4.5, 50.0]]
    assert phases_sentence(summary) == (
        "degraded from +2.0 s for 2.0 s (IOPS kept 33 %), healed at +4.0 s"
    )


def test_a_phases_p99_is_over_the_histograms_whose_second_lies_in_it():
    phase = Phase(DEGRADED, 10.0, 12.0)
    # seconds ending at 10.5 (middle 10.0: in), 11.0, 12.0 (middle 11.5: in), 12.6 (out)
    per_second = [
        (10.5, {1_000_000: 98, 9_000_000: 2}),
        (11.0, {1_000_000: 100}),
        (12.0, {2_000_000: 99, 30_000_000: 1}),
        (12.6, {500_000_000: 50}),
    ]
    # 198 I/Os at 1 ms, 99 at 2 ms, 3 slower: the 297th of 300 (99 %) at 2 ms; bins in ns
    assert p99_in(phase, per_second) == 2.0
    assert p99_in(phase, per_second[3:]) is None
    assert p99_in(phase, [(11.0, {2_000: 1})], latency_ns=1000.0) == 2.0  # fio 2: µs


def test_the_steps_p99_in_a_phase_is_of_every_consumers_ios_or_none():
    found = [Phase(HEALTHY, 0.0, 2.0), Phase(DEGRADED, 2.0, 4.0)]
    a = [(1.0, 10.0), (2.0, 10.0), (3.0, 10.0), (4.0, 10.0)]
    slow = [(1.0, {1_000_000: 10}), (2.0, {1_000_000: 10}), (3.0, {50_000_000: 10})]
    fast = [(1.0, {1_000_000: 10}), (2.0, {1_000_000: 10}), (3.0, {1_000_000: 90})]
    both = step_phases(found, {"c01": (a, []), "c02": (a, [])}, 0.0, {"c01": slow, "c02": fast})
    assert [p["p99_ms"] for p in both["consumers"]["c01"]] == [1.0, 50.0]
    assert [p["p99_ms"] for p in both["consumers"]["c02"]] == [1.0, 1.0]
    # degraded: 100 I/Os of both, 10 of them at 50 ms: the 99th at 50 ms
    assert [p["p99_ms"] for p in both["sum"]] == [1.0, 50.0]
    one = step_phases(found, {"c01": (a, []), "c02": (a, [])}, 0.0, {"c01": slow})
    assert [p["p99_ms"] for p in one["sum"]] == [None, None]  # c02 kept none
