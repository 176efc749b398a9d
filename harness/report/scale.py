"""The Scale page's pictures, drawn from the comparison tables the scale benchmarks keep
under results/scale/ (the same CSV files the page's tables are): volperf set against
kube-burner and against plain Rally, latency by scale and each process's CPU time and
peak memory; the Heat capacity search's knee. The documentation build draws them beside
the tables (doc/source/conf.py)."""

from __future__ import annotations

import csv
import json
import statistics
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from harness.report.plots import capacity_plot, pyplot, save

TOOL_COLOURS = {"volperf": "tab:blue", "kube-burner": "tab:orange", "rally": "tab:green"}
Row = dict[str, str]


def _rows(table: Path) -> list[Row]:
    with table.open(newline="") as handle:
        return list(csv.DictReader(handle))


def _number(text: str) -> float | None:
    return float(text) if text not in ("", None) else None


def _lines(
    ax: Any,
    rows: Sequence[Row],
    scale: str,
    columns: Sequence[tuple[str, str]],
    where: Mapping[str, str],
    tools: Sequence[str],
) -> None:
    """For each tool, a line of each column (solid, then dashed) against ``scale``, of the
    rows whose other columns hold ``where``."""
    for tool in tools:
        for (column, label), style in zip(columns, ("-", "--", ":"), strict=False):
            points = sorted(
                (int(r[scale]), value)
                for r in rows
                if r["tool"] == tool
                and all(r[k] == v for k, v in where.items())
                and (value := _number(r[column])) is not None
            )
            if points:
                xs, ys = zip(*points, strict=True)
                name = f"{tool}, {label}" if label else tool
                ax.plot(xs, ys, style, marker="o", color=TOOL_COLOURS[tool], label=name)
    ax.set_xticks(sorted({int(r[scale]) for r in rows}))
    ax.grid(True, alpha=0.3)
    ax.set_ylim(bottom=0)
    ax.legend(fontsize=8, loc="lower right")  # every line here rises to the right


def _cost_panels(
    axes: Sequence[Any],
    rows: Sequence[Row],
    scale: str,
    where: Mapping[str, str],
    tools: Sequence[str],
    whose: str,
) -> None:
    """Two panels: CPU seconds and peak RSS of each tool's ``whose``, by ``scale``."""
    panels = (("cpu_s", "CPU time", "CPU seconds"), ("peak_rss_mib", "peak RSS", "MiB"))
    for ax, (column, title, unit) in zip(axes, panels, strict=True):
        _lines(ax, rows, scale, [(column, "")], where, tools)
        ax.set_title(f"{title} of {whose}")
        ax.set_ylabel(unit)


def k8s_namespaces_plot(table: Path, directory: Path, stem: str = "k8s-namespaces") -> str:
    """PVC bound and pod ready, P50 and P95, by namespaces; each process's CPU seconds and
    peak RSS: volperf against kube-burner (each measuring its own objects), the mean of
    each tool's runs at a scale (one with each tool first)."""
    rows = _mean_of_runs(
        _rows(table), ("namespaces", "tool", "figure"), ("p50", "p95", "cpu_s", "peak_rss_mib")
    )
    tools = ("volperf", "kube-burner")
    percentiles = [("p50", "P50"), ("p95", "P95")]
    plt = pyplot()
    fig, grid = plt.subplots(2, 2, figsize=(10, 7))
    axes = list(grid.flat)
    for ax, figure in zip(axes[:2], ("bound", "ready"), strict=True):
        _lines(ax, rows, "namespaces", percentiles, {"figure": figure}, tools)
        ax.set_title(f"PVC {figure}" if figure == "bound" else "pod ready")
        ax.set_ylabel("seconds")
    for ax in axes:
        ax.set_xlabel("namespaces")
    _cost_panels(axes[2:], rows, "namespaces", {"figure": "process"}, tools, "the process")
    return save(fig, directory, stem)


def rally_sweep_plot(table: Path, directory: Path, stem: str = "rally-sweep") -> str:
    """Each scenario's load duration by concurrent users, and each whole run's CPU seconds
    and peak RSS: volperf's Rally runner against plain Rally (the mean of its runs at
    each count, as each ran first and second)."""
    rows = _mean_of_runs(
        _rows(table),
        ("concurrency", "tool", "scenario"),
        ("load_duration_s", "cpu_s", "peak_rss_mib"),
    )
    tools = ("volperf", "rally")
    scenarios = sorted({r["scenario"] for r in rows} - {"(whole run)"})
    plt = pyplot()
    fig, grid = plt.subplots(2, 2, figsize=(10, 7))  # two scenarios, CPU and memory
    axes = list(grid.flat)
    for ax, scenario in zip(axes[:2], scenarios, strict=True):
        where = {"scenario": scenario}
        _lines(ax, rows, "concurrency", [("load_duration_s", "")], where, tools)
        ax.set_title(scenario.split(".")[-1], fontsize=9)
        ax.set_ylabel("load duration, s")
    where = {"scenario": "(whole run)"}
    _cost_panels(axes[2:], rows, "concurrency", where, tools, "the whole run")
    for ax in axes:
        ax.set_xlabel("concurrent users")
    return save(fig, directory, stem)


def _mean_of_runs(rows: list[Row], keys: Sequence[str], columns: Sequence[str]) -> list[Row]:
    """One row per ``keys``: the mean of each of ``columns`` over the runs that have it (a
    scale run in both orders, or more than once)."""
    groups: dict[tuple[str, ...], list[Row]] = {}
    for row in rows:
        groups.setdefault(tuple(row[k] for k in keys), []).append(row)
    merged = []
    for key, group in groups.items():
        row = dict(zip(keys, key, strict=True))
        for column in columns:
            values = [v for r in group if (v := _number(r.get(column, ""))) is not None]
            row[column] = str(statistics.mean(values)) if values else ""
        merged.append(row)
    return merged


# each picture's file stem -> the kept table (under results/scale/) it is drawn from
def heat_capacity_plot(figures: Path, directory: Path, stem: str) -> str:
    """The Heat capacity search's knee, as a campaign's page draws it (plots.py)."""
    kept = json.loads(figures.read_text())
    found = {"rate_iops": kept["rate_iops"], "trials": kept["trials"]}
    drawn = capacity_plot({**found, "search": {"p99_ms": kept["p99_ms"]}}, directory, stem)
    assert drawn is not None, f"{figures}: no step tried"
    return drawn


SCALE_PLOTS = {
    "k8s-namespaces": ("k8s-namespaces/comparison.csv", k8s_namespaces_plot),
    "rally-sweep": ("rally-sweep/comparison.csv", rally_sweep_plot),
    "heat-capacity": ("heat-capacity/heat-capacity.json", heat_capacity_plot),
}


def draw_scale_plots(kept: Path, directory: Path) -> list[str]:
    """Every picture of the Scale page into ``directory``; where its table is not beside
    the sources (a build away from the checkout), a picture that says so."""
    drawn = []
    for stem, (table, draw) in SCALE_PLOTS.items():
        if (kept / table).exists():
            drawn.append(draw(kept / table, directory, stem))
            continue
        plt = pyplot()
        fig, ax = plt.subplots(figsize=(6, 1.2))
        ax.axis("off")
        ax.text(0.5, 0.5, f"not beside these sources: results/scale/{table}", ha="center")
        drawn.append(save(fig, directory, stem))
    return drawn
