"""The contract every target follows (prepare, run one step with N consumers, release
what it holds) and the entry each plane makes in the registry (planes/registry.py)."""

from __future__ import annotations

import importlib
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from harness.core.plan import Step
from harness.core.spec import CampaignSpec
from harness.core.store import CampaignStore

if TYPE_CHECKING:  # the records' modules load when a step's records are built
    from harness.records.step import RawStep, StepParts

# Called about four times a second while a step runs: (elapsed seconds, live IOPS or None).
Tick = Callable[[float, float | None], None]


@dataclass
class StepOutcome:
    state: str  # done, failed or interrupted
    error: str = ""
    notes: list[str] = field(default_factory=list)


class Target(Protocol):
    backend: str  # label written into every record, e.g. "local:ext4:vda"
    # the folder under test on this host, whose file system and device the campaign's
    # environment describes; None where the storage is not a folder here
    path: Path | None
    # optional, set by prepare: what it will do beyond the steps' tools (the faults it
    # injects, and their commands), told before any step starts
    # announcements: list[str]
    # optional, set by prepare: the backend's own settings that shape its figures, as it
    # said them at the campaign's start (Ceph's OSD scheduler and mClock profile)
    # backend_settings: dict[str, str]

    def tool_versions(self) -> dict[str, str]:
        """The programs it runs beside fio (fio's own is in every environment) and their
        versions, for the campaign's environment."""

    def prepare(self, spec: CampaignSpec, store: CampaignStore) -> None:
        """Check the target can take the whole campaign; raise TargetError if not."""

    def run_step(
        self, step: Step, store: CampaignStore, stop: threading.Event, tick: Tick
    ) -> StepOutcome:
        """Run one step; raw output goes to store.raw_dir(step.id) untouched."""

    def cleanup(self, store: CampaignStore) -> list[str]:
        """Release what only this target holds (its running servers) at the campaign's end;
        what went. The campaign then removes everything noted in created.json."""


class TargetError(RuntimeError):
    """The target cannot run the campaign as asked (the message says why and what)."""


def require_space(problem: str, needed: int, basis: str, available: int, counted: str = "") -> None:
    """Refuse a campaign that cannot fit: ``problem`` says where and what ran short."""
    if needed > available:
        raise TargetError(
            f"{problem}: it needs {needed / 2**30:.2f} GiB ({basis}), "
            f"{available / 2**30:.2f} GiB available{counted}"
        )


@dataclass(frozen=True)
class Lazy:
    """The function or class ``name`` of ``module``, imported when first called: a plane
    names its record builders so, and its target (below), so that making one plane's target
    at a campaign's start loads neither the other planes' clients nor the records' modules
    (which a step needs only once it has run)."""

    module: str
    name: str

    def load(self) -> Any:
        return getattr(importlib.import_module(self.module), self.name)

    def __call__(self, *args: Any) -> Any:
        return self.load()(*args)


@dataclass(frozen=True)
class LazyTarget(Lazy):
    """The target class ``name`` of ``module``, imported when a campaign makes it: a
    plane's target imports its clients (kubernetes, openstacksdk, librados …), which a
    campaign of another plane, `volperf reparse` or `volperf report` need not load."""

    def __call__(self, spec: CampaignSpec) -> Target:
        made: Target = self.load()(spec)
        return made


# A plane's parts, as the registry holds them
StepBuilder = Callable[["RawStep"], "StepParts"]  # a step's raw files -> its records
Remover = Callable[[CampaignStore, dict[str, dict[str, Any]]], list[str]]  # notes -> lines
# a step's raw files and its measured window (or None) -> entries of its summary
WindowExtra = Callable[["RawStep", tuple[float, float] | None], dict[str, Any]]
# a step's raw/ -> the backend's state sample by sample, (time, records/phases.py's state
# or None where it did not say): the step's phases
PhaseStates = Callable[[Path], list[tuple[float, str | None]]]


@dataclass(frozen=True)
class PhaseSource:
    """Where a plane reads its backend's state through a step (its phases)."""

    read: PhaseStates
    words: str  # what each state means there, and how it is sampled: for the page


@dataclass(frozen=True)
class Plane:
    """Everything the spine needs of one plane, so that it carries no per-plane code."""

    name: str
    # the spec's target type -> the target that runs its steps
    targets: Mapping[str, Callable[[CampaignSpec], Target]] = field(default_factory=dict)
    # a workload tool whose steps only this plane's builder reads -> that builder
    tool_steps: Mapping[str, StepBuilder] = field(default_factory=dict)
    # fio steps whose consumers sent their own fio outputs back: (recognise raw/, builder)
    fio_steps: Sequence[tuple[Callable[[Path], bool], StepBuilder]] = ()
    # raw files any step may have beside its tool's (Ceph health): builders
    step_extras: Sequence[StepBuilder] = ()
    # figures over a step's measured window (its fio runs, else None) from raw files any
    # step may have beside its tool's (the Ceph OSDs' perf counters): summary entries
    window_extras: Sequence[WindowExtra] = ()
    # the backend's own state through a step, where the plane samples it (Ceph's PGs,
    # Kubernetes' nodes)
    phase_sources: Sequence[PhaseSource] = ()
    # the plane's own CSV file -> how its rows (StepParts.rows) are written
    csv_files: Mapping[str, Callable[[list[Any]], str]] = field(default_factory=dict)
    # created.json kinds -> how what a campaign noted of them is removed, in this order
    removers: Sequence[tuple[Callable[[str], bool], Remover]] = ()
