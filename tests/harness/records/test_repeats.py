"""Run-to-run spread of repeated steps: mean, coefficient of variation, the flag."""

from __future__ import annotations

import pytest

from harness.records import stats
from harness.records.repeats import repeat_spreads


def step(repeat: int, iops: float, concurrency: int = 2, state: str = "done") -> dict:
    return {
        "step": f"00{repeat}",
        "workload": "w",
        "concurrency": concurrency,
        "repeat": repeat,
        "state": state,
        "read": {"iops_sum": iops, "bandwidth_sum": iops * 4},
        "window": {"read": {"iops_sum": iops * 0.9}},
    }


def by_figure(steps: list[dict]) -> dict:
    return {(r.concurrency, r.direction, r.figure): r for r in repeat_spreads(steps)}


def test_close_repeats_have_a_small_cv_and_no_flag():
    found = by_figure([step(1, 1000), step(2, 1010), step(3, 990)])
    iops = found[(2, "read", "iops_sum")]
    assert iops.values == (1000, 1010, 990) and iops.mean == 1000
    assert iops.cv == pytest.approx(stats.coefficient_of_variation([1000, 1010, 990]))
    assert not iops.flagged
    assert found[(2, "read", "window_iops_sum")].mean == pytest.approx(900)
    assert (2, "write", "iops_sum") not in found  # no writers


def test_an_outlier_run_raises_the_flag():
    iops = by_figure([step(1, 1000), step(2, 1010), step(3, 600)])[(2, "read", "iops_sum")]
    assert iops.cv is not None and iops.cv > 0.10 and iops.flagged


def test_single_runs_and_failed_repeats_are_left_out():
    assert repeat_spreads([step(1, 1000), step(1, 500, concurrency=4)]) == []
    found = by_figure([step(1, 1000), step(2, 10, state="failed"), step(3, 1000)])
    assert found[(2, "read", "iops_sum")].values == (1000, 1000)


def test_database_figures_are_spread_too():
    steps = [
        {
            "workload": "oltp",
            "concurrency": 1,
            "threads": 4,
            "repeat": r,
            "state": "done",
            "db": {"tps_total": tps, "latency_avg_ms": 2.0},
        }
        for r, tps in ((1, 100.0), (2, 150.0))
    ]
    tps = by_figure(steps)[(1, "db", "tps_total")]
    assert tps.threads == 4 and tps.flagged
