"""pgbench against volperf's own PostgreSQL, one per consumer."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from harness.core.workloads.base import Tool
from harness.core.workloads.columns import consumers, db, threads
from harness.core.workloads.database import ThreadCounts, _SizedDbWorkload
from harness.core.workloads.words import db_step_line, join, runtime_seconds, thread_counts


class PgbenchWorkload(_SizedDbWorkload):
    """pgbench (TPC-B like) against volperf's own PostgreSQL, one per consumer; the
    init at ``scale`` is timed as the load time."""

    tool: Literal["pgbench"] = Field(description="pgbench")
    scale: int = Field(
        10,
        ge=1,
        description="pgbench's scale factor (-s, 100,000 accounts rows each); or give dataset",
    )
    threads: ThreadCounts = Field([1], description="pgbench clients (-c)")
    runtime: int = Field(60, ge=1, description="seconds of measured run")
    jobs: int | None = Field(None, ge=1, description="pgbench worker threads (-j)")
    protocol: Literal["simple", "extended", "prepared"] = Field(
        "prepared", description="how pgbench sends its queries (--protocol)"
    )


def step_line(w: dict[str, Any], threads: int | None) -> str:
    return db_step_line(w, threads, runtime_seconds(w))


def describe(w: dict[str, Any]) -> str:
    return join(
        [
            f"pgbench (TPC-B like): each consumer its own PostgreSQL server, loaded at scale "
            f"{w.get('scale')} (load timed)",
            thread_counts(w, "clients"),
            f"{w.get('protocol')} protocol",
            f"for {w.get('runtime')} s",
        ]
    )


COLUMNS = (
    consumers(),
    threads("clients"),
    db("tps_total", 1),
    db("tps_per_consumer", 1),
    db("latency_avg_ms", 3),
    db("load_time_s_max", 2),
)


TOOL = Tool(
    "pgbench",
    PgbenchWorkload,
    "database",
    frozenset({"local", "k8s"}),
    describe,
    runtime_seconds,
    step_line,
    columns=COLUMNS,
)
