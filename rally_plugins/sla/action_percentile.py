"""SLA ``volperf_action_percentile``: fail when an atomic action's percentile is above a
bound, e.g. ``{percentile: 95, max_seconds: {nova.boot_server: 30, total: 60}}``."""

from __future__ import annotations

from typing import Any

from rally import consts
from rally.task import sla

from rally_plugins.sla.durations import DurationsSLA


@sla.configure(name="volperf_action_percentile")
class ActionPercentile(DurationsSLA):
    """An atomic action's (or the iteration's total) percentile, in seconds, at most a bound."""

    CONFIG_SCHEMA = {
        "type": "object",
        "$schema": consts.JSON_SCHEMA,
        "properties": {
            "percentile": {
                "type": "number",
                "minimum": 0,
                "exclusiveMinimum": True,
                "maximum": 100,
            },
            "max_seconds": {
                "type": "object",
                "minProperties": 1,
                "additionalProperties": {"type": "number", "minimum": 0},
            },
        },
        "required": ["max_seconds"],
        "additionalProperties": False,
    }

    def __init__(self, criterion_value: dict[str, Any]) -> None:
        super().__init__(criterion_value)
        self.percent = float(criterion_value.get("percentile", 95))
        self.bounds: dict[str, float] = criterion_value["max_seconds"]

    def _check(self) -> bool:
        self.success = all(
            (value := self.durations.percentile(action, self.percent)) is None or value <= bound
            for action, bound in self.bounds.items()
        )
        return self.success

    def details(self) -> str:
        lines = []
        for action, bound in self.bounds.items():
            value = self.durations.percentile(action, self.percent)
            shown = "no successful iteration" if value is None else f"{value:.3f}s"
            lines.append(f"{action} {self.percent:g}%ile {shown} <= {bound:g}s")
        return "; ".join(lines) + f" - {self.status()}"
