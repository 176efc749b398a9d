"""The Ceph plane in the registry: the `rbd` target; the health samples and image notes
any step on Ceph may hold, and the cluster's state in each sample (a step's phases); the
faults a killed run left on its OSDs, and its RBD images."""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path
from typing import Any

from harness.host.sampler import read_samples
from harness.planes.base import Lazy, LazyTarget, PhaseSource, Plane
from harness.planes.ceph import cleanup
from harness.planes.ceph.osd_perf import osd_loads, osd_perf_problem
from harness.planes.ceph.phases import WORDS, states
from harness.planes.ceph.step import HEALTH_FILE, ceph_step
from harness.records.step import RawStep, StepParts


def health_step(step: RawStep) -> StepParts:
    ceph = ceph_step(step.raw, step.step_id, step.started)
    return StepParts(ceph.summary, ceph.warnings, ceph.events)


def osd_step(step: RawStep, window: tuple[float, float] | None) -> dict[str, Any]:
    """The OSDs' load over the step's window, where its health samples have their
    counters; else why the OSDs did not give them, if they were asked."""
    samples = read_samples(step.raw / HEALTH_FILE)
    loads = osd_loads(samples, window)
    if loads:
        return {"ceph_osds": [asdict(load) for load in loads]}
    unread = osd_perf_problem(samples)
    return {"ceph_osds_unread": unread} if unread else {}


def health_states(raw: Path) -> list[tuple[float, str | None]]:
    """The cluster's state in each of the step's health samples (phases.py)."""
    return states(read_samples(raw / HEALTH_FILE))


PLANE = Plane(
    "ceph",
    targets={"rbd": LazyTarget("harness.planes.ceph.target", "RbdFioTarget")},
    step_extras=[health_step],
    window_extras=[osd_step],
    phase_sources=[PhaseSource(health_states, WORDS)],
    removers=[
        # faults first: an OSD left stopped is started before the images are removed
        (lambda kind: kind == "ceph-fault", Lazy("harness.planes.ceph.faults", "undo_noted")),
        (lambda kind: kind.startswith("rbd-"), cleanup.remove_noted),
    ],
)
