"""A figure's history across campaigns: pure functions over summaries, one to one."""

from __future__ import annotations

import csv
import io

import pytest

from harness.records.history import (
    CSV_HEADER,
    HistoryCampaign,
    SeriesKey,
    campaign_figures,
    history,
    history_csv,
    rally_figures,
    step_figures,
)


def fio_step(step: str, concurrency: int, iops: float, p95: float, **extra) -> dict:
    return {
        "step": step,
        "workload": "randrw",
        "concurrency": concurrency,
        "threads": None,
        "repeat": 1,
        "state": "done",
        "read": {"iops_sum": iops, "p95_merged": p95, "iops_avg": iops / concurrency},
        **extra,
    }


def test_step_figures_are_the_chosen_ones_of_each_section():
    step = fio_step("s", 2, 1000.0, 1.5)
    step["write"] = {"iops_sum": 500, "p95_merged": None}
    step["provision"] = {"pvc-bound": {"p95_s": 0.8, "p50_s": 0.3}, "count": 3}
    step["db"] = {"tps_total": 42.0, "latency_p95_ms_highest": 9.5, "memory_not_storage": True}
    assert step_figures(step) == [
        ("read", "IOPS, sum", True, 1000.0),
        ("read", "p95 ms (merged)", False, 1.5),
        ("write", "IOPS, sum", True, 500.0),
        ("db", "TPS, sum", True, 42.0),
        ("db", "p95 ms (highest consumer)", False, 9.5),
        ("pvc-bound", "p95 s", False, 0.8),
    ]


def test_rally_figures_by_step_and_concurrency():
    rows = [
        {
            "step": "s1",
            "scenario": "Cinder.x",
            "action": "total",
            "concurrency": "2",
            "median_s": "1.5",
            "p95_s": "2.5",
        },
        {
            "step": "s1",
            "scenario": "Cinder.x",
            "action": " -> cinder.create",
            "concurrency": "2",
            "median_s": "0.5",
            "p95_s": "",
        },
    ]
    assert rally_figures(rows) == {
        ("s1", 2): [
            ("Cinder.x total", "median s", False, 1.5),
            ("Cinder.x total", "p95 s", False, 2.5),
            ("Cinder.x -> cinder.create", "median s", False, 0.5),
        ]
    }


def test_repeats_are_averaged_and_unfinished_steps_left_out():
    steps = [
        fio_step("a", 2, 1000.0, 1.0),
        {**fio_step("b", 2, 3000.0, 3.0), "repeat": 2},
        {**fio_step("c", 4, 9999.0, 9.0), "state": "failed"},
    ]
    campaign = campaign_figures("one", 10.0, steps)
    key = SeriesKey("randrw", 2, None, "read", "IOPS, sum", True)
    assert campaign.figures[key] == 2000.0
    assert {k.consumers for k in campaign.figures} == {2}


def _campaign(name: str, started: float | None, iops: float, p95: float) -> HistoryCampaign:
    return campaign_figures(name, started, [fio_step("s", 2, iops, p95)])


def test_history_is_in_time_order_with_changes_and_flags():
    campaigns = [
        _campaign("c", 300.0, 700.0, 1.0),  # 30 % fewer IOPS than b: flagged worse
        _campaign("a", 100.0, 1000.0, 1.0),
        _campaign("b", 200.0, 1050.0, 1.0),  # +5 %: within the threshold
    ]
    [iops, p95] = history(campaigns, threshold=0.10)
    assert iops.key.title == "randrw, 2, read: IOPS, sum"
    assert [p.campaign for p in iops.points] == ["a", "b", "c"]
    assert [p.value for p in iops.points] == [1000.0, 1050.0, 700.0]
    assert [p.change for p in iops.points] == [None, pytest.approx(0.05), pytest.approx(-1 / 3)]
    assert [p.flag for p in iops.points] == ["", "", "worse"]
    assert [p.flag for p in p95.points] == ["", "", ""]


def test_higher_latency_is_worse_and_a_missing_figure_keeps_the_one_before():
    campaigns = [
        _campaign("a", 1.0, 1000.0, 1.0),
        campaign_figures("b", 2.0, []),  # a campaign whose step failed
        _campaign("c", 3.0, 1000.0, 0.5),
    ]
    p95 = history(campaigns, threshold=0.10)[1]
    assert [p.value for p in p95.points] == [1.0, None, 0.5]
    assert [p.change for p in p95.points] == [None, None, -0.5]
    assert p95.points[2].flag == "better"


def test_campaigns_without_a_start_come_last_by_name():
    campaigns = [_campaign("z", None, 1.0, 1.0), _campaign("y", None, 1.0, 1.0)]
    campaigns.append(_campaign("x", 5.0, 1.0, 1.0))
    assert [p.campaign for p in history(campaigns)[0].points] == ["x", "y", "z"]


def test_the_csv_has_a_row_per_figure_per_campaign():
    series = history([_campaign("a", 0.0, 1000.0, 1.0), _campaign("b", 60.0, 500.0, 1.0)])
    rows = list(csv.DictReader(io.StringIO(history_csv(series))))
    assert list(rows[0]) == CSV_HEADER and len(rows) == 4
    assert rows[1] == {
        "campaign": "b",
        "started": "1970-01-01T00:01:00+00:00",
        "workload": "randrw",
        "consumers": "2",
        "threads": "",
        "section": "read",
        "figure": "IOPS, sum",
        "value": "500",
        "change": "-0.5000",
        "flag": "worse",
        "level_change": "",
    }


def test_a_change_of_level_names_its_campaigns_and_what_differs_in_method():
    def measured(name: str, started: float, iops: float, bs: str | None) -> HistoryCampaign:
        methods = {"randrw": {"tool": "fio", "bs": bs}} if bs else {}
        return campaign_figures(name, started, [fio_step("s", 2, iops, 1.0)], (), methods)

    iops = [1000.0, 1010.0, 990.0, 1005.0, 1500.0, 1490.0, 1510.0]
    sizes = ["4k", "4k", "4k", "4k", "8k", "8k", "8k"]
    campaigns = [
        measured(f"n{i}", float(i), v, bs)
        for i, (v, bs) in enumerate(zip(iops, sizes, strict=True))
    ]
    series, p95 = history(campaigns)
    (change,) = series.level_changes
    assert (change.campaign, change.previous, change.flag) == ("n4", "n3", "better")
    assert change.point.before == pytest.approx(1001.25) and change.point.after == 1500
    assert [(d.setting, d.baseline, d.other) for d in change.differences] == [("bs", "4k", "8k")]
    assert change.method_known and p95.level_changes == []  # p95 stayed at 1.0
    rows = list(csv.DictReader(io.StringIO(history_csv([series]))))
    assert [r["level_change"] for r in rows] == ["", "", "", "", "better", "", ""]
    # a campaign that does not say how it measured: the change, without a method's words
    campaigns[3] = measured("n3", 3.0, 1005.0, None)
    (unknown,) = history(campaigns)[0].level_changes
    assert not unknown.method_known and unknown.differences == []
    assert history(campaigns[:4])[0].level_changes == []  # four campaigns: not searched
