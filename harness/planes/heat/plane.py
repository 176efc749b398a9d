"""The Heat plane in the registry: fio steps whose VMs sent their outputs through Heat;
its stacks."""

from __future__ import annotations

from harness.planes.base import Plane
from harness.planes.heat import cleanup
from harness.planes.heat.step import heat_step, is_heat_step
from harness.records.step import RawStep, StepParts


def vm_step(step: RawStep) -> StepParts:
    return heat_step(step.raw, step.step_id, step.plan, step.backend).parts("heat")


PLANE = Plane(
    "heat",
    fio_steps=[(is_heat_step, vm_step)],
    removers=[(lambda kind: kind.startswith("heat-"), cleanup.remove_noted)],
)
