"""What the volperf SLAs share: each successful iteration's duration per top-level atomic
action (and ``total``), and Rally's own percentile of them."""

from __future__ import annotations

import collections
from typing import Any

from rally.task import sla
from rally.task.processing.utils import percentile

PERCENTILE_COLUMNS = {50: "median_s", 90: "p90_s", 95: "p95_s"}


class ActionDurations:
    def __init__(self) -> None:
        self.by_action: dict[str, list[float]] = collections.defaultdict(list)

    def add(self, iteration: dict[str, Any]) -> None:
        if iteration.get("error"):
            return
        for action in iteration.get("atomic_actions", []):
            started = action.get("started_at") or 0.0
            finished = action.get("finished_at") or started
            self.by_action[action["name"]].append(finished - started)
        self.by_action["total"].append(iteration["duration"] + iteration.get("idle_duration", 0))

    def merge(self, other: ActionDurations) -> None:
        for name, values in other.by_action.items():
            self.by_action[name].extend(values)

    def percentile(self, action: str, percent: float) -> float | None:
        values = sorted(self.by_action.get(action, []))
        return percentile(values, percent / 100, ignore_sorting=True) if values else None


class DurationsSLA(sla.SLA):
    """An SLA judged on the successful iterations' action durations seen so far."""

    def __init__(self, criterion_value: Any) -> None:
        super().__init__(criterion_value)
        self.durations = ActionDurations()

    def _check(self) -> bool:
        raise NotImplementedError

    def add_iteration(self, iteration: dict[str, Any]) -> bool:
        self.durations.add(iteration)
        return self._check()

    def merge(self, other: DurationsSLA) -> bool:
        self.durations.merge(other.durations)
        return self._check()
