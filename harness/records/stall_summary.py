"""A step's stalls (records/stalls.py) for its records: the figures of each consumer
(fio.csv), the step's in short (summary.json ``stalls``), each stall as a timed event
(events.csv, the page's events) and a warning when any consumer stalled."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from harness.records.aggregate import Warning
from harness.records.db import EventRecord
from harness.records.fio import FioConsumerRecord
from harness.records.stalls import STALL_S, Stall, StallFigures, stalls
from harness.tools.fio.logs import JobLogs

EVENT = "stall"


def step_stalls(found: Mapping[str, list[Stall]], every_ms: Mapping[str, int]) -> dict[str, Any]:
    """The step's stalls in short: by consumer (``found``, each read from completions
    logged every ``every_ms`` of it), how many consumers stalled, the longest stall, all
    stalled time, and how precisely each was timed (± half the logs' interval)."""
    each = [(consumer, stall) for consumer, stalls in found.items() for stall in stalls]
    longest = max(each, key=lambda c: c[1].seconds, default=None)
    return {
        "consumers": len(found),
        "consumers_stalled": sum(1 for stalls in found.values() if stalls),
        "count": len(each),
        "longest_s": longest[1].seconds if longest else 0.0,
        "longest": {"consumer": longest[0], **asdict(longest[1])} if longest else None,
        "total_s": round(sum(stall.seconds for _, stall in each), 3),
        "within_s": max(every_ms.values()) / 2000,
    }


def stall_warning(summary: Mapping[str, Any], started_ms: int) -> Warning | None:
    """Said when any consumer stalled: how many, the longest and when, all stalled time."""
    longest = summary.get("longest")
    if not longest:
        return None
    at = (longest["start_ms"] - started_ms) / 1000
    return Warning(
        "stalled",
        f"{summary['consumers_stalled']} of {summary['consumers']} consumers completed no "
        f"I/O for {STALL_S:g} s or more ({summary['count']} stalls, {summary['total_s']:g} s "
        f"in all): the longest {longest['seconds']:g} s, {longest['consumer']} from "
        f"{at:.1f} s into the run (each within ±{summary['within_s']:g} s); its figures "
        "average over them",
    )


def stall_events(step: str, found: Mapping[str, list[Stall]], within_s: float) -> list[EventRecord]:
    return [
        EventRecord(
            step,
            consumer,
            EVENT,
            index,
            stall.start_ms,
            stall.seconds,
            f"no I/O completed (within ±{within_s:g} s)",
        )
        for consumer, stalls in found.items()
        for index, stall in enumerate(stalls, 1)
    ]


@dataclass(frozen=True)
class StepStalls:
    """A step's stalls, for its records: the records with their figures, the summary
    (None where no consumer's fio logged completions), the warning, the events, and each
    consumer's stalls by its job name."""

    records: list[FioConsumerRecord]
    summary: dict[str, Any] | None = None
    warning: Warning | None = None
    events: list[EventRecord] = field(default_factory=list)
    by_job: dict[str, list[Stall]] = field(default_factory=dict)  # each consumer's own


def stalls_of(
    step_id: str, logs: Sequence[JobLogs], records: list[FioConsumerRecord]
) -> StepStalls:
    """Each consumer's stalls from the completions its fio logged (logs by job name)."""
    every = {log.jobname: log.completion_log_ms for log in logs if log.completion_log_ms}
    marks = {log.jobname: log.completions for log in logs}
    ran = [r for r in records if not r.error and r.jobname in every]
    if not ran:
        return StepStalls(records)
    by_job = {
        r.jobname: stalls(marks[r.jobname], r.start_ms, r.stop_ms, every[r.jobname]) for r in ran
    }
    found = {r.context.consumer: by_job[r.jobname] for r in ran}  # by the consumer's name
    summary = step_stalls(found, {r.context.consumer: every[r.jobname] for r in ran})
    return StepStalls(
        [
            replace(r, stalls=StallFigures.of(by_job[r.jobname])) if r.jobname in by_job else r
            for r in records
        ],
        summary,
        stall_warning(summary, min(r.start_ms for r in ran)),
        stall_events(step_id, found, summary["within_s"]),
        by_job,
    )
