"""Workloads in words, for the terminal and the report's method section."""

from __future__ import annotations

from typing import Any

from harness.core.spec import Sweep

_SYSBENCH_TESTS = {
    "rndrd": "random reads",
    "rndwr": "random writes",
    "rndrw": "random reads and writes",
    "seqrd": "sequential reads",
    "seqwr": "sequential writes",
}


def describe_workload(w: dict[str, Any]) -> str:
    tool = w.get("tool", "fio")
    if tool == "sysbench-fileio":
        return _fileio(w)
    if tool == "sysbench-oltp":
        return _oltp(w)
    if tool == "pgbench":
        return _pgbench(w)
    if tool == "io-pause":
        return _io_pause(w)
    if tool == "migration":
        return _migration(w)
    if tool == "rally":
        return _rally(w)
    if tool == "pvc-provision":
        return _provision(w)
    if tool == "git":
        return _git(w)
    if tool == "build":
        return _build(w)
    if tool == "redis":
        return _redis(w)
    if tool == "broker":
        return _broker(w)
    return _fio(w)


def _per_minute(pace: dict[str, Any], key: str, what: str) -> str:
    rate = pace.get(key)
    return f"{what} at most {rate:g} a minute" if rate else f"{what} all at once"


def _build(w: dict[str, Any]) -> str:
    source = w.get("source") or {}
    return _join(
        [
            f"build: each consumer unpacks a generated source tree of {source.get('files')} "
            f"files of {source.get('file_size')} onto its own volume or folder, builds it "
            f"with make -j {w.get('jobs')} (each job reads a source file and its header, "
            "writes an object with gzip and fsyncs it; an archive per folder and a link, "
            "each fsynced; no compiler) and removes it",
            f"{w.get('iterations')} iteration(s)",
            _paced(w.get("pace") or {}, "projects"),
            "each phase timed by the workload's script and ended with the file system synced",
        ]
    )


def _redis(w: dict[str, Any]) -> str:
    return _join(
        [
            "redis: each consumer runs its own redis-server with its data and append-only "
            f"file (appendfsync {w.get('appendfsync')}) on its own volume or folder, loads "
            f"{w.get('records')} records of 10 fields of {w.get('field_length')} bytes and "
            f"runs {w.get('operations')} operations of YCSB workload {w.get('workload')} "
            f"with {w.get('client_threads')} client threads (go-ycsb v1.0.3's core workload, "
            "volperf-ycsb)",
            f"{w.get('iterations')} iteration(s), each load phase emptying the database first",
            _paced(w.get("pace") or {}, "projects"),
            "throughput and latencies as go-ycsb measured them",
        ]
    )


def _broker(w: dict[str, Any]) -> str:
    sync = (
        "fsynced before each write is acknowledged"
        if w.get("sync") == "always"
        else "fsynced when NATS's default interval (2 minutes) says"
    )
    return _join(
        [
            "broker: each consumer runs its own NATS server (nats-server v2.15.2, JetStream) "
            f"whose stream keeps its messages in files on its own volume or folder, {sync}; "
            f"nats bench (natscli v0.5.0) publishes {w.get('messages')} messages of "
            f"{w.get('message_size')} bytes from {w.get('clients')} publishers (asynchronous, "
            f"acknowledged in batches of 500), then {w.get('clients')} consumers read and "
            "acknowledge them",
            f"{w.get('iterations')} iteration(s), each making the stream anew",
            _paced(w.get("pace") or {}, "projects"),
            "messages per second as nats bench measured them, and its publishing latency: "
            "the time until a batch of 500 is acknowledged",
        ]
    )


def _paced(pace: dict[str, Any], what: str) -> str:
    """How fast namespaces came and went, where the workload paced them."""
    if not pace.get("create_per_min") and not pace.get("delete_per_min"):
        return ""
    return (
        f"{_per_minute(pace, 'create_per_min', f'{what} created')}, "
        f"{_per_minute(pace, 'delete_per_min', 'deleted')}"
    )


def _provision(w: dict[str, Any]) -> str:
    pace = w.get("pace") or {}
    return _join(
        [
            f"PVC provisioning: each consumer a namespace with {w.get('pvcs')} PVC(s) of "
            f"{w.get('size')}",
            _per_minute(pace, "create_per_min", "namespaces created"),
            _per_minute(pace, "delete_per_min", "deleted"),
            "a pod mounting each PVC (pod-ready times)" if w.get("pods") else "no pods",
            "times from volperf's create request to Bound and to Ready, seen through watches",
        ]
    )


def _git(w: dict[str, Any]) -> str:
    repo = w.get("repo") or {}
    return _join(
        [
            f"git: each consumer clones (git clone --no-local) a generated repository of "
            f"{repo.get('files')} files of {repo.get('file_size')} with {repo.get('commits')} "
            "commits onto its own volume or folder, tars the clone, untars it and removes both",
            f"{w.get('iterations')} iteration(s)",
            _paced(w.get("pace") or {}, "projects"),
            "each phase timed by the workload's script and ended with the file system synced",
        ]
    )


def _rally(w: dict[str, Any]) -> str:
    if w.get("task") == "exported":
        return f"Rally task {w.get('args', {}).get('task_uuid')}, run by Rally and exported."
    times = (
        f"{w['times']} iterations"
        if w.get("times")
        else f"{w.get('times_per_user', 2)} iteration(s) per concurrent user"
    )
    args = ", ".join(f"{k}={v}" for k, v in (w.get("args") or {}).items())
    return _join(
        [
            f"Rally task {w.get('task')} at each concurrency of the sweep",
            times,
            f"task args {args}" if args else "",
            f"Rally checked what it waited for every {w['poll_interval']:g} s"
            if w.get("poll_interval")
            else "Rally checked what it waited for at rally-openstack's default intervals "
            "(1 to 4 s: an action's time is rounded up to them)",
        ]
    )


def _join(parts: list[str]) -> str:
    return "; ".join(p for p in parts if p) + "."


def _threads(w: dict[str, Any], what: str = "threads") -> str:
    return f"{what} {', '.join(str(t) for t in w.get('threads', [1]))}"


def _fio(w: dict[str, Any]) -> str:
    rw = w.get("rw", [])
    rw = rw if isinstance(rw, list) else [rw]
    who = (
        f"consumers take {', '.join(rw)} in turn" if len(rw) > 1 else f"every consumer runs {rw[0]}"
    )
    length = (
        f"for {w.get('runtime')} s"
        + (f" after {w['ramp_time']} s ramp" if w.get("ramp_time") else "")
        if w.get("mode", "time") == "time"
        else f"until {w.get('size')} is done"
    )
    return _join(
        [
            f"fio: {who}, bs {w.get('bs')}, iodepth {w.get('iodepth')}",
            f"numjobs {w.get('numjobs', 1)}" if w.get("numjobs", 1) != 1 else "",
            f"{w.get('size')} per consumer",
            length,
            f"ioengine {w['ioengine']}" if w.get("ioengine") else "",
            {True: "direct I/O", False: "buffered I/O"}.get(w.get("direct"), ""),
            "every block written once before measuring (prefill)" if w.get("prefill") else "",
            f"capped at {w['rate_iops']} IOPS per consumer" if w.get("rate_iops") else "",
        ]
    )


def _fileio(w: dict[str, Any]) -> str:
    flags = w.get("file_extra_flags") or []
    fsync = (
        f"fsync every {w.get('file_fsync_freq')} requests"
        if w.get("file_fsync_freq")
        else "no periodic fsync"
    )
    return _join(
        [
            f"sysbench fileio {w.get('test')} ({_SYSBENCH_TESTS.get(w.get('test', ''), '')}): "
            f"each consumer one sysbench on {w.get('file_num')} files of "
            f"{w.get('file_total_size')} in all, block {w.get('file_block_size')}",
            _threads(w),
            f"{w.get('file_io_mode')} I/O" + (f" with {', '.join(flags)}" if flags else ""),
            fsync + ("; fsync after every write" if w.get("file_fsync_all") else ""),
            f"for {w.get('runtime')} s",
        ]
    )


def _oltp(w: dict[str, Any]) -> str:
    return _join(
        [
            f"sysbench oltp_{w.get('test')}: each consumer its own {w.get('engine')} server "
            f"and one sysbench, {w.get('tables')} tables of {w.get('table_size')} rows",
            _threads(w),
            f"for {w.get('runtime')} s",
        ]
    )


def _pgbench(w: dict[str, Any]) -> str:
    return _join(
        [
            f"pgbench (TPC-B like): each consumer its own PostgreSQL server, loaded at scale "
            f"{w.get('scale')} (load timed)",
            _threads(w, "clients"),
            f"{w.get('protocol')} protocol",
            f"for {w.get('runtime')} s",
        ]
    )


def _io_pause(w: dict[str, Any]) -> str:
    return _join(
        [
            f"io-pause: sysbench oltp_{w.get('test')} with 1-second reports against each "
            f"consumer's own {w.get('engine')}; every server killed (SIGKILL) "
            f"{w.get('kills')} times, {w.get('before')} s into the load, and restarted on the "
            f"same data after {w.get('restart_delay')} s",
            f"{w.get('after')} s of load after each recovery",
            _threads(w),
            f"{w.get('tables')} tables of {w.get('table_size')} rows",
        ]
    )


def _migration(w: dict[str, Any]) -> str:
    how = {
        "drain": "drained (cordoned, the pods evicted)",
        "crash": "crashed (crash_command), then tainted out of service",
    }
    return _join(
        [
            f"migration: every consumer's {w.get('engine')} pod starts on node "
            f"{w.get('node') or 'the first Ready one by name'} under sysbench "
            f"oltp_{w.get('test')} with 1-second reports from a client pod on another node; "
            f"{w.get('before')} s into the load the node is {how.get(w.get('failure', ''))}, "
            "each pod's time to Running and Ready elsewhere and its client's io-pause are "
            "recorded, and the time until all are back",
            f"{w.get('after')} s of load after that; the node is brought back at the end, the "
            "rows counted before and after the move",
            _threads(w),
            f"{w.get('tables')} tables of {w.get('table_size')} rows",
        ]
    )


def expected_seconds(w: dict[str, Any]) -> float | None:
    """How long the measured part of a step should take, for progress bars."""
    tool = w.get("tool", "fio")
    if tool == "rally":
        return None  # as long as the cloud takes
    if tool == "io-pause":
        return float(w.get("kills", 1) * (w.get("before", 0) + w.get("after", 0)))
    if tool == "migration":
        return None  # as long as the pods take to come back
    if tool in ("pvc-provision", "git", "build", "redis", "broker"):
        return None  # as long as the cluster, or the storage, takes
    if tool != "fio":
        return float(w.get("runtime") or 0)
    if w.get("mode", "time") == "time":
        return float((w.get("runtime") or 0) + w.get("ramp_time", 0))
    return None


def step_line(w: dict[str, Any], threads: int | None) -> str:
    """The short form the terminal shows when a step starts."""
    tool = w.get("tool", "fio")
    if tool == "rally":
        return f"Rally task {w.get('task')}"
    if tool == "fio":
        length = f"{w['runtime']} s" if w.get("mode", "time") == "time" else f"size {w['size']}"
        return f"bs {w.get('bs')}, iodepth {w.get('iodepth')}, {length}"
    if tool == "pvc-provision":
        return f"{w.get('pvcs')} PVC(s) of {w.get('size')} per namespace"
    if tool == "git":
        repo = w.get("repo") or {}
        return (
            f"git: {w.get('iterations')} x clone, tar, untar, rm of {repo.get('files')} files "
            f"of {repo.get('file_size')}"
        )
    if tool == "build":
        source = w.get("source") or {}
        return (
            f"build: {w.get('iterations')} x unpack, make -j {w.get('jobs')}, clean of "
            f"{source.get('files')} files of {source.get('file_size')}"
        )
    if tool == "redis":
        return (
            f"redis: {w.get('iterations')} x YCSB load of {w.get('records')} records, run of "
            f"{w.get('operations')} operations (workload {w.get('workload')}), appendfsync "
            f"{w.get('appendfsync')}"
        )
    if tool == "broker":
        return (
            f"broker: {w.get('iterations')} x publish and consume {w.get('messages')} messages "
            f"of {w.get('message_size')} bytes, {w.get('clients')} clients, sync {w.get('sync')}"
        )
    test = w.get("test", "")
    if tool == "migration":
        return f"migration: node {w.get('node') or '(first by name)'} {w.get('failure')}, " + (
            f"sysbench oltp_{test}, {threads} threads"
        )
    seconds = expected_seconds(w)
    return f"{tool} {test}".strip() + f", {threads} threads, ~{seconds:.0f} s"


_STOP_RULES = {
    "no_space": lambda v: "a step runs out of space",
    "failures_above_pct": lambda v: f"more than {v:g} % of a step's consumers fail",
    "bound_p95_above_s": lambda v: f"PVCs take over {v:g} s to bind (p95)",
    "per_consumer_below_pct": lambda v: (
        f"throughput per consumer falls below {v:g} % of the first step's"
    ),
}


def describe_sweep(sweep: Any, steps: list[dict[str, Any]]) -> str:
    """The consumer counts of a stored spec's sweep, the rules that end it early and,
    for each workload whose sweep they ended, where and why."""
    if not isinstance(sweep, dict):
        return ", ".join(str(c) for c in sweep or [])
    counts = ", ".join(str(c) for c in Sweep.model_validate(sweep).values())
    rules = [
        _STOP_RULES[name](value)
        for name, value in (sweep.get("stop_when") or {}).items()
        if name in _STOP_RULES and value not in (None, False)
    ]
    text = counts + (f", until {' or '.join(rules)}" if rules else "")
    for s in steps:
        if s.get("ended_sweep"):
            skipped = [
                str(o["concurrency"])
                for o in steps
                if o.get("state") == "skipped" and o.get("workload") == s["workload"]
            ]
            text += (
                f"; the sweep of {s['workload']} ended at {s['concurrency']} consumers "
                f"({s['ended_sweep']})"
            )
            if skipped:
                text += f", so {', '.join(skipped)} did not run"
    return text
