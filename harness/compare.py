"""Relative deltas of one campaign against a baseline, metric by metric.

Steps are matched by position of their workload in the campaign, number of consumers
and repeat, so a campaign can be compared with another of the same sweep (iodepth 1
against 64, SSD against the reference, this month against last month).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from harness import stats

# metric, label, True when higher is better
METRICS = [
    ("iops_avg", "IOPS per consumer", True),
    ("iops_sum", "IOPS, sum", True),
    ("bandwidth_sum", "KiB/s, sum", True),
    ("clat_mean_avg", "mean latency ms", False),
    ("p95_merged", "p95 ms (merged)", False),
    ("p95_consumer_mean", "p95 ms (mean of consumers)", False),
    ("p99_merged", "p99 ms (merged)", False),
]


@dataclass(frozen=True)
class Delta:
    step: str  # the baseline's step
    concurrency: int
    direction: str
    metric: str
    label: str
    baseline: float | None
    other: float | None
    delta: float | None  # (other - baseline) / baseline
    better: bool | None  # None when equal or not comparable
    note: str = ""


def _key_map(steps: list[dict[str, Any]]) -> dict[tuple[int, int, int], dict[str, Any]]:
    order: list[str] = []
    keyed = {}
    for s in steps:
        if s.get("workload") not in order:
            order.append(s.get("workload"))
        key = (
            order.index(s.get("workload")),
            int(s.get("concurrency") or 0),
            int(s.get("repeat") or 1),
        )
        keyed[key] = s
    return keyed


def judge(delta: float | None, higher_is_better: bool) -> bool | None:
    if delta is None or delta == 0:
        return None
    return (delta > 0) == higher_is_better


def compare_steps(baseline: list[dict[str, Any]], other: list[dict[str, Any]]) -> list[Delta]:
    deltas = []
    theirs = _key_map(other)
    for key, mine in _key_map(baseline).items():
        match = theirs.get(key)
        if match is None:
            continue
        for direction in ("read", "write"):
            a, b = mine.get(direction), match.get(direction)
            if not a or not b:
                continue
            for metric, label, higher in METRICS:
                va, vb = a.get(metric), b.get(metric)
                note = ""
                if metric in a.get("ceilings", {}) or metric in b.get("ceilings", {}):
                    note = "at a measurement ceiling: no delta"
                if va is None and vb is None and not note:
                    continue
                delta = stats.relative_delta(va, vb) if va is not None and vb is not None else None
                deltas.append(
                    Delta(
                        mine["step"],
                        key[1],
                        direction,
                        metric,
                        label,
                        va,
                        vb,
                        delta,
                        judge(delta, higher),
                        note,
                    )
                )
    return deltas


def percent(delta: float | None) -> str:
    if delta is None:
        return "–"
    return f"{delta * 100:+.0f} %".replace("-", "−")
