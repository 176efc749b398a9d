"""Rally's table recomputed from a task's raw iterations with nothing of Rally's or
volperf's code: the statistics module's inclusive quantiles (linear interpolation between
closest ranks, as Rally documents), rounded to 3 decimals as Rally's report shows them."""

from __future__ import annotations

import csv
import statistics
from pathlib import Path
from typing import Any

import pytest

from harness.planes.rally.records import load_export, workloads

FIGURES = ("min_s", "median_s", "p90_s", "p95_s", "max_s", "avg_s")


def _figures(points: list[float]) -> list[float]:
    cuts = statistics.quantiles(points, n=100, method="inclusive") if len(points) > 1 else None
    pick = (lambda k: cuts[k - 1]) if cuts else (lambda k: points[0])
    return [
        round(v, 3)
        for v in (min(points), pick(50), pick(90), pick(95), max(points), statistics.fmean(points))
    ]


def expected_table(workload: dict[str, Any]) -> dict[str, list[float]]:
    """action -> [min, median, 90%ile, 95%ile, max, avg] over every iteration. An action
    an iteration runs N times is one point, the sum of its N durations, named
    "action (xN)" as Rally's table names it."""
    by_action: dict[str, list[float]] = {}
    for iteration in workload["data"]:
        sums: dict[str, list[float]] = {}
        for action in iteration["atomic_actions"]:
            sums.setdefault(action["name"], []).append(action["finished_at"] - action["started_at"])
        for name, durations in sums.items():
            shown = f"{name} (x{len(durations)})" if len(durations) > 1 else name
            by_action.setdefault(shown, []).append(sum(durations))
        total = iteration["duration"] + iteration["idle_duration"]
        by_action.setdefault("total", []).append(total)
    return {action: _figures(points) for action, points in by_action.items()}


def check_rally_csv(campaign: Path) -> int:
    """Assert that every row of the campaign's rally.csv equals Rally's own statistics in
    each step's JSON export and the recomputation from the raw iterations; returns how
    many of Rally's rows were checked."""
    with (campaign / "rally.csv").open() as handle:
        rows = list(csv.DictReader(handle))
    checked = 0
    for step in sorted(p for p in (campaign / "steps").iterdir() if p.is_dir()):
        for task, workload in workloads(load_export(step / "raw" / "rally.json")):
            scenario = next(iter(workload["scenario"]))
            mine = {
                r["action"]: r for r in rows if r["step"] == step.name and r["scenario"] == scenario
            }
            durations = workload["statistics"]["durations"]
            for element in [*durations["atomics"], durations["total"]]:
                row, data = mine[element["display_name"]], element["data"]
                assert [float(row[k]) for k in FIGURES] == [
                    data[k] for k in ("min", "median", "90%ile", "95%ile", "max", "avg")
                ], (step.name, scenario, element["display_name"])
                assert f"{float(row['success_pct']):.1f}%" == data["success"]
                assert int(row["count"]) == data["iteration_count"]
                assert row["task"] == task["uuid"]
                checked += 1
            for action, figures in expected_table(workload).items():
                got = [float(mine[action][k]) for k in FIGURES]
                assert got == pytest.approx(figures, abs=0.0011), (step.name, scenario, action)
    return checked
