"""io-pause: sysbench OLTP while every consumer's MariaDB is killed and restarted."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from harness.core.workloads.base import Tool
from harness.core.workloads.columns import consumers, count_of, event, threads
from harness.core.workloads.database import _UnderLoadWorkload
from harness.core.workloads.words import db_step_line, join, thread_counts


class IoPauseWorkload(_UnderLoadWorkload):
    """sysbench OLTP with 1-second reports while every consumer's MariaDB is killed
    (SIGKILL) and restarted on the same data, ``kills`` times."""

    tool: Literal["io-pause"] = Field(description="io-pause")
    kills: int = Field(3, ge=1, le=100, description="kills and restarts in each step")
    before: int = Field(5, ge=2, description="seconds of load before each kill")
    after: int = Field(
        5,
        ge=2,
        description="seconds of load after the server is back and its client's transactions "
        "resumed (waited for up to recovery_timeout from the kill)",
    )
    restart_delay: float = Field(0, ge=0, description="seconds between kill and restart")
    recovery_timeout: int = Field(120, ge=1, description="seconds a restart may take")


def expected_seconds(w: dict[str, Any]) -> float | None:
    return float(w.get("kills", 1) * (w.get("before", 0) + w.get("after", 0)))


def step_line(w: dict[str, Any], threads: int | None) -> str:
    return db_step_line(w, threads, expected_seconds(w))


def describe(w: dict[str, Any]) -> str:
    return join(
        [
            f"io-pause: sysbench oltp_{w.get('test')} with 1-second reports against each "
            f"consumer's own {w.get('engine')}; every server killed (SIGKILL) "
            f"{w.get('kills')} times, {w.get('before')} s into the load, and restarted on the "
            f"same data after {w.get('restart_delay')} s",
            f"{w.get('after')} s of load after transactions resumed",
            thread_counts(w),
            f"{w.get('tables')} tables of {w.get('table_size')} rows",
        ]
    )


COLUMNS = (
    consumers(),
    threads(),
    count_of("server kills", "server-recovery", "count"),
    event("io-pause mean s", "io-pause", "mean_s", 1),
    event("io-pause max s", "io-pause", "max_s", 1),
    count_of("never resumed", "io-pause", "unresolved"),
    event("server recovery mean s", "server-recovery", "mean_s", 2),
    event("recovery max s", "server-recovery", "max_s", 2),
)


TOOL = Tool(
    "io-pause",
    IoPauseWorkload,
    "database",
    frozenset({"local", "k8s"}),
    describe,
    expected_seconds,
    step_line,
    columns=COLUMNS,
)
