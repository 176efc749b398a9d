"""Records of the database layer: db.csv (one row per consumer and phase) and
events.csv (timed events such as io-pause), with their CSV layout.

A database step gives each consumer a ``run`` row; a step that loaded a consumer's data
(sysbench prepare, pgbench -i) gives it a ``load`` row as well, with the load time.
Rates are per second, latencies milliseconds; a figure the tool did not print is empty.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, fields
from typing import Any

from harness.records.fio import csv_cell, iso_time


@dataclass(frozen=True)
class DbRecord:
    step: str
    consumer: str
    tool: str  # sysbench-fileio, sysbench-oltp, pgbench, io-pause
    engine: str  # mariadb, postgresql, or "" for fileio
    test: str  # rndrw, read_write, tpcb-like …
    phase: str  # load or run
    concurrency: int
    threads: int
    tps: float | None = None
    qps: float | None = None
    latency_avg_ms: float | None = None
    latency_p95_ms: float | None = None
    latency_stddev_ms: float | None = None
    errors_per_s: float | None = None
    reconnects_per_s: float | None = None
    reads_per_s: float | None = None
    writes_per_s: float | None = None
    fsyncs_per_s: float | None = None
    read_mib_s: float | None = None
    written_mib_s: float | None = None
    load_time_s: float | None = None
    duration_s: float | None = None
    data_bytes: int | None = None  # run rows: the consumer's data on disk
    memory_bytes: int | None = None  # run rows: memory its database may keep data in
    backend: str = ""
    repeat: int = 1
    error: str = ""


@dataclass(frozen=True)
class EventRecord:
    step: str
    consumer: str
    event: str  # io-pause, server-recovery, pvc-bound …
    index: int  # the n-th of its kind in the step (kill cycle, PVC number)
    start_ms: int | None
    seconds: float | None  # None: it never ended within the step
    detail: str = ""


def engine_of(workload: Mapping[str, Any]) -> str:
    """The database engine of a stored workload: its own, pgbench's PostgreSQL, or ''
    (sysbench fileio has none)."""
    return str(workload.get("engine", "postgresql" if workload.get("tool") == "pgbench" else ""))


DB_COLUMNS = [f.name for f in fields(DbRecord)]
EVENT_COLUMNS = ["step", "consumer", "event", "index", "start", "seconds", "detail"]


def csv_text(header: Sequence[str], rows: Iterable[Sequence[object]]) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(header)
    for row in rows:
        writer.writerow([csv_cell(v) for v in row])
    return buffer.getvalue()


def db_csv(records: Iterable[DbRecord]) -> str:
    return csv_text(DB_COLUMNS, (list(asdict(r).values()) for r in records))


def events_csv(events: Iterable[EventRecord]) -> str:
    return csv_text(
        EVENT_COLUMNS,
        (
            [
                e.step,
                e.consumer,
                e.event,
                e.index,
                iso_time(e.start_ms) if e.start_ms is not None else None,
                e.seconds,
                e.detail,
            ]
            for e in events
        ),
    )
