"""Every workload tool, in the order the spec's errors and JSON Schema list them. A new
tool adds its module here and nowhere else in the spec."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from harness.core.workloads import (
    broker,
    build,
    fio,
    git,
    io_pause,
    migration,
    pgbench,
    pvc_provision,
    rally,
    redis,
    sysbench_fileio,
    sysbench_oltp,
)
from harness.core.workloads.base import Family, Tool, _Strict, tagged_union

TOOLS: tuple[Tool, ...] = (
    fio.TOOL,
    sysbench_fileio.TOOL,
    sysbench_oltp.TOOL,
    pgbench.TOOL,
    io_pause.TOOL,
    migration.TOOL,
    pvc_provision.TOOL,
    rally.TOOL,
    git.TOOL,
    build.TOOL,
    redis.TOOL,
    broker.TOOL,
)
BY_TAG = {t.tag: t for t in TOOLS}
WORKLOAD_MODELS: dict[str, type[_Strict]] = {t.tag: t.model for t in TOOLS}
Workload = tagged_union(WORKLOAD_MODELS, "tool", "fio", "tool")
# they time their own phases
AppWorkload = git.GitWorkload | build.BuildWorkload | redis.RedisWorkload | broker.BrokerWorkload


def tool(tag: str) -> Tool:
    """The declaration of the tool the spec calls ``tag``."""
    return BY_TAG[tag]


def running_on(target_type: str) -> list[str]:
    """The tools that run on a target type, in the registry's order."""
    return [t.tag for t in TOOLS if target_type in t.targets]


def family_of(workload: Any) -> Family:
    """How the planes run a workload (a spec's model, or its dict)."""
    tag = workload.get("tool", "fio") if isinstance(workload, dict) else workload.tool
    return tool(tag).family


def families(workloads: Iterable[Any]) -> set[Family]:
    return {family_of(w) for w in workloads}
