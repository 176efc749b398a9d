"""io-pause: sysbench OLTP while every consumer's MariaDB is killed and restarted."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from harness.core.workloads.base import Tool
from harness.core.workloads.database import _UnderLoadWorkload


class IoPauseWorkload(_UnderLoadWorkload):
    """sysbench OLTP with 1-second reports while every consumer's MariaDB is killed
    (SIGKILL) and restarted on the same data, ``kills`` times."""

    tool: Literal["io-pause"] = Field(description="io-pause")
    kills: int = Field(3, ge=1, le=100, description="kills and restarts in each step")
    before: int = Field(5, ge=2, description="seconds of load before each kill")
    after: int = Field(5, ge=2, description="seconds of load after the server is back")
    restart_delay: float = Field(0, ge=0, description="seconds between kill and restart")
    recovery_timeout: int = Field(120, ge=1, description="seconds a restart may take")


TOOL = Tool("io-pause", IoPauseWorkload, "database", frozenset({"local", "k8s"}))
