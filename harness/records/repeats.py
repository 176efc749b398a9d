"""Run-to-run spread: steps that repeat the same workload at the same number of consumers
(spec ``repeats``), each figure's mean and coefficient of variation across the repeats,
flagged when the CV is above 10 %."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from harness.core.figures import DB, FIO
from harness.records import stats

CV_FLAG = 0.10
# section of a step's summary, figure, label; "window" figures are the common window's
FIGURES = [
    *(("", n, FIO[n].label) for n in ("iops_sum", "bandwidth_sum", "clat_mean_avg", "p95_merged")),
    ("window", "iops_sum", f"{FIO['iops_sum'].label} (common window)"),
]
DB_FIGURES = [("db", n, DB[n].label) for n in ("tps_total", "latency_avg_ms")]


@dataclass(frozen=True)
class RepeatSpread:
    workload: str
    concurrency: int
    threads: int | None
    direction: str  # read, write, or db
    figure: str
    label: str
    values: tuple[float, ...]  # one per repeat, in repeat order
    mean: float
    cv: float | None

    @property
    def flagged(self) -> bool:
        return self.cv is not None and self.cv > CV_FLAG


def _value(step: dict[str, Any], section: str, direction: str, figure: str) -> float | None:
    if section == "db":
        data = step.get("db") or {}
    elif section == "window":
        data = (step.get("window") or {}).get(direction) or {}
    else:
        data = step.get(direction) or {}
    value = data.get(figure)
    return float(value) if isinstance(value, int | float) else None


def _runs(step: dict[str, Any]) -> list[dict[str, Any]]:
    """A step whose consumers ran several times over (a Rally step's iterations), as one
    step per run; any other step as itself."""
    runs = [
        {**step, "read": r["read"], "write": r["write"], "run": r["run"]}
        for r in step.get("runs") or []
    ]
    return runs or [step]


def repeat_spreads(steps: Sequence[dict[str, Any]]) -> list[RepeatSpread]:
    """Every figure of every group of repeated steps that all of its done repeats have;
    the runs of a step that ran several times over count as its repeats."""
    groups: dict[tuple[str, int, int], list[dict[str, Any]]] = {}
    for s in (run for step in steps for run in _runs(step)):
        if s.get("state") == "done":
            key = (
                str(s.get("workload")),
                int(s.get("concurrency") or 0),
                int(s.get("threads") or 0),
            )
            groups.setdefault(key, []).append(s)
    found = []
    for (workload, concurrency, threads), group in groups.items():
        if len(group) < 2:
            continue
        group = sorted(group, key=lambda s: (int(s.get("repeat") or 1), int(s.get("run") or 0)))
        wanted = [("db", section, figure, label) for section, figure, label in DB_FIGURES]
        wanted += [
            (d, section, figure, label)
            for d in ("read", "write")
            for section, figure, label in FIGURES
        ]
        for direction, section, figure, label in wanted:
            values = [_value(s, section, direction, figure) for s in group]
            present = [v for v in values if v is not None]
            if len(present) < len(values) or not present:
                continue
            found.append(
                RepeatSpread(
                    workload,
                    concurrency,
                    threads or None,
                    direction,
                    figure if not section or section == "db" else f"{section}_{figure}",
                    label,
                    tuple(present),
                    sum(present) / len(present),
                    stats.coefficient_of_variation(present),
                )
            )
    return found
