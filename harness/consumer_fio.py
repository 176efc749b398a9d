"""Records of consumers that each ran fio on their own (a VM, a pod) and returned their
own fio output: one row per consumer, named after the consumer, or a row carrying why
there is no result."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from harness.fio.parse import FioOutput, FioParseError, parse_file
from harness.records import ConsumerContext, FioConsumerRecord
from harness.redact import redact_text


def own_output_records(
    path: Path, jobname: str, context: ConsumerContext
) -> tuple[list[FioConsumerRecord], FioOutput | None, str]:
    """(records, the parsed output, "") or ([], None, why the output is unusable)."""
    try:
        output = parse_file(path)
    except FioParseError as exc:
        return [], None, str(exc).replace(str(path), path.name)
    records = [replace(FioConsumerRecord.from_job(job, context, output.timestamp_ms),
                       jobname=jobname) for job in output.jobs]  # fmt: skip
    return records, output, ""


def failed_record(
    at_ms: int, jobname: str, context: ConsumerContext, error: str
) -> FioConsumerRecord:
    """A consumer without a result: no figures, no run window, the reason."""
    return FioConsumerRecord(at_ms, at_ms, jobname, None, None, context, error=redact_text(error))
