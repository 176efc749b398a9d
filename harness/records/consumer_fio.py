"""Records of consumers that each ran fio on their own (a VM, a pod) and returned their
own fio output: one row per consumer, named after the consumer, or a row carrying why
there is no result."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from harness.core.redact import redact_text
from harness.records.aggregate import Warning
from harness.records.db import EventRecord
from harness.records.fio import ConsumerContext, FioConsumerRecord
from harness.records.step import StepParts
from harness.tools.fio.logs import LogPlace
from harness.tools.fio.parse import FioOutput, FioParseError, parse_file


@dataclass
class OwnOutputsStep:
    """What a step of such consumers gives: rows, timed events, warnings, a summary of
    its own, and the fio outputs read (their version and histograms count)."""

    records: list[FioConsumerRecord] = field(default_factory=list)
    events: list[EventRecord] = field(default_factory=list)
    warnings: list[Warning] = field(default_factory=list)
    summary: dict[str, Any] = field(default_factory=dict)
    outputs: list[FioOutput] = field(default_factory=list)
    # jobname -> where its fio's per-second logs are
    log_dirs: dict[str, LogPlace] = field(default_factory=dict)

    def parts(self, key: str) -> StepParts:
        """As a builder's parts, its summary under ``key`` (heat, k8s)."""
        return StepParts(
            {key: self.summary},
            self.warnings,
            self.events,
            fio_records=self.records,
            fio_outputs=self.outputs,
            fio_log_dirs=self.log_dirs,
        )


def consumer_context(
    step_id: str, plan: dict[str, Any], consumer: dict[str, Any], backend: str
) -> ConsumerContext:
    """What volperf knows of one consumer of a step, from the step's plan (step.json)."""
    workload = plan.get("workload", {})
    return ConsumerContext(
        step=step_id,
        consumer=consumer["name"],
        concurrency=int(plan.get("concurrency") or len(plan.get("consumers", []))),
        role=consumer.get("role", ""),
        rw=consumer["rw"],
        bs=str(workload.get("bs", "")),
        iodepth=int(workload.get("iodepth", 1)),
        backend=backend,
        repeat=int(plan.get("repeat") or 1),
    )


def own_output_records(
    path: Path, jobname: str, context: ConsumerContext
) -> tuple[list[FioConsumerRecord], FioOutput | None, str]:
    """(records, the parsed output, "") or ([], None, why the output is unusable)."""
    try:
        output = parse_file(path)
    except FioParseError as exc:
        return [], None, str(exc).replace(str(path), path.name)
    records = [
        replace(FioConsumerRecord.from_job(job, context, output.timestamp_ms), jobname=jobname)
        for job in output.jobs
    ]
    return records, output, ""


def failed_record(
    at_ms: int, jobname: str, context: ConsumerContext, error: str
) -> FioConsumerRecord:
    """A consumer without a result: no figures, no run window, the reason."""
    return FioConsumerRecord(at_ms, at_ms, jobname, None, None, context, error=redact_text(error))
