"""The comparison page's table of the figures the studies quote (seed 002's layout): a
column per quoted figure of each baseline step, a row per campaign, each other campaign's
figure with its change beside it. The storage types study kept in results/storage-types/
(benchmarks/test_storage_types.py): its changes are its campaigns' own summary figures,
and the page the documentation build writes from it shows them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from matplotlib.colors import to_rgba

from harness.core.store import CampaignStore
from harness.records.compare import ComparedCampaign, compare_campaigns
from harness.records.method import CampaignMethod
from harness.report import comparison as comparison_page
from harness.report.comparison import (
    DELTA_HEADER,
    change_plot,
    delta_rows,
    headline_change,
    headline_figure,
    headline_table,
    write_kept_comparison,
)
from harness.report.data import load as load_campaign

REPO = Path(__file__).parents[3]
STUDY = REPO / "results" / "storage-types"
WORKLOADS = {
    "rnd": {"name": "rnd", "tool": "sysbench-fileio", "test": "rndrw"},
    "pg": {"name": "pg", "tool": "pgbench"},
}


def _campaign(name: str, reads: float, tps: float, load_s: float | None) -> ComparedCampaign:
    steps = [
        {
            "step": "001-rnd",
            "workload": "rnd",
            "concurrency": 1,
            "threads": 4,
            "db": {"reads_per_s_total": reads, "writes_per_s_total": reads / 2},
        },
        {
            "step": "002-pg",
            "workload": "pg",
            "concurrency": 1,
            "threads": 8,
            "db": {"tps_total": tps, "latency_avg_ms": 1000 * 8 / tps, "load_time_s_max": load_s},
        },
    ]
    return ComparedCampaign(name, steps, CampaignMethod(WORKLOADS, "local", "", {}))


def test_a_row_per_campaign_and_a_column_per_quoted_figure():
    host = _campaign("host", 10000.0, 2000.0, 40.0)
    comparisons = [
        compare_campaigns(host, _campaign("hostpath", 9990.0, 1700.0, 44.0)),
        compare_campaigns(host, _campaign("ceph", 8300.0, 900.0, None)),
    ]
    header, rows = headline_table(comparisons)
    assert header == [
        "campaign",
        "rnd: reads/s, sum",
        "rnd: writes/s, sum",
        "pg: load time s (slowest)",
        "pg: TPS, sum",
        "pg: mean latency ms",
    ]
    assert rows == [
        ["host", "10,000", "5,000", "40.0", "2,000", "4.00"],
        [
            "hostpath",
            "9,990 (−0.1 %)",
            "4,995 (−0.1 %)",
            "44.0 (+10.0 %)",
            "1,700 (−15.0 %)",
            "4.71 (+17.6 %)",
        ],
        [
            "ceph",
            "8,300 (−17.0 %)",
            "4,150 (−17.0 %)",
            "–",
            "900 (−55.0 %)",
            "8.89 (+122.2 %)",
        ],
    ]


def test_no_quoted_figures_no_table():
    steps = [{"step": "s", "workload": "g", "concurrency": 1, "app": {"tool": "git"}}]
    method = CampaignMethod({"g": {"name": "g", "tool": "git"}}, "k8s", "", {})
    git = ComparedCampaign("a", steps, method)
    assert headline_table([compare_campaigns(git, git)]) == ([], [])


def _summary_figures(campaign: Path) -> dict[tuple[str, str], float | None]:
    steps = json.loads((campaign / "summary.json").read_text())["steps"]
    return {(s["workload"], k): v for s in steps for k, v in (s.get("db") or {}).items()}


def test_the_storage_types_study_s_changes_are_its_campaigns_summary_figures(tmp_path):
    base = load_campaign(CampaignStore(STUDY / "bare-host"))
    others = [load_campaign(CampaignStore(STUDY / f"k8s-{c}")) for c in ("local-static", "ceph-fs")]
    comparisons = [
        compare_campaigns(base.compared(), o.compared(), accept_differences=True) for o in others
    ]
    host = _summary_figures(STUDY / "bare-host")
    page = write_kept_comparison(STUDY, tmp_path).read_text()  # as doc/source/conf.py does
    for other, comparison in zip(others, comparisons, strict=True):
        figures = _summary_figures(STUDY / other.name)
        quoted = [d for d in comparison.deltas if d.headline]
        assert len(quoted) == 7  # rnd r/s and w/s, seq read and write, load s, TPS, latency
        for d in quoted:
            b, o = host[(d.workload, d.metric)], figures[(d.workload, d.metric)]
            assert (d.baseline, d.other) == (b, o)
            assert b and d.delta == pytest.approx((o - b) / b)
            assert f"{headline_figure(o)} ({headline_change((o - b) / b)})" in page
    header, rows = headline_table(comparisons)
    assert [r[0] for r in rows] == ["bare-host", "k8s-local-static", "k8s-ceph-fs"]
    for cell in header + [c for row in rows for c in row]:
        assert f"- {cell}\n" in page  # the page is the table of these campaigns


def test_every_detail_row_names_its_workload():
    """Two steps of one consumer count and threads measure the same metric (reads/s of a
    random and of a sequential test): the rows are told apart by their workload."""
    steps = [
        {"step": f"00{i}-{name}", "workload": name, "concurrency": 1, "threads": 4, "db": {}}
        for i, name in enumerate(("fileio-rndrw", "fileio-seqrd"), start=1)
    ]
    for step, reads in zip(steps, (15000.0, 500.0), strict=True):
        step["db"] = {"reads_per_s_total": reads}
    workloads = {
        "fileio-rndrw": {"name": "fileio-rndrw", "tool": "sysbench-fileio", "test": "rndrw"},
        "fileio-seqrd": {"name": "fileio-seqrd", "tool": "sysbench-fileio", "test": "seqrd"},
    }
    method = CampaignMethod(workloads, "local", "", {})
    base = ComparedCampaign("base", steps, method)
    other = ComparedCampaign("other", steps, method)
    comparison = compare_campaigns(base, other, accept_differences=True)
    rows = delta_rows(comparison.deltas)
    assert DELTA_HEADER[0] == "workload" and len(rows) == 2
    assert [r[:2] for r in rows] == [
        ["fileio-rndrw", "1 × 4 threads"],
        ["fileio-seqrd", "1 × 4 threads"],
    ]
    assert len({tuple(r[:4]) for r in rows}) == len(rows)  # no two rows read the same


def test_the_change_plot_draws_each_quoted_change_by_campaign(tmp_path, monkeypatch):
    host = _campaign("host", 10000.0, 2000.0, 40.0)
    comparisons = [
        compare_campaigns(host, _campaign("hostpath", 9990.0, 1700.0, 44.0)),
        compare_campaigns(host, _campaign("ceph", 8300.0, 900.0, None)),
    ]
    drawn = []
    monkeypatch.setattr(comparison_page, "save", lambda fig, d, stem: drawn.append(fig) or stem)
    assert change_plot(comparisons, tmp_path) == "changes"
    [ax] = drawn[0].axes
    expected = [d for c in comparisons for d in c.deltas if d.headline and d.delta is not None]
    assert len(ax.patches) == len(expected) == 5 + 4  # ceph has no load time
    labels = {text.get_text().strip() for text in ax.texts}
    assert labels == {
        f"{c.other} {headline_change(d.delta)}"
        for c in comparisons
        for d in c.deltas
        if d.headline and d.delta is not None
    }
    # each bar from 1× to the ratio, coloured by its verdict
    bars = sorted((round(b.get_width(), 6), to_rgba(b.get_facecolor())) for b in ax.patches)
    colours = [
        to_rgba(comparison_page.VERDICT_COLOURS.get(d.verdict, "tab:grey")) for d in expected
    ]
    assert bars == sorted(zip((round(d.delta, 6) for d in expected), colours, strict=True))
    assert {d.verdict for d in expected} >= {"worse", "spread unknown"}
    assert change_plot([], tmp_path) is None
