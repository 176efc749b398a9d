"""What the data-plane scenario adds to Rally's report for one iteration, from its VMs'
fio.csv rows (volperf's records of each VM's own fio JSON): the additive charts, in the
same order every iteration (Rally matches them across iterations by position), the last
one the iteration's warning codes, the complete table of every VM, and the table of the
iteration's warnings when it has any. Sums and the latency percentiles over the VMs'
merged histograms are volperf's own aggregates (harness.records.aggregate)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from harness.planes.rally.data_plane import (
    FROM_FIGURES,
    FROM_STEP,
    LATENCY_TITLE,
    WARNING_COLUMNS,
    WARNINGS_TITLE,
)
from harness.records.aggregate import DirectionAggregate, Warning, aggregate_step
from harness.records.fio import REFERENCE_COLUMNS, FioConsumerRecord, csv_cell

DIRECTIONS = ("read", "write")
TABLE_COLUMNS = [*REFERENCE_COLUMNS, "consumer", "role", "error"]
VM_TABLE_TITLE = "Every VM's fio figures (fio.csv)"
WARNINGS_CHART_TITLE = (
    f"{WARNINGS_TITLE} (Count: the iterations with each code; none: no rows; their table says why)"
)


def additive_charts(records: Sequence[FioConsumerRecord], ceiling_ms: float) -> list[dict]:
    """IOPS summed over the VMs, IOPS per VM (statistics over all VMs of all
    iterations), and p95/p99 completion latency of the VMs' merged histograms (0 where
    no VM of that direction answered, or the figure is fio's ceiling, not a measure)."""
    aggregate = aggregate_step(records, ceiling_ms)
    by_direction: dict[str, DirectionAggregate | None] = {
        "read": aggregate.read,
        "write": aggregate.write,
    }
    answered = [r for r in records if not r.error]
    per_vm = [
        [f"{direction} IOPS of a VM", getattr(r, direction).iops]
        for direction in DIRECTIONS
        for r in answered
        if getattr(r, direction) is not None
    ]
    latency = []
    for direction in DIRECTIONS:
        figures = by_direction[direction]
        for percentile in ("p95", "p99"):
            value = getattr(figures, f"{percentile}_merged") if figures else None
            latency.append([f"{direction} {percentile}", value or 0.0])
    return [
        {
            "title": "IOPS summed over the VMs",
            "chart_plugin": "StackedArea",
            "data": [
                [direction, (f.iops_sum or 0.0) if (f := by_direction[direction]) else 0.0]
                for direction in DIRECTIONS
            ],
            "label": "IOPS",
        },
        {
            "title": "IOPS per VM (the table's columns are IOPS, not seconds)",
            "chart_plugin": "StatsTable",
            "data": per_vm,
        },
        {
            "title": LATENCY_TITLE,
            "chart_plugin": "Lines",
            "data": latency,
            "label": "ms",
        },
    ]


def vm_table(records: Sequence[FioConsumerRecord]) -> dict[str, Any]:
    """One row per VM: fio.csv's 21 columns of the reference document as fio.csv writes
    them, the VM, its role and why it has no figures."""
    rows = []
    for record in records:
        cells = record.row()[: len(REFERENCE_COLUMNS)]
        row = [*cells, record.context.consumer, record.context.role, record.error]
        rows.append([csv_cell(cell) for cell in row])
    return {
        "title": VM_TABLE_TITLE,
        "chart_plugin": "Table",
        "data": {"cols": TABLE_COLUMNS, "rows": rows},
    }


def warnings_chart(warnings: Sequence[Warning]) -> dict[str, Any]:
    """The iteration's warning codes as an additive chart, every iteration (empty when it
    has none): Rally's console prints additive charts, never complete tables, so this is
    how its warnings show there; Count is the iterations that had each."""
    return {
        "title": WARNINGS_CHART_TITLE,
        "chart_plugin": "StatsTable",
        "data": [[code, 1] for code in sorted({w.code for w in warnings})],
    }


def warnings_table(step: Sequence[Warning], figures: Sequence[Warning]) -> dict[str, Any] | None:
    """The iteration's warnings, as `volperf run heat` says them for a step: the Heat
    step's own (its VMs' answers) and its figures' (the VMs aggregated); None when none."""
    rows = [[w.code, w.message, FROM_STEP] for w in step]
    rows += [[w.code, w.message, FROM_FIGURES] for w in figures]
    if not rows:
        return None
    return {
        "title": WARNINGS_TITLE,
        "description": "what volperf found that limits what this iteration's figures "
        "mean; SLA volperf_warnings fails on them",
        "chart_plugin": "Table",
        "data": {"cols": WARNING_COLUMNS, "rows": rows},
    }
