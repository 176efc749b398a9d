"""Relative deltas of one campaign against a baseline, metric by metric.

Steps are matched by position of their workload in the campaign, number of consumers,
thread count (database steps) and repeat, so a campaign can be compared with another of
the same sweep (iodepth 1 against 64, SSD against the reference, this month against last
month, StorageClass A against B).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from harness.records import stats

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
DB_METRICS = [
    ("tps_total", "TPS, sum", True),
    ("tps_per_consumer", "TPS per consumer", True),
    ("latency_avg_ms", "mean latency ms", False),
    ("latency_p95_ms_highest", "p95 ms (highest consumer)", False),
    ("load_time_s_max", "load time s (slowest)", False),
]
TIME_METRICS = [("p50_s", "p50 s", False), ("p95_s", "p95 s", False), ("max_s", "max s", False)]
EVENT_METRICS = [("mean_s", "mean s", False), ("max_s", "max s", False)]
Metrics = list[tuple[str, str, bool]]


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
    threads: int | None = None  # database steps: client threads of each consumer


def _sections(step: dict[str, Any]) -> list[tuple[str, dict[str, Any], Metrics]]:
    """What a step measured, by section: fio's read and write, a database step's figures,
    PVC provisioning times, timed events (io-pause …)."""
    found = [(d, step[d], METRICS) for d in ("read", "write") if step.get(d)]
    if step.get("db"):
        found.append(("db", step["db"], DB_METRICS))
    for kind, figures in sorted((step.get("provision") or {}).items()):
        if isinstance(figures, dict):
            found.append((kind, figures, TIME_METRICS))
    for kind, figures in sorted((step.get("events") or {}).items()):
        found.append((kind, figures, EVENT_METRICS))
    return found


def _key_map(steps: list[dict[str, Any]]) -> dict[tuple[int, int, int, int], dict[str, Any]]:
    order: list[str] = []
    keyed = {}
    for s in steps:
        if s.get("workload") not in order:
            order.append(s.get("workload"))
        key = (
            order.index(s.get("workload")),
            int(s.get("concurrency") or 0),
            int(s.get("threads") or 0),
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
        theirs_by_section = {name: figures for name, figures, _ in _sections(match)}
        for direction, a, metrics in _sections(mine):
            b = theirs_by_section.get(direction)
            if not b:
                continue
            for metric, label, higher in metrics:
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
                        key[2] or None,
                    )
                )
    return deltas


def percent(delta: float | None) -> str:
    if delta is None:
        return "–"
    return f"{delta * 100:+.0f} %".replace("-", "−")
