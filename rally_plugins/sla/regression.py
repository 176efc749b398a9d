"""SLA ``volperf_regression``: fail when an atomic action got slower than in a baseline
campaign by more than a share, at the same scenario and concurrency, e.g.
``{baseline: results/last-month, scenario: CinderVolumes.create_and_attach_volume,
concurrency: 10, percentile: 95, max_increase_percent: 25}``. The baseline's figures come
from its rally.csv (Rally's own statistics)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rally import consts, exceptions
from rally.task import sla

from harness.planes.rally.records import RallyResultError, read_rally_csv
from rally_plugins.sla.durations import PERCENTILE_COLUMNS, DurationsSLA


def baseline_figures(
    baseline: Path, scenario: str, concurrency: int, column: str
) -> dict[str, float]:
    """Top-level action -> figure of the baseline's rows for that scenario and concurrency."""
    path = baseline / "rally.csv" if baseline.is_dir() else baseline
    figures = {}
    for row in read_rally_csv(path):
        if (
            row["scenario"] == scenario
            and row["concurrency"] == str(concurrency)
            and row["depth"] == "0"
            and row[column]
        ):
            figures[row["action"]] = float(row[column])
    if not figures:
        raise RallyResultError(
            f"{path}: no rows for {scenario} at concurrency {concurrency} to compare with"
        )
    return figures


@sla.configure(name="volperf_regression")
class Regression(DurationsSLA):
    """Each atomic action's percentile at most ``max_increase_percent`` above a baseline's."""

    CONFIG_SCHEMA = {
        "type": "object",
        "$schema": consts.JSON_SCHEMA,
        "properties": {
            "baseline": {"type": "string", "description": "campaign dir or its rally.csv"},
            "scenario": {"type": "string"},
            "concurrency": {"type": "integer", "minimum": 1},
            "percentile": {"enum": sorted(PERCENTILE_COLUMNS)},
            "max_increase_percent": {"type": "number", "minimum": 0},
        },
        "required": ["baseline", "scenario", "concurrency"],
        "additionalProperties": False,
    }

    def __init__(self, criterion_value: dict[str, Any]) -> None:
        super().__init__(criterion_value)
        self.percent = int(criterion_value.get("percentile", 95))
        self.allowed = float(criterion_value.get("max_increase_percent", 25)) / 100
        try:
            self.baseline = baseline_figures(
                Path(criterion_value["baseline"]).expanduser(),
                criterion_value["scenario"],
                criterion_value["concurrency"],
                PERCENTILE_COLUMNS[self.percent],
            )
        except RallyResultError as exc:
            raise exceptions.RallyException(f"volperf_regression: {exc}") from exc

    def _changes(self) -> dict[str, tuple[float, float]]:
        """action -> (baseline, now) for the actions measured in both."""
        changes = {}
        for action, before in self.baseline.items():
            now = self.durations.percentile(action, self.percent)
            if now is not None:  # at the baseline's precision: Rally's table has 3 decimals
                changes[action] = (before, round(now, 3))
        return changes

    def _check(self) -> bool:
        self.success = all(
            now <= before * (1 + self.allowed) for before, now in self._changes().values()
        )
        return self.success

    def details(self) -> str:
        parts = [
            f"{action} {self.percent}%ile {before:.3f}s -> {now:.3f}s "
            f"({(now / before - 1) * 100 if before else 0:+.0f} %)"
            for action, (before, now) in self._changes().items()
        ]
        limit = f"at most {self.allowed * 100:+.0f} % against the baseline"
        return "; ".join(parts or ["nothing measured yet"]) + f" ({limit}) - {self.status()}"
