"""Stalls from when I/Os completed: each function against figures worked out by hand,
then a real run (fixtures/stalls/capture.sh: fio writing to an ext4 frozen for 1 s and
3 s, the freezes' times noted in freezes.txt)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.records.fio import ConsumerContext, FioConsumerRecord
from harness.records.stall_summary import stall_events, stall_warning, stalls_of, step_stalls
from harness.records.stalls import Stall, StallFigures, stalls
from harness.tools.fio.logs import JobLogs, parse_completion_marks

FIXTURES = Path(__file__).parent / "fixtures" / "stalls"


def test_a_gap_between_completions_of_a_second_or_more_is_a_stall_timed_within_half_a_line():
    every = 100  # ms between the log's lines while I/Os complete
    marks = [1100, 1200, 1300, 2550, 2650, 2750]
    # nothing completed from 1300 + up to 100 ms to 2550: 1.2 s from 1350, ±50 ms
    assert stalls(marks, 1000, 2800, every) == [Stall(1350, 1.2)]
    assert stalls([1100, 1200, 1300, 2300, 2400], 1000, 2500, every) == []  # 0.95 s
    # at the start, and after the last completion up to the stop
    assert stalls([2500, 2600], 1000, 2700, every) == [Stall(1050, 1.45)]
    assert stalls([1100, 1200], 1000, 3000, every) == [Stall(1250, 1.75)]
    assert stalls([], 1000, 4000, every) == [Stall(1050, 2.95)]  # nothing at all
    # the full histogram logs, a line a second: a second between lines is no stall
    seconds = [2000, 3000, 4000, 7000, 8000]
    assert stalls(seconds, 1000, 8000, 1000) == [Stall(4500, 2.5)]
    assert stalls([2001], 1000, 2001, 1000) == []  # a line only a second after the start


def test_a_step_in_short_its_warning_and_its_events():
    found = {"c01": [Stall(5000, 1.5), Stall(9000, 3.0)], "c02": []}
    summary = step_stalls(found, {"c01": 100, "c02": 1000})
    assert summary == {
        "consumers": 2,
        "consumers_stalled": 1,
        "count": 2,
        "longest_s": 3.0,
        "longest": {"consumer": "c01", "start_ms": 9000, "seconds": 3.0},
        "total_s": 4.5,
        "within_s": 0.5,  # the coarser consumer's
    }
    warning = stall_warning(summary, started_ms=4000)
    assert warning is not None and warning.code == "stalled"
    assert warning.message.startswith(
        "1 of 2 consumers completed no I/O for 1 s or more (2 stalls, 4.5 s in all): the "
        "longest 3 s, c01 from 5.0 s into the run (each within ±0.5 s)"
    )
    assert stall_warning(step_stalls({"c02": []}, {"c02": 100}), 4000) is None
    events = stall_events("s1", found, 0.5)
    assert [(e.consumer, e.event, e.index, e.start_ms, e.seconds) for e in events] == [
        ("c01", "stall", 1, 5000, 1.5),
        ("c01", "stall", 2, 9000, 3.0),
    ]
    assert StallFigures.of(found["c01"]) == StallFigures(2, 3.0, 4.5)
    assert StallFigures.of([]) == StallFigures(0, 0.0, 0.0)


def test_the_freezes_of_a_real_run_are_its_stalls():
    marks = parse_completion_marks((FIXTURES / "completions_clat_hist.1.log").read_text())
    fio = json.loads((FIXTURES / "fio-freezes.json").read_text())
    stop = fio["timestamp_ms"]  # fio 3.33: no job_start; it ran for its runtime up to here
    start = stop - fio["jobs"][0]["job_runtime"]
    freezes = [
        tuple(float(t) for t in line.split())
        for line in (FIXTURES / "freezes.txt").read_text().splitlines()
        if not line.startswith("#")
    ]
    found = stalls(marks, start, stop, 100)
    assert len(found) == len(freezes) == 2
    for stall, (frozen, thawed) in zip(found, freezes, strict=True):
        assert stall.start_ms / 1000 == pytest.approx(frozen, abs=0.1)
        assert stall.seconds == pytest.approx(thawed - frozen, abs=0.1)


def test_a_steps_records_get_their_stalls_by_job_and_its_events_name_the_consumers():
    def record(jobname: str, consumer: str, error: str = "") -> FioConsumerRecord:
        context = ConsumerContext("s1", consumer, 2, "reader", "randread", "4k", 1, "local", 1)
        return FioConsumerRecord(1000, 5000, jobname, None, None, context, error=error)

    records = [
        record("c01-randread", "c01"),
        record("c02-randread", "c02"),
        record("x", "c03", "no"),
    ]
    marks = [1100 + 100 * i for i in range(10)] + [3500 + 100 * i for i in range(15)]
    logs = [
        JobLogs("c01-randread", {}, {}, {}, {}, marks, 100),
        JobLogs("c02-randread", {}, {}, {}, {}, list(range(1100, 5000, 100)), 100),
    ]
    stalled = stalls_of("s1", logs, records)
    assert [r.stalls for r in stalled.records] == [
        StallFigures(1, 1.45, 1.45),  # nothing from 2000 (+ up to 100 ms) to 3500
        StallFigures(0, 0.0, 0.0),
        None,  # failed: no figures, no stalls
    ]
    assert stalled.summary["consumers"] == 2 and stalled.summary["longest"]["consumer"] == "c01"
    assert [(e.consumer, e.start_ms, e.seconds) for e in stalled.events] == [("c01", 2050, 1.45)]
    assert stalled.warning is not None and "c01 from 1.1 s into the run" in stalled.warning.message
    # no consumer's fio logged completions (an older run): nothing said either way
    unlogged = stalls_of("s1", [JobLogs("c01-randread", {}, {}, {})], records)
    assert unlogged.summary is None and unlogged.records == records and not unlogged.events
