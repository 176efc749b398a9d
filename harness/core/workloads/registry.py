"""Every workload tool, in the order the spec's errors and JSON Schema list them. A new
tool adds its module here and nowhere else in the spec; a tool of the user's own (a
module outside volperf that declares ``TOOL``, an application with its script beside it)
is named in ``VOLPERF_TOOLS`` (module names, comma-separated, as pytest's
``PYTEST_PLUGINS``) and comes after volperf's own."""

from __future__ import annotations

import importlib
import os
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

PLUGINS_VARIABLE = "VOLPERF_TOOLS"


class ToolPluginError(Exception):
    """A module named in VOLPERF_TOOLS that does not declare a tool volperf can add."""


def plugins(names: str, known: Iterable[str]) -> tuple[Tool, ...]:
    """The tools the modules in ``names`` declare (each module's ``TOOL``)."""
    found: list[Tool] = []
    taken = set(known)
    for name in filter(None, (part.strip() for part in names.split(","))):
        where = f"{PLUGINS_VARIABLE}: module {name!r}"
        try:
            module = importlib.import_module(name)
        except Exception as exc:  # noqa: BLE001 - whatever the module raised, said with its name
            raise ToolPluginError(f"{where} could not be imported: {exc}") from exc
        declared = getattr(module, "TOOL", None)
        if not isinstance(declared, Tool):
            raise ToolPluginError(f"{where} declares no TOOL (harness.core.workloads.base.Tool)")
        if declared.tag in taken:
            raise ToolPluginError(f"{where}: tool {declared.tag!r} is already declared")
        taken.add(declared.tag)
        found.append(declared)
    return tuple(found)


BUILT_IN: tuple[Tool, ...] = (
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
TOOLS = BUILT_IN + plugins(os.environ.get(PLUGINS_VARIABLE, ""), (t.tag for t in BUILT_IN))
BY_TAG = {t.tag: t for t in TOOLS}
WORKLOAD_MODELS: dict[str, type[_Strict]] = {t.tag: t.model for t in TOOLS}
Workload = tagged_union(
    WORKLOAD_MODELS, "tool", "fio", "tool", f", or a tool of your own named in {PLUGINS_VARIABLE}"
)
# they time their own phases
AppWorkload = git.GitWorkload | build.BuildWorkload | redis.RedisWorkload | broker.BrokerWorkload


def tool(tag: str) -> Tool:
    """The declaration of the tool the spec calls ``tag``."""
    return BY_TAG[tag]


def as_run(workload: dict[str, Any], target_type: str | None) -> dict[str, Any]:
    """A spec's workload (its dict) with what its target type sets itself in place of the
    workload's own settings (its tool's ``set_by_target``: fio on rbd runs fio's rbd
    engine whatever its ioengine says); a tool not declared here, as it is."""
    declared = BY_TAG.get(workload.get("tool", "fio"))
    if declared is None or target_type is None:
        return workload
    return {**workload, **declared.set_by_target.get(target_type, {})}


def running_on(target_type: str) -> list[str]:
    """The tools that run on a target type, in the registry's order."""
    return [t.tag for t in TOOLS if target_type in t.targets]


def family_of(workload: Any) -> Family:
    """How the planes run a workload (a spec's model, or its dict)."""
    tag = workload.get("tool", "fio") if isinstance(workload, dict) else workload.tool
    return tool(tag).family


def families(workloads: Iterable[Any]) -> set[Family]:
    return {family_of(w) for w in workloads}
