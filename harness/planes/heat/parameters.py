"""What volperf asks Heat for in one step: one stack per rw mode (the readers' stack and
the writers' stack, created at once), its name, tags and template parameters."""

from __future__ import annotations

import math
from dataclasses import dataclass

from harness.core.plan import Step
from harness.core.resources import package_path
from harness.core.spec import FioWorkload, HeatSettings
from harness.core.units import size_bytes
from harness.core.workloads.registry import family_of

TEMPLATE = package_path("heat_templates", "cinder-fio", "main.yaml")
TAG = "volperf"
AGENT_MARGIN_S = 600  # boot, prefill and signal, beyond fio's runtime
SIZE_MODE_AGENT_S = 3600
STACK_MARGIN_S = 300  # Heat's stack timeout beyond the agents'
START_FACTOR = 1.5  # the shared start time: the step before's slowest ready time, x this
START_MARGIN_S = 10  # plus this


def campaign_tag(campaign: str) -> str:
    """The tag `volperf cleanup` finds a campaign's stacks by."""
    return f"volperf-campaign-{campaign}"


@dataclass(frozen=True)
class StackPlan:
    name: str
    rw: str
    consumers: tuple[str, ...]  # VM index i is consumers[i]
    parameters: dict[str, str | int]


def fio_size(size: str, units: str = "KMGT") -> str:
    """A size as the template's patterns take it: whole number, one-letter unit."""
    value = size_bytes(size)
    for unit in reversed(units):
        factor = 1024 ** ("KMGT".index(unit.upper()) + 1)
        if value % factor == 0:
            return f"{value // factor}{unit}"
    return str(value)


def volume_size_gib(heat: HeatSettings, workload: FioWorkload) -> int:
    return heat.volume_size or max(1, math.ceil(size_bytes(workload.size) / 2**30))


def agent_timeout_s(heat: HeatSettings, workload: FioWorkload, delay: int = 0) -> int:
    """How long Heat waits for the agents: fio's runtime and a margin, and the time
    until the step's start (``delay``)."""
    if heat.agent_timeout is not None:
        return heat.agent_timeout
    if workload.mode == "time" and workload.runtime is not None:
        return workload.runtime + AGENT_MARGIN_S + delay
    return SIZE_MODE_AGENT_S + delay


def stack_timeout_min(heat: HeatSettings, workload: FioWorkload, delay: int = 0) -> int:
    return math.ceil((agent_timeout_s(heat, workload, delay) + STACK_MARGIN_S) / 60)


def start_delay_s(heat: HeatSettings, previous_ready_s: float | None) -> int | None:
    """Seconds from the stack requests to the step's shared start time: the spec's, or
    from how long the step before's slowest VM took to be ready; None: each at once."""
    if heat.start_delay is not None:
        return heat.start_delay
    if previous_ready_s is None:
        return None
    return math.ceil(previous_ready_s * START_FACTOR + START_MARGIN_S)


def stack_plans(
    campaign: str, step: Step, heat: HeatSettings, start_at: int = 0, delay: int = 0
) -> list[StackPlan]:
    """The step's stacks: its consumers grouped by rw mode, in the order modes first appear;
    their VMs start fio at ``start_at`` (seconds since the epoch, ``delay`` from now; 0:
    each at once)."""
    workload = step.workload
    assert family_of(workload) == "fio"
    modes: dict[str, list[str]] = {}
    for consumer in step.consumers:
        modes.setdefault(consumer.rw, []).append(consumer.name)
    prefill = "none"
    if workload.prefill:
        prefill = "image" if heat.prefill_image else "fio"
    plans = []
    for rw, consumers in modes.items():
        parameters: dict[str, str | int] = {
            "image": heat.image,
            "flavor": heat.flavor,
            "key_name": heat.key_name,
            "network_name": heat.network,
            "volume_type": heat.volume_type,
            "volume_size": volume_size_gib(heat, workload),
            "vm_count": len(consumers),
            "test_iodepth": workload.iodepth,
            "test_filesize": fio_size(workload.size),
            "test_mode": workload.mode,
            "test_runtime": workload.runtime or 1,
            "test_rw": rw,
            "bs": fio_size(workload.bs, "km"),
            "test_rate_iops": workload.rate_iops or 0,
            "test_rate_process": workload.rate_process or "linear",
            "prefill": prefill,
            "prefill_image": heat.prefill_image,
            "device_mode": heat.device_mode,
            "agent_timeout": agent_timeout_s(heat, workload, delay),
            "start_at": start_at,
        }
        name = f"volperf-{campaign}-{step.index:03d}-{rw}"
        plans.append(StackPlan(name, rw, tuple(consumers), parameters))
    return plans


def listing(plans: list[StackPlan], errors: dict[str, str] | None = None) -> list[dict]:
    """What raw/stacks.json says of each stack: its name, mode, VMs and parameters, and
    why Heat refused it ("" if it did not)."""
    return [
        {
            "name": p.name,
            "rw": p.rw,
            "consumers": list(p.consumers),
            "parameters": p.parameters,
            "error": (errors or {}).get(p.name, ""),
        }
        for p in plans
    ]
