"""How one step was measured, and what differs between two steps' methods.

A step's method is its workload's settings (from the campaign's spec), its consumers'
split, where it ran (target type and backend) and the versions of the tools that
measured it. Two steps measured differently can still be set side by side, but some
differences change what the figures mean: those make a comparison "not comparable".
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from harness.core.workloads.registry import as_run
from harness.records.db import engine_of

# workload settings that are not part of the method: the name, and what a step is
# matched by (thread counts) or how often a tool reports
NOT_METHOD = frozenset({"name", "threads", "report_interval"})
# settings whose difference changes what the figures mean (runtime: see RUNTIME_RATIO)
CHANGES_MEANING = frozenset(
    {
        "tool",
        "rw",
        "bs",
        "iodepth",
        "prefill",
        "mode",
        "target type",
        # databases: what is stored and how it is queried, and what memory holds of it
        "engine",
        "test",
        "tables",
        "table_size",
        "scale",
        "server options",
        "file_total_size",
        "file_block_size",
        "file_io_mode",
        "file_extra_flags",
        # provisioning and failover
        "pvcs",
        "pods",
        "kills",
        "measured",  # memory or storage
        # faults given during a step (a step with an outage against one without)
        "faults",
    }
)
RUNTIME_RATIO = 2.0  # runtimes further apart than this change what a figure means
NOT_STATED = "not stated"
UNITS = {"runtime": "s", "ramp_time": "s", "before": "s", "after": "s", "restart_delay": "s"}


@dataclass(frozen=True)
class CampaignMethod:
    """What a campaign says of how it measured: its spec's workloads by name, its
    target's type, its backend and the versions of its tools."""

    workloads: dict[str, dict[str, Any]]
    target_type: str | None
    backend: str
    tools: dict[str, str]
    databases: dict[str, Any] = field(default_factory=dict)
    volume_gib: int | None = None  # Heat: every VM's Cinder volume, when the spec sets it
    # the backend's own settings at the campaign's start (Ceph's OSD scheduler and mClock
    # profile): what a study of recovery varies, so a difference does not change meaning
    backend_settings: dict[str, str] = field(default_factory=dict)

    @classmethod
    def of(cls, spec: dict[str, Any], backend: str, environment: dict[str, Any]) -> CampaignMethod:
        target = spec.get("target") or {}
        return cls(
            workloads={w.get("name"): w for w in spec.get("workloads") or []},
            target_type=target.get("type"),
            backend=backend,
            tools={str(k): str(v) for k, v in (environment.get("tools") or {}).items()},
            databases=spec.get("databases") or {},
            volume_gib=(target.get("heat") or {}).get("volume_size"),
            backend_settings={
                str(k): str(v) for k, v in (environment.get("backend_settings") or {}).items()
            },
        )


@dataclass(frozen=True)
class Difference:
    setting: str
    baseline: str
    other: str
    changes_meaning: bool


def _tool_version(name: str, version: str) -> str:
    """fio's own `--version` says 'fio-3.33'; a published method says '3.33'."""
    return version.removeprefix(f"{name}-")


def step_method(step: dict[str, Any], campaign: CampaignMethod) -> dict[str, Any]:
    """The settings one step was measured with, by name; a setting the campaign does not
    state is absent."""
    # as the target ran it (fio on rbd: fio's rbd engine, whatever its ioengine says)
    workload = as_run(campaign.workloads.get(step.get("workload"), {}), campaign.target_type)
    method: dict[str, Any] = {"tool": workload.get("tool", "fio")}
    method.update({k: v for k, v in workload.items() if k not in NOT_METHOD | {"tool"}})
    if method.get("mode") == "size":  # fio runs until the size is done: no runtime
        method.pop("runtime", None)
    engine = engine_of(workload)
    if engine in campaign.databases:
        method["server options"] = campaign.databases[engine].get("options", {})
    if step.get("readers") is not None or step.get("writers") is not None:
        method["consumers' split"] = (
            f"{step.get('readers') or 0} reading, {step.get('writers') or 0} writing"
        )
    if campaign.volume_gib is not None and method["tool"] == "fio":
        method["volume size"] = f"{campaign.volume_gib} GiB"
    if step.get("storage"):  # database steps: did the storage under test serve the data?
        memory = (step.get("db") or {}).get("memory_not_storage")
        method["measured"] = "memory, not storage" if memory else "storage"
    if campaign.target_type:
        method["target type"] = campaign.target_type
    if campaign.backend:
        method["backend"] = campaign.backend
    method.update(campaign.backend_settings)
    tools = dict(campaign.tools)
    if step.get("fio_version"):
        tools["fio"] = step["fio_version"]
    for name, version in tools.items():
        method[f"{name} version"] = _tool_version(name, version)
    return method


def shown(value: Any, unit: str = "") -> str:
    if unit and isinstance(value, int | float) and not isinstance(value, bool):
        return f"{value:g} {unit}"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, list):
        return "+".join(str(v) for v in value) if value else "none"
    if isinstance(value, dict):
        return ", ".join(f"{k}={v}" for k, v in value.items()) if value else "none"
    if value is None:
        return "none"
    return str(value)


def _empty(value: Any) -> bool:
    return value is None or value == {} or value == []


def _changes_meaning(setting: str, a: Any, b: Any) -> bool:
    if setting == "runtime":
        if a is None or b is None or min(a, b) <= 0:
            return True
        return max(a, b) / min(a, b) > RUNTIME_RATIO
    return setting in CHANGES_MEANING


def differences(baseline: dict[str, Any], other: dict[str, Any]) -> list[Difference]:
    """Every setting that differs, in the order of the side that states more. A tool
    version one side does not state is left out (a published study names the tools it
    thought mattered); any other setting stated on one side only is listed as not stated
    on the other, unless the side that states it says 'none'."""
    found = []
    first, second = (baseline, other) if len(baseline) >= len(other) else (other, baseline)
    for setting in [*first, *(s for s in second if s not in first)]:
        missing_a, missing_b = setting not in baseline, setting not in other
        a, b = baseline.get(setting), other.get(setting)
        if missing_a or missing_b:
            if setting.endswith(" version") or _empty(a if missing_b else b):
                continue
        elif a == b:
            continue
        found.append(
            Difference(
                setting,
                NOT_STATED if missing_a else shown(a, UNITS.get(setting, "")),
                NOT_STATED if missing_b else shown(b, UNITS.get(setting, "")),
                _changes_meaning(setting, a, b),
            )
        )
    return found
