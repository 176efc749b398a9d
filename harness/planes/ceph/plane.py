"""The Ceph plane in the registry: the `rbd` target; the health samples and image notes
any step on Ceph may hold; its RBD images."""

from __future__ import annotations

from harness.planes.base import Plane
from harness.planes.ceph import cleanup
from harness.planes.ceph.step import ceph_step
from harness.planes.ceph.target import RbdFioTarget
from harness.records.step import RawStep, StepParts


def health_step(step: RawStep) -> StepParts:
    ceph = ceph_step(step.raw, step.step_id, step.started)
    return StepParts(ceph.summary, ceph.warnings, ceph.events)


PLANE = Plane(
    "ceph",
    targets={"rbd": RbdFioTarget},
    step_extras=[health_step],
    removers=[(lambda kind: kind.startswith("rbd-"), cleanup.remove_noted)],
)
