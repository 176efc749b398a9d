"""Records and aggregates of a database step (sysbench fileio/OLTP, pgbench, io-pause,
migration), derived from its raw output alone, like fio steps: `volperf reparse` rebuilds them."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from harness.core.redact import redact_text
from harness.host.process import read_output, what_it_said
from harness.host.sampler import read_samples
from harness.records.aggregate import Warning
from harness.records.db import DB_COLUMNS, DbRecord, EventRecord, engine_of
from harness.records.db_storage import StorageUse, storage_use
from harness.records.device_check import cgroup_window, device_window
from harness.records.stats import mean
from harness.records.step import RawStep, StepParts, read_json
from harness.tools.db_clients import CLIENTS, DbClient, ParseError
from harness.tools.iopause import io_pause
from harness.tools.sysbench.parse import SysbenchParseError, parse_file


@dataclass
class DbStepResult:
    records: list[DbRecord] = field(default_factory=list)
    events: list[EventRecord] = field(default_factory=list)
    warnings: list[Warning] = field(default_factory=list)
    storage: StorageUse | None = None

    def summary(self) -> dict[str, Any]:
        """Per step: sums over consumers and averages per consumer, as the studies show
        TPS per instance and in total; event statistics as mean and max."""
        runs = [r for r in self.records if r.phase == "run" and not r.error]
        loads = [r for r in self.records if r.phase == "load" and r.load_time_s is not None]

        def values(name: str) -> list[float]:
            return [v for r in runs if (v := getattr(r, name)) is not None]

        def total(name: str) -> float | None:
            found = values(name)
            return sum(found) if found else None

        db: dict[str, Any] = {
            "consumers_measured": len(runs),
            "tps_total": total("tps"),
            "tps_per_consumer": mean(values("tps")) if values("tps") else None,
            "qps_total": total("qps"),
            "latency_avg_ms": mean(values("latency_avg_ms")) if values("latency_avg_ms") else None,
            "latency_p95_ms_highest": max(values("latency_p95_ms"), default=None),
            "reads_per_s_total": total("reads_per_s"),
            "writes_per_s_total": total("writes_per_s"),
            "fsyncs_per_s_total": total("fsyncs_per_s"),
            "read_mib_s_total": total("read_mib_s"),
            "written_mib_s_total": total("written_mib_s"),
            "load_time_s_max": max((r.load_time_s or 0 for r in loads), default=None),
        }
        events: dict[str, Any] = {}
        for kind in sorted({e.event for e in self.events}):
            of_kind = [e for e in self.events if e.event == kind]
            ended = [e.seconds for e in of_kind if e.seconds is not None]
            events[kind] = {
                "count": len(of_kind),
                "mean_s": mean(ended) if ended else None,
                "max_s": max(ended, default=None),
                "unresolved": len(of_kind) - len(ended),
            }
        storage = asdict(self.storage) if self.storage else None
        db["memory_not_storage"] = bool(self.storage and self.storage.memory_not_storage)
        return {"db": db, "events": events, "storage": storage}


def build_db_step(raw: Path, plan: dict[str, Any], step_id: str, backend: str) -> DbStepResult:
    workload = plan.get("workload", {})
    tool = workload.get("tool", "")
    client = CLIENTS[tool]
    result = DbStepResult()
    base = {
        "step": step_id,
        "tool": tool,
        "engine": engine_of(workload),
        "test": workload.get("test", client.default_test),
        "concurrency": int(plan.get("concurrency") or 0),
        "threads": int(plan.get("threads") or 1),
        "backend": backend,
        "repeat": int(plan.get("repeat") or 1),
    }
    loads = read_json(raw / "load.json") or {}
    processes = read_json(raw / "process.json") or {}
    kills = read_json(raw / "kills.json") or []
    datasets = read_json(raw / "dataset.json") or {}
    for consumer in [c["name"] for c in plan.get("consumers", [])]:
        if consumer in loads:
            result.records.append(_load_record(raw, consumer, client, loads[consumer], base))
        if client.under_load:
            _io_pause_events(raw, consumer, processes.get(consumer), kills, step_id, result)
        elif (raw / f"{consumer}.out").exists():
            sizes = {k: datasets.get(consumer, {}).get(k) for k in ("data_bytes", "memory_bytes")}
            record = _run_record(raw, consumer, client, {**base, **sizes}, result)
            result.records.append(record)
    if client.node_failure:  # migration: the pods moved off a failed node
        _migration(raw, kills, step_id, result)
    if datasets:
        result.storage = _storage(raw, workload, datasets, processes, result)
    return result


def _migration(raw: Path, kills: list[dict[str, Any]], step_id: str, result: DbStepResult) -> None:
    """The step's all-back event (the node's failure to the last pod Ready elsewhere: the
    seed's figure) and a warning for rows that changed or could not be counted (none
    when the step was stopped before the count after the move)."""
    if kills:
        failed_at = min(k["killed_at"] for k in kills)
        readies = [k["ready_at"] for k in kills if k.get("ready_at") is not None]
        back = max(readies) - failed_at if len(readies) == len(kills) else None
        moves = sorted({f"{k.get('old_node')} → {k.get('new_node') or '?'}" for k in kills})
        detail = f"node {kills[0].get('old_node')} {kills[0].get('failure')}: {len(kills)} pods"
        detail += f" ({', '.join(moves)})" + ("" if back is not None else "; not all came back")
        event = EventRecord(step_id, "all", "all-back", 1, int(failed_at * 1000), back, detail)
        result.events.append(event)
    rows = read_json(raw / "rows.json") or {}
    for consumer, counted in sorted(rows.items()):
        if "after" not in counted:  # the step was stopped before the count after
            continue
        before, after = counted.get("before"), counted["after"]
        if before is None or after is None or before != after:
            said = f"{consumer}: {before} rows before the move, {after} after"
            result.warnings.append(Warning("rows-changed", said))


def _storage(
    raw: Path,
    workload: dict[str, Any],
    datasets: dict[str, Any],
    processes: dict[str, Any],
    result: DbStepResult,
) -> StorageUse:
    """The device's I/O while the clients ran, beside the data and the memory; a warning
    when the step measured memory, not storage (io-pause and migration measure pauses: no
    warning)."""
    starts = [p["start_s"] for p in processes.values() if p.get("start_s") is not None]
    ends = [p["end_s"] for p in processes.values() if p.get("end_s") is not None]
    window, unknown = None, ""
    if starts and ends:
        run = (min(starts), max(ends))
        counters = _cgroup_readings(raw, list(processes))
        if counters:  # pods: their servers' own cgroup counters
            window, unknown = cgroup_window(counters, own_run(run, result.records))
        else:  # this host: its device's counters, sampled
            window = device_window(read_samples(raw / "host.jsonl"), run)
    runs = [r for r in result.records if r.phase == "run" and not r.error]
    client = CLIENTS[workload.get("tool", "")]
    served, what = None, ""
    if (figure := client.served_by(str(workload.get("test")))) is not None:
        column, what = figure
        served = sum(getattr(r, column) or 0 for r in runs)
    use = storage_use(datasets, window, served, what)
    if unknown:
        result.warnings.append(
            Warning(
                "device-io-unknown", f"the device's own I/O during the run is unknown: {unknown}"
            )
        )
    if use.memory_not_storage and not client.under_load:  # pauses, not memory's speed
        result.warnings.append(
            Warning("memory-not-storage", f"this step measured memory, not storage: {use.why}")
        )
    return use


def own_run(window: tuple[float, float], records: list[DbRecord]) -> tuple[float, float]:
    """The window a pod's own counters are rated over: the clients' own run time (the
    longest, as the tool timed it) ending when the last client ended, where every client
    timed its run; else the clients' processes' window. A container does its I/O while
    its tool runs, and `kubectl exec` on a busy node took 1.6 s to start a 5.3 s run
    (raw/process.json against sysbench's total time: the disk's rate 23 % low)."""
    runs = [r for r in records if r.phase == "run"]
    own = [r.duration_s for r in runs if r.duration_s]
    if not runs or len(own) < len(runs):
        return window
    return max(window[0], window[1] - max(own)), window[1]


def _cgroup_readings(raw: Path, consumers: list[str]) -> dict[str, dict[str, str]]:
    """The servers' block I/O counters read before and after the run, by consumer."""
    readings: dict[str, dict[str, str]] = {}
    for consumer in consumers:
        for when in ("before", "after"):
            path = raw / f"{consumer}.blkio-{when}.out"
            if path.exists():
                readings.setdefault(consumer, {})[when] = read_output(path)
    return readings


def _load_record(
    raw: Path, consumer: str, client: DbClient, process: dict[str, Any], base: dict[str, Any]
) -> DbRecord:
    error = ""
    load_time = process.get("duration_s")
    out, err = raw / f"{consumer}.load.out", raw / f"{consumer}.load.err"
    if process.get("returncode") != 0:
        said = what_it_said(out, err)
        error = redact_text(f"load exited {process.get('returncode')}: {said}")
        load_time = None
    else:
        try:
            load_time = client.load_time_s(out, err, load_time)
        except ParseError as exc:
            error = str(exc)
    return DbRecord(**base, consumer=consumer, phase="load", load_time_s=load_time, error=error)


def _run_record(
    raw: Path, consumer: str, client: DbClient, base: dict[str, Any], result: DbStepResult
) -> DbRecord:
    out, err = raw / f"{consumer}.out", raw / f"{consumer}.err"
    try:
        run = client.run_figures(out, err)
    except ParseError as exc:
        result.warnings.append(Warning("unparseable-output", redact_text(str(exc))))
        return DbRecord(**base, consumer=consumer, phase="run", error=redact_text(str(exc)))
    figures = {k: v for k, v in run.figures.items() if k in DB_COLUMNS}
    return DbRecord(**base, consumer=consumer, phase="run", **figures, error=redact_text(run.error))


def _io_pause_events(
    raw: Path,
    consumer: str,
    process: dict[str, Any] | None,
    kills: list[dict[str, Any]],
    step_id: str,
    result: DbStepResult,
) -> None:
    """Each kill of this consumer's server gives a server-recovery event (kill to the
    server answering, measured by volperf) and an io-pause event (from sysbench's
    intervals: the client's own view)."""
    mine = [k for k in kills if k.get("consumer") == consumer]
    series: list[tuple[float, float]] = []
    try:
        output = parse_file(raw / f"{consumer}.out")
        series = [(i.time_s, i.tps) for i in output.intervals if i.tps is not None]
    except SysbenchParseError as exc:
        result.warnings.append(Warning("unparseable-output", redact_text(str(exc))))
    client_start = (process or {}).get("start_s")
    for kill in mine:
        killed_at, ready_at = kill["killed_at"], kill.get("ready_at")
        recovery = ready_at - killed_at if ready_at is not None else None
        how = (
            f"node {kill.get('old_node')} {kill['failure']}: pod on {kill.get('new_node')}"
            if "failure" in kill
            else "pod deleted (grace 0), replaced by its StatefulSet on the same PVC"
            if "running_at" in kill
            else "SIGKILL, restart on the same data"
        )
        result.events.append(
            EventRecord(
                step_id,
                consumer,
                "server-recovery",
                int(kill["cycle"]),
                int(killed_at * 1000),
                recovery,
                redact_text(kill.get("error", "")) or how,
            )
        )
        if kill.get("running_at") is not None:
            replaced = kill["running_at"] - killed_at
            result.events.append(
                EventRecord(
                    step_id,
                    consumer,
                    "pod-replaced",
                    int(kill["cycle"]),
                    int(killed_at * 1000),
                    replaced,
                    "the node's failure to the pod Running elsewhere"
                    if "failure" in kill
                    else "deletion to the replacement pod Running",
                )
            )
        if client_start is None or not series:
            continue
        pause = io_pause(series, killed_at - client_start)
        detail = (
            f"transactions stopped at {pause.last_ack_s:.0f} s"
            + (f", resumed at {pause.resumed_s:.0f} s" if pause.resumed_s is not None else "")
            + " of the client's run"
            + (
                f"; about {pause.lost_s:.1f} s of transactions lost around the kill"
                if pause.lost_s is not None
                else ""
            )
        )
        result.events.append(
            EventRecord(
                step_id,
                consumer,
                "io-pause",
                int(kill["cycle"]),
                int((client_start + pause.last_ack_s) * 1000),
                pause.seconds,
                detail if pause.seconds is not None else "transactions never resumed; " + detail,
            )
        )


def database_step(step: RawStep) -> StepParts:
    """A database step's records (the local and k8s planes' database steps, and k8s
    migration steps, which write the same raw files)."""
    db = build_db_step(step.raw, step.plan, step.step_id, step.backend)
    summary = {"threads": step.plan.get("threads"), **db.summary()}
    return StepParts(summary, list(db.warnings), list(db.events), db_records=list(db.records))
