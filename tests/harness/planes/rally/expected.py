"""Rally's table recomputed from a task's raw iterations with nothing of Rally's or
volperf's code: the statistics module's inclusive quantiles (linear interpolation between
closest ranks, as Rally documents), rounded to 3 decimals as Rally's report shows them."""

from __future__ import annotations

import statistics
from typing import Any


def _figures(points: list[float]) -> list[float]:
    cuts = statistics.quantiles(points, n=100, method="inclusive") if len(points) > 1 else None
    pick = (lambda k: cuts[k - 1]) if cuts else (lambda k: points[0])
    return [
        round(v, 3)
        for v in (min(points), pick(50), pick(90), pick(95), max(points), statistics.fmean(points))
    ]


def expected_table(workload: dict[str, Any]) -> dict[str, list[float]]:
    """action -> [min, median, 90%ile, 95%ile, max, avg] over every iteration."""
    by_action: dict[str, list[float]] = {}
    for iteration in workload["data"]:
        for action in iteration["atomic_actions"]:
            by_action.setdefault(action["name"], []).append(
                action["finished_at"] - action["started_at"]
            )
        total = iteration["duration"] + iteration["idle_duration"]
        by_action.setdefault("total", []).append(total)
    return {action: _figures(points) for action, points in by_action.items()}
