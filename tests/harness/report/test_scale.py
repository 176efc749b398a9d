"""The Scale page's pictures show the kept comparison tables' own figures: each line of a
panel is the mean of its tool's runs in the table, by scale (results/scale/)."""

from __future__ import annotations

import csv
import json
import statistics
from pathlib import Path

import pytest

from harness.report import plots, scale

KEPT = Path(__file__).parents[3] / "results" / "scale"


@pytest.fixture
def figures(monkeypatch) -> dict[str, object]:
    """Each figure drawn, by its stem, as matplotlib left it before saving."""
    drawn: dict[str, object] = {}
    real_save = scale.save

    def keep(fig, directory, stem):
        drawn[stem] = {ax.get_title(): ax for ax in fig.axes}
        return real_save(fig, directory, stem)

    monkeypatch.setattr(scale, "save", keep)
    return drawn


def _line(ax, label: str) -> list[tuple[float, float]]:
    [line] = [line for line in ax.get_lines() if line.get_label() == label]
    return list(zip(line.get_xdata(), line.get_ydata(), strict=True))


def _table(name: str) -> list[dict[str, str]]:
    with (KEPT / name).open(newline="") as handle:
        return list(csv.DictReader(handle))


def _mean_by_scale(rows: list[dict[str, str]], column: str) -> list[tuple[int, float]]:
    """The mean of a column's values at each scale (the runs of each order), sorted."""
    by_scale: dict[int, list[float]] = {}
    for r in rows:
        by_scale.setdefault(int(r["namespaces"]), []).append(float(r[column]))
    return sorted((n, statistics.mean(values)) for n, values in by_scale.items())


def test_the_k8s_panels_are_the_mean_of_the_tables_runs(figures, tmp_path):
    assert scale.draw_scale_plots(KEPT, tmp_path) == [
        "k8s-namespaces",
        "rally-sweep",
        "heat-capacity",
    ]
    for stem in ("k8s-namespaces", "rally-sweep", "heat-capacity"):
        assert (tmp_path / f"{stem}.png").stat().st_size > 10_000
    axes = figures["k8s-namespaces"]
    rows = _table("k8s-namespaces/comparison.csv")
    for tool in ("volperf", "kube-burner"):
        for title, figure in (("PVC bound", "bound"), ("pod ready", "ready")):
            mine = [r for r in rows if (r["tool"], r["figure"]) == (tool, figure)]
            for column, label in (("p50", "P50"), ("p95", "P95")):
                drawn = _line(axes[title], f"{tool}, {label}")
                assert drawn == pytest.approx(_mean_by_scale(mine, column))
        process = [r for r in rows if (r["tool"], r["figure"]) == (tool, "process")]
        cpu = _mean_by_scale(process, "cpu_s")
        assert _line(axes["CPU time of the process"], tool) == pytest.approx(cpu)
        assert [n for n, _ in cpu] == [50, 100, 250]


def test_the_rally_panels_are_the_mean_of_each_tools_runs(figures, tmp_path):
    scale.draw_scale_plots(KEPT, tmp_path)
    axes = figures["rally-sweep"]
    rows = [r for r in _table("rally-sweep/comparison.csv") if r["scenario"] == "(whole run)"]
    for tool in ("volperf", "rally"):
        drawn = dict(_line(axes["CPU time of the whole run"], tool))
        assert sorted(drawn) == sorted({int(r["concurrency"]) for r in rows})
        for users, cpu_s in drawn.items():  # a count run more than once: their mean
            runs = [r for r in rows if r["tool"] == tool and r["concurrency"] == str(users)]
            assert cpu_s == pytest.approx(statistics.mean(float(r["cpu_s"]) for r in runs))


def test_a_table_not_beside_the_sources_is_said_in_its_place(figures, tmp_path):
    assert scale.draw_scale_plots(tmp_path / "nothing", tmp_path) == [
        "k8s-namespaces",
        "rally-sweep",
        "heat-capacity",
    ]
    [text] = figures["k8s-namespaces"][""].texts
    assert (
        text.get_text() == "not beside these sources: results/scale/k8s-namespaces/comparison.csv"
    )


def test_the_heat_capacity_knee_is_each_step_the_search_kept(monkeypatch, tmp_path):
    drawn: dict[str, dict[str, object]] = {}
    real_save = plots.save

    def keep(fig, directory, stem):  # the knee is drawn by the campaign pages' own plot
        drawn[stem] = {ax.get_title(): ax for ax in fig.axes}
        return real_save(fig, directory, stem)

    monkeypatch.setattr(plots, "save", keep)
    scale.draw_scale_plots(KEPT, tmp_path)
    kept = json.loads((KEPT / "heat-capacity" / "heat-capacity.json").read_text())
    rate = kept["rate_iops"]
    for title, key in (
        ("p99 latency", "p99_ms"),
        ("rate achieved, all consumers", "achieved_iops"),
    ):
        [points] = [c.get_offsets() for c in drawn["heat-capacity"][title].collections]
        expected = [(t["count"] * rate, t[key]) for t in kept["trials"] if t[key] is not None]
        assert [tuple(p) for p in points] == pytest.approx(expected)
