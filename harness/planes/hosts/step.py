"""A hosts step's records from its raw files alone: fio's client output (every server's
jobs, each named with its host) and raw/hosts.json (where each consumer ran). A consumer
whose host did not answer gets a row with its address and fio's reason."""

from __future__ import annotations

from pathlib import Path

from harness.planes.fio_step import LOG_DIR
from harness.planes.hosts.fleet import PLACEMENT, read_placement, unanswered
from harness.records.consumer_fio import OwnOutputsStep, consumer_context, failed_record
from harness.records.fio import FioConsumerRecord
from harness.records.step import RawStep, read_json
from harness.tools.fio.logs import LogPlace
from harness.tools.fio.parse import FioParseError, parse_file

# what the client printed, latest first: the measured run, the prefill, the file probe
STDERR_FILES = ("fio.err", "prefill.err", "probe/fio.err")


def is_hosts_step(raw: Path) -> bool:
    return (raw / PLACEMENT).exists()


def client_end_ms(raw: Path) -> int | None:
    """When fio's client exited (raw/process.json), the end its jobs' windows are
    estimated from: its JSON is stamped in whole seconds when it started, not when the
    servers' jobs ended (fio 3.33 gives no job_start)."""
    end = (read_json(raw / "process.json") or {}).get("end_s")
    return int(end * 1000) if isinstance(end, int | float) else None


def hosts_step(step: RawStep) -> OwnOutputsStep:
    raw, plan = step.raw, step.plan
    placement = read_placement(raw)
    result = OwnOutputsStep()
    problem = ""
    try:
        output = parse_file(raw / "fio.out")
    except FioParseError as exc:
        output, problem = None, str(exc).replace(str(raw / "fio.out"), "fio.out")
    jobs = {job.jobname: job for job in output.jobs} if output is not None else {}
    if output is not None:
        result.outputs.append(output)
    servers = {where["server"]: where["host"] for where in placement.values()}
    silent = unanswered(raw / "fio.out", [raw / name for name in STDERR_FILES], servers)
    at_ms = int((step.started or 0) * 1000)
    end_ms = client_end_ms(raw) or (output.timestamp_ms if output is not None else at_ms)
    for consumer in plan.get("consumers", []):
        jobname = consumer["jobname"]
        where = placement.get(jobname, {})
        context = consumer_context(step.step_id, plan, consumer, step.backend)
        job = jobs.get(jobname)
        if job is not None and output is not None:
            result.records.append(FioConsumerRecord.from_job(job, context, end_ms))
            result.log_dirs[jobname] = LogPlace(raw / LOG_DIR, jobname, job.host)
            continue
        why = silent.get(where.get("server", "")) or problem or "fio's client reported no job"
        result.records.append(
            failed_record(
                at_ms, jobname, context, f"{consumer['name']} on {where.get('server')}: {why}"
            )
        )
    result.summary = {
        "servers": len(servers),
        "answered": len(servers) - len(silent),
        "unanswered": silent,
    }
    return result
