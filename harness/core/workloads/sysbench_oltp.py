"""sysbench OLTP against volperf's own database server, one per consumer."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from harness.core.workloads.base import Tool
from harness.core.workloads.columns import consumers, db, threads
from harness.core.workloads.database import ThreadCounts, _SizedDbWorkload
from harness.core.workloads.words import db_step_line, join, runtime_seconds, thread_counts


class OltpWorkload(_SizedDbWorkload):
    """sysbench OLTP against volperf's own database server, one per consumer."""

    tool: Literal["sysbench-oltp"] = Field(description="sysbench-oltp")
    engine: Literal["mariadb", "postgresql"] = Field(
        "mariadb", description="the database server each consumer gets"
    )
    test: Literal["read_write", "read_only", "write_only"] = Field(
        "read_write", description="sysbench's OLTP test (oltp_read_write …)"
    )
    tables: int = Field(10, ge=1, le=10000, description="tables in each consumer's database")
    table_size: int = Field(10000, ge=1, description="rows per table; or give dataset")
    threads: ThreadCounts = Field(
        [1], description="client threads of each consumer, one step per count"
    )
    runtime: int = Field(60, ge=1, description="seconds of measured run")


def step_line(w: dict[str, Any], threads: int | None) -> str:
    return db_step_line(w, threads, runtime_seconds(w))


def describe(w: dict[str, Any]) -> str:
    return join(
        [
            f"sysbench oltp_{w.get('test')}: each consumer its own {w.get('engine')} server "
            f"and one sysbench, {w.get('tables')} tables of {w.get('table_size')} rows",
            thread_counts(w),
            f"for {w.get('runtime')} s",
        ]
    )


COLUMNS = (
    consumers(),
    threads(),
    db("tps_total", 1),
    db("tps_per_consumer", 1),
    db("qps_total"),
    db("latency_avg_ms", 2),
    db("latency_p95_ms_highest", 2),
    db("load_time_s_max", 1),
)


TOOL = Tool(
    "sysbench-oltp",
    OltpWorkload,
    "database",
    frozenset({"local", "k8s"}),
    describe,
    runtime_seconds,
    step_line,
    columns=COLUMNS,
)
