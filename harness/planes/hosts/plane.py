"""The hosts plane in the registry: the `hosts` target (fio --server on hosts volperf does
not create), its steps' records, and its files on the hosts."""

from __future__ import annotations

from harness.planes.base import LazyTarget, Plane
from harness.planes.hosts import cleanup
from harness.planes.hosts.step import hosts_step, is_hosts_step
from harness.records.step import RawStep, StepParts


def fleet_step(step: RawStep) -> StepParts:
    return hosts_step(step).parts("hosts")


PLANE = Plane(
    "hosts",
    targets={"hosts": LazyTarget("harness.planes.hosts.target", "HostsFioTarget")},
    fio_steps=[(is_hosts_step, fleet_step)],
    removers=[(cleanup.is_ours, cleanup.remove_noted)],
)
