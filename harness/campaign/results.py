"""Rebuild a campaign's records and aggregates from its raw output alone.

Each step's here (build_step); the campaign's record files and summary.json from them in
harness.campaign.rebuild, which `volperf reparse` and the runner after every step run, so
fio.csv and summary.json are always views of raw/ and can be regenerated at will.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from harness.core.store import CampaignStore
from harness.core.workloads.registry import family_of
from harness.host.sampler import read_samples
from harness.planes import registry
from harness.planes.fio_step import LOG_DIR
from harness.records import stats
from harness.records.aggregate import Warning, aggregate_step, mean_of_runs
from harness.records.db import DbRecord, EventRecord
from harness.records.device_check import GAP_WARNING, compare, host_load
from harness.records.fio import ConsumerContext, FioConsumerRecord, measured_start
from harness.records.node_load import NodeLoad, step_node_loads
from harness.records.pace import SHORT_PCT, StepPace, consumer_pace
from harness.records.phases import (
    FAULTS_FILE,
    HEALED,
    HEALTHY,
    fault_to_healed_s,
    phases,
    phases_sentence,
    step_phases,
)
from harness.records.stall_summary import stalls_of
from harness.records.stalls import Stall
from harness.records.steadystate import step_steadystate
from harness.records.step import RawStep, StepParts
from harness.records.window import CommonWindow, common_window, running
from harness.tools.fio.histogram import top_bucket_ns
from harness.tools.fio.logs import FioLogError, JobLogs, LogPlace, read_job_logs, since_epoch
from harness.tools.fio.parse import FioOutput, FioParseError, parse_file
from harness.tools.fio.render import LOG_AVG_MS


def record_files() -> tuple[str, ...]:
    """The files a campaign's records go to, in the order the page and the CLI list them."""
    return ("fio.csv", "db.csv", *registry.csv_files(), "events.csv", "nodes.csv", "summary.json")


COST_FILE = "cost.json"  # volperf's own cost over a step (host/owncost.py), beside step.json


@dataclass
class StepResult:
    summary: dict[str, Any]
    records: list[FioConsumerRecord] = field(default_factory=list)
    db_records: list[DbRecord] = field(default_factory=list)
    events: list[EventRecord] = field(default_factory=list)
    rows: dict[str, list[Any]] = field(default_factory=dict)  # a plane's own CSV file -> rows
    nodes: list[NodeLoad] = field(default_factory=list)  # each node's load over the step


def _step_plan(store: CampaignStore, step_id: str) -> dict[str, Any]:
    path = store.step_dir(step_id) / "step.json"
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}


def build_step(
    store: CampaignStore, step_id: str, backend: str, rate_iops: int | None
) -> StepResult:
    """The step's records and summary, and the load on the nodes while it ran (over its
    fio runs' window where it has one)."""
    result = _tool_or_fio_step(store, step_id, backend, rate_iops)
    ran = [r for r in result.records if not r.error and r.stop_ms > r.start_ms]
    window = (
        (min(r.start_ms for r in ran) / 1000, max(r.stop_ms for r in ran) / 1000) if ran else None
    )
    raw = store.raw_dir(step_id)
    result.nodes = step_node_loads(raw, window)
    result.summary["nodes"] = [asdict(load) for load in result.nodes] or None
    step = RawStep(raw, step_id, _step_plan(store, step_id), backend, result.summary["started"])
    for extra in registry.window_extras():  # the Ceph OSDs' own counters …
        result.summary.update(extra(step, window))
    return result


def _tool_or_fio_step(
    store: CampaignStore, step_id: str, backend: str, rate_iops: int | None
) -> StepResult:
    status = store.read_status(step_id)
    plan = _step_plan(store, step_id)
    summary: dict[str, Any] = {
        "step": step_id,
        "workload": plan.get("workload", {}).get("name"),
        "concurrency": plan.get("concurrency"),
        "repeat": plan.get("repeat"),
        "state": status.state,
        "error": status.error,
        "attempts": status.attempts,
        "started": status.started,
        "finished": status.finished,
        "notes": list(status.notes),
        "ended_sweep": status.ended_sweep or None,  # why the workload's sweep ended here
        "warnings": [],
        "cost": _own_cost(store.step_dir(step_id) / COST_FILE, plan.get("consumers") or []),
    }
    raw = store.raw_dir(step_id)
    step = RawStep(raw, step_id, plan, backend, status.started)
    extras = [extra(step) for extra in registry.step_extras()]  # Ceph health, if any
    tool = plan.get("workload", {}).get("tool", "fio")
    if family_of({"tool": tool}) != "fio":  # its tool's own builder
        summary["tool"] = tool
        build = registry.tool_step(tool)
        parts = [build(step)] if build else []
        result = _merged(summary, parts, extras)
        if result.records:  # VMs a Rally step's iterations created, each running fio
            outputs = [output for part in parts for output in part.fio_outputs]
            _runs_summary(result.records, outputs, rate_iops, summary)
        return result
    for extra in extras:
        summary.update(extra.summary)
        summary["warnings"] += [asdict(w) for w in extra.warnings]
    result = _fio_step(store, step, rate_iops, summary)
    result.events += [e for extra in extras for e in extra.events]
    return result


def _own_cost(path: Path, consumers: list[Any]) -> dict[str, Any] | None:
    """volperf's own cost over the step, and its CPU per consumer (None before it ran)."""
    try:
        cost = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    count = len(consumers)
    cost["cpu_s_per_consumer"] = round(cost["cpu_s"] / count, 4) if count else None
    return cost


def _merged(summary: dict[str, Any], *parts: list[StepParts]) -> StepResult:
    """A step's result from its builders' parts, in order."""
    result = StepResult(summary)
    for part in [p for group in parts for p in group]:
        summary.update(part.summary)
        summary["warnings"] += [asdict(w) for w in part.warnings]
        result.records += part.fio_records
        result.db_records += part.db_records
        result.events += part.events
        for name, rows in part.rows.items():
            result.rows.setdefault(name, []).extend(rows)
    return result


def _fio_step(
    store: CampaignStore, step: RawStep, rate_iops: int | None, summary: dict[str, Any]
) -> StepResult:
    raw, step_id, plan, backend = step.raw, step.step_id, step.plan, step.backend
    # consumers that each ran fio themselves (VMs through Heat, pods) and sent it back
    build = registry.fio_step(raw)
    if build is not None:
        own = build(step)
        summary.update({"tool": "fio", **own.summary})
        summary["warnings"] += [asdict(w) for w in own.warnings]
        _steadystate(own.fio_outputs, summary)
        logs, records = _read_logs(own.fio_log_dirs, own.fio_records, summary)
        result = _fio_summary(
            store, step_id, records, own.fio_outputs[:1], rate_iops, summary, logs
        )
        result.events += own.events
        return result
    output_path = raw / "fio.out"
    if not output_path.exists():
        return StepResult(summary)
    try:
        output = parse_file(output_path)
    except FioParseError as exc:
        summary["warnings"].append(asdict(Warning("unparseable-output", str(exc))))
        return StepResult(summary)
    if "terminating on signal" in output.text_before:
        summary["warnings"].append(
            asdict(
                Warning(
                    "interrupted", "fio was stopped by a signal: figures cover part of the runtime"
                )
            )
        )

    consumers = {c["jobname"]: c for c in plan.get("consumers", [])}
    workload = plan.get("workload", {})
    records = []
    for job in output.jobs:
        consumer = consumers.get(job.jobname, {})
        context = ConsumerContext(
            step=step_id,
            consumer=consumer.get("name", job.jobname),
            concurrency=int(plan.get("concurrency") or len(output.jobs)),
            role=consumer.get("role", ""),
            rw=consumer.get("rw", job.options.get("rw", "")),
            bs=str(workload.get("bs", job.options.get("bs", ""))),
            iodepth=int(workload.get("iodepth", job.options.get("iodepth", 1))),
            backend=backend,
            repeat=int(plan.get("repeat") or 1),
        )
        records.append(FioConsumerRecord.from_job(job, context, output.timestamp_ms))
    _steadystate([output], summary)
    places = {r.jobname: LogPlace(raw / LOG_DIR, r.jobname) for r in records}
    logs, records = _read_logs(places, records, summary)
    return _fio_summary(store, step_id, records, [output], rate_iops, summary, logs)


def _runs_summary(
    records: list[FioConsumerRecord],
    outputs: list[FioOutput],
    rate_iops: int | None,
    summary: dict[str, Any],
) -> None:
    """fio figures of a step whose consumers ran several times over (a Rally step's
    iterations, each with VMs of its own; a record's repeat is its run): each run
    aggregated on its own, as a fio step of that many consumers would be, and the step's
    figures the mean of its runs (summing them would count every VM once per run)."""
    # rows read back from Rally's report (no fio output kept) cannot tell fio's ceiling
    ceiling_ms = top_bucket_ns(outputs[0].major_version) / 1e6 if outputs else float("inf")
    runs = []
    for run in sorted({r.context.repeat for r in records}):
        mine = [r for r in records if r.context.repeat == run]
        aggregate = aggregate_step(mine, ceiling_ms, rate_iops)
        summary["warnings"] += [
            asdict(replace(w, message=f"run {run}: {w.message}")) for w in aggregate.warnings
        ]
        runs.append((run, mine, aggregate))
    read = mean_of_runs([aggregate.read for _, _, aggregate in runs])
    write = mean_of_runs([aggregate.write for _, _, aggregate in runs])
    overlaps = [a.overlap for _, _, a in runs if a.overlap is not None]
    summary.update(
        fio_version=outputs[0].version if outputs else None,
        readers=max(sum(1 for r in mine if r.read) for _, mine, _ in runs),
        writers=max(sum(1 for r in mine if r.write) for _, mine, _ in runs),
        read=asdict(read) if read else None,
        write=asdict(write) if write else None,
        overlap=stats.mean(overlaps) if overlaps else None,
        overlap_estimated=any(a.overlap_estimated for _, _, a in runs),
        runs=[
            {
                "run": run,
                "consumers": len(mine),
                "read": asdict(aggregate.read) if aggregate.read else None,
                "write": asdict(aggregate.write) if aggregate.write else None,
                "overlap": aggregate.overlap,
            }
            for run, mine, aggregate in runs
        ],
    )


def _steadystate(outputs: list[FioOutput], summary: dict[str, Any]) -> None:
    """fio's own steady-state detection, where the workload asked for it."""
    found = step_steadystate([job for output in outputs for job in output.jobs])
    if found is None:
        return
    summary["steadystate"] = asdict(found)
    warning = found.warning()
    if warning is not None:
        summary["warnings"].append(asdict(warning))


def _read_logs(
    directories: Mapping[str, LogPlace],
    records: list[FioConsumerRecord],
    summary: dict[str, Any],
) -> tuple[list[JobLogs], list[FioConsumerRecord]]:
    """The per-second logs of the consumers that ran (none when any is missing or
    unreadable, said in a warning; none, silently, for a step whose fio wrote none), and
    the records with the start the logs measured where fio's JSON only let it be
    estimated (fio < 3.36). ``directories``: each consumer's log folder and the job name
    its fio wrote them under (and the server that sent them), by the consumer's job name."""
    ran = [r for r in records if not r.error]
    if not any(r.jobname in directories and directories[r.jobname].directory.is_dir() for r in ran):
        return [], records
    logs: dict[str, JobLogs] = {}
    try:
        for record in ran:
            place = directories.get(record.jobname)
            log = (
                read_job_logs(place.directory, place.jobname, record.jobname, place.host)
                if place
                else None
            )
            if log is None:
                raise FioLogError(f"{record.jobname}: fio wrote no per-second logs")
            if not since_epoch(log):
                raise FioLogError(
                    f"{record.jobname}: its logs count time from its own start, not the "
                    "epoch (fio without log_unix_epoch): no common window"
                )
            logs[record.jobname] = log
    except (FioLogError, OSError) as exc:
        summary["warnings"].append(asdict(Warning("unreadable-logs", str(exc))))
        return [], records
    measured = []
    for record in records:
        span = running(logs[record.jobname], LOG_AVG_MS) if record.jobname in logs else None
        if record.window_estimated and span is not None:
            record = measured_start(record, span[0])
        measured.append(record)
    return list(logs.values()), measured


def _fio_summary(
    store: CampaignStore,
    step_id: str,
    records: list[FioConsumerRecord],
    outputs: list[FioOutput],
    rate_iops: int | None,
    summary: dict[str, Any],
    logs: list[JobLogs] | None = None,
) -> StepResult:
    """Aggregates of the step's records, the fio version and histograms of its output
    (the first, when every VM had its own), the common window of the consumers' logs,
    and the device check."""
    if not outputs:
        summary.update(readers=0, writers=0, read=None, write=None)
        aggregate = aggregate_step(records, 0.0, rate_iops)
        summary["warnings"] += [asdict(w) for w in aggregate.warnings]
        return StepResult(summary, records)
    output = outputs[0]
    ceiling_ms = top_bucket_ns(output.major_version) / 1_000_000
    aggregate = aggregate_step(records, ceiling_ms, rate_iops)
    summary.update(
        fio_version=output.version,
        histograms=output.histograms,
        readers=sum(1 for r in records if r.read),
        writers=sum(1 for r in records if r.write),
        read=asdict(aggregate.read) if aggregate.read else None,
        write=asdict(aggregate.write) if aggregate.write else None,
        overlap=aggregate.overlap,
        overlap_estimated=aggregate.overlap_estimated,
    )
    window = None
    if logs:
        latency_ns = 1000.0 if output.major_version < 3 else 1.0  # fio 2 logs microseconds
        window = common_window(logs, LOG_AVG_MS, latency_ns)
        if window is not None:
            records = [
                replace(
                    r,
                    window_read=window.consumers.get(r.jobname, {}).get("read"),
                    window_write=window.consumers.get(r.jobname, {}).get("write"),
                )
                for r in records
            ]
    summary["window"] = _window_summary(window) if logs else None
    summary["warnings"] += [asdict(w) for w in aggregate.warnings]
    stalled = stalls_of(step_id, logs or [], records)
    records, summary["stalls"] = stalled.records, stalled.summary
    if stalled.warning is not None:
        summary["warnings"].append(asdict(stalled.warning))
    _faults(store.raw_dir(step_id), records, summary)
    if logs:
        _phases(store.raw_dir(step_id), records, logs, stalled.by_job, summary, latency_ns)
    if rate_iops is not None and logs:
        numjobs = int((_step_plan(store, step_id).get("workload") or {}).get("numjobs") or 1)
        summary["pace"] = _pace(records, logs, rate_iops * numjobs).to_json()
    if not output.histograms:
        summary["warnings"].append(
            asdict(
                Warning(
                    "no-histograms",
                    f"{output.version} wrote no json+ histogram bins: merged tail "
                    "percentiles are not available, only per-consumer ones",
                )
            )
        )

    samples = read_samples(store.raw_dir(step_id) / "host.jsonl")
    window = (min(r.start_ms for r in records) / 1000, max(r.stop_ms for r in records) / 1000)
    fio_iops = sum(
        (r.read.iops if r.read else 0) + (r.write.iops if r.write else 0) for r in records
    )
    fio_bw = sum(
        (r.read.bandwidth if r.read else 0) + (r.write.bandwidth if r.write else 0) for r in records
    )
    device = compare(samples, window, fio_iops, fio_bw)
    summary["device"] = asdict(device) if device else None
    summary["host"] = asdict(host_load(samples)) if samples else None
    if device and device.iops_gap is not None and device.iops_gap > GAP_WARNING:
        summary["warnings"].append(
            asdict(
                Warning(
                    "device-gap",
                    f"device {device.device} counted {device.device_iops:.0f} IOPS while fio "
                    f"reported {device.fio_iops:.0f} ({device.iops_gap:.0%} apart): page cache, "
                    "thin or unwritten files, or other I/O on the device",
                )
            )
        )
    return StepResult(summary, records, events=stalled.events)


def _pace(records: list[FioConsumerRecord], logs: list[JobLogs], asked: float) -> StepPace:
    """How each consumer that ran kept to the rate it was asked for (records/pace.py),
    from its per-second IOPS log, its directions summed second by second."""
    by_job = {log.jobname: log for log in logs}
    consumers = []
    for record in records:
        log = by_job.get(record.jobname)
        if record.error or log is None:
            continue
        seconds = _iops_by_second(log)
        achieved = (record.read.iops if record.read else 0) + (
            record.write.iops if record.write else 0
        )
        per_second = [seconds[t] for t in sorted(seconds)]
        consumers.append(consumer_pace(record.jobname, asked, achieved, per_second, SHORT_PCT))
    return StepPace(consumers, SHORT_PCT)


def _iops_by_second(log: JobLogs) -> dict[int, float]:
    """A consumer's IOPS log, its directions summed: the end of each second (ms since the
    epoch, or its job's start) -> its IOPS."""
    seconds: dict[int, float] = {}
    for points in log.iops.values():
        for time_ms, iops in points:
            seconds[time_ms] = seconds.get(time_ms, 0.0) + iops
    return seconds


def _phases(
    raw: Path,
    records: list[FioConsumerRecord],
    logs: list[JobLogs],
    stalls: dict[str, list[Stall]],
    summary: dict[str, Any],
    latency_ns: float,
) -> None:
    """The phases of a step whose backend was not healthy all through its run, as the
    backend's own samples say (records/phases.py), each consumer's figures in each (p99
    from its per-second histograms, where kept: ``latency_ns`` their unit); and a warning
    that says so, wherever the step's figures go."""
    ran = [r for r in records if not r.error and r.stop_ms > r.start_ms]
    if not ran:
        return
    by_job = {log.jobname: log for log in logs if since_epoch(log)}
    consumers = {
        r.context.consumer: (
            [(t / 1000, iops) for t, iops in _iops_by_second(by_job[r.jobname]).items()],
            stalls.get(r.jobname, []),
        )
        for r in ran
        if r.jobname in by_job
    }
    histograms = {
        r.context.consumer: [
            (t / 1000, bins)
            for points in by_job[r.jobname].clat_hist.values()
            for t, bins in points
        ]
        for r in ran
        if r.jobname in by_job
    }
    start, end = min(r.start_ms for r in ran) / 1000, max(r.stop_ms for r in ran) / 1000
    # fio writes no point for the run's last, partial second: the phases end where the
    # logs do (else the last phase's IOPS would count that second's time without its I/Os)
    logged = [t for per_second, _ in consumers.values() for t, _ in per_second]
    end = min(end, max(logged, default=end))
    for source in registry.phase_sources():
        found = phases(source.read(raw), end, start)
        if all(p.state in (HEALTHY, HEALED) for p in found):  # healed before the run began
            continue
        summary["phases"] = step_phases(found, consumers, start, histograms, latency_ns)
        summary["phases"]["states_from"] = source.words
        given = [f["given_t"] for f in summary.get("faults", []) if f["given_t"]]
        if given:
            summary["phases"]["fault_to_healed_s"] = fault_to_healed_s(found, min(given))
        summary["warnings"].append(
            asdict(
                Warning(
                    "backend-phases",
                    "the backend was not healthy all through the run, by its own state: "
                    f"{phases_sentence(summary['phases'])}; the step's figures mix its "
                    "phases (each phase's own: summary.json, phases)",
                )
            )
        )
        return


def _faults(raw: Path, records: list[FioConsumerRecord], summary: dict[str, Any]) -> None:
    """The faults a plane gave during the step (raw/faults.json), each at its time from
    the step's measured start; a warning for each that was not given as asked."""
    try:
        given = json.loads((raw / FAULTS_FILE).read_text(encoding="utf-8"))["given"]
    except (OSError, ValueError, KeyError):
        return
    # the measured start: a consumer that failed has none (a lost pod's row starts at
    # its pod's creation)
    start = min((r.start_ms for r in records if not r.error), default=0) / 1000
    summary["faults"] = [
        {
            "fault": g["fault"],
            "action": g["action"],
            "osd": g.get("osd"),
            "on": g.get("on") or f"osd.{g.get('osd')}",  # a campaign kept before nodes had none
            "given_t": g["given_t"],
            "at_s": None if g["given_t"] is None else round(g["given_t"] - start, 3),
            "took_s": None if g["done_t"] is None else round(g["done_t"] - g["given_t"], 3),
            "commands": g["commands"],
            "error": g["error"],
        }
        for g in given
    ]
    for g in given:
        if g["error"]:
            summary["warnings"].append(
                asdict(
                    Warning(
                        "fault-not-given",
                        f"fault {g['fault']} ({g['action']}): {g['error']}; the step's "
                        "figures are not of the faults asked for",
                    )
                )
            )


def _window_summary(window: CommonWindow | None) -> dict[str, Any]:
    """The step's common window (its consumers' own figures are in fio.csv)."""
    if window is None:
        return {"seconds": 0.0, "read": None, "write": None}
    return {k: v for k, v in asdict(window).items() if k != "consumers"}
