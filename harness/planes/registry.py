"""Every plane in one table, read by the spine (campaign/) and the command line: the spec's
target types and their targets, the record builders `volperf reparse` runs on a step's raw
files, the planes' own CSV files, and the removers of what a campaign noted, in the order
they run. A new plane adds its `plane.py` here and nowhere else."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator
from functools import cache
from pathlib import Path
from typing import Any

from harness.core.spec import CampaignSpec
from harness.planes.base import PhaseSource, Plane, Remover, StepBuilder, Target, WindowExtra

# each plane's module, whose PLANE is its entry, imported when first asked for: a local
# campaign's first step does not wait for the cloud planes' modules. Removers run in this
# order: servers, files and directories first; Heat stacks before RBD images (Heat
# deletes their Cinder volumes itself)
PLANE_MODULES = (
    "harness.planes.local.plane",
    "harness.planes.hosts.plane",
    "harness.planes.heat.plane",
    "harness.planes.k8s.plane",
    "harness.planes.ceph.plane",
    "harness.planes.rally.plane",
    "harness.planes.openstack",
)


@cache
def _plane(module: str) -> Plane:
    plane: Plane = importlib.import_module(module).PLANE
    return plane


def planes() -> Iterator[Plane]:
    """Every plane, in the registry's order, each imported as the loop reaches it."""
    return (_plane(module) for module in PLANE_MODULES)


def make_target(spec: CampaignSpec) -> Target:
    """The target of the spec's target type."""
    for plane in planes():
        if spec.target.type in plane.targets:
            return plane.targets[spec.target.type](spec)
    raise KeyError(f"no plane runs target type {spec.target.type!r}")


def tool_step(tool: str) -> StepBuilder | None:
    """The builder of a step of this workload tool, if it is not fio's."""
    return next((p.tool_steps[tool] for p in planes() if tool in p.tool_steps), None)


def fio_step(raw: Path) -> StepBuilder | None:
    """The builder of a fio step whose consumers sent their own outputs, if raw/ is one."""
    found = (build for plane in planes() for is_own, build in plane.fio_steps if is_own(raw))
    return next(found, None)


def step_extras() -> list[StepBuilder]:
    return [extra for plane in planes() for extra in plane.step_extras]


def window_extras() -> list[WindowExtra]:
    return [extra for plane in planes() for extra in plane.window_extras]


def phase_sources() -> list[PhaseSource]:
    return [source for plane in planes() for source in plane.phase_sources]


def csv_files() -> dict[str, Callable[[list[Any]], str]]:
    return {name: write for plane in planes() for name, write in plane.csv_files.items()}


def removers() -> list[tuple[Callable[[str], bool], Remover]]:
    return [entry for plane in planes() for entry in plane.removers]
