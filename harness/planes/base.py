"""The contract every target follows: prepare, run one step with N consumers, clean up."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from harness.core.plan import Step
from harness.core.spec import CampaignSpec
from harness.core.store import CampaignStore

# Called about four times a second while a step runs: (elapsed seconds, live IOPS or None).
Tick = Callable[[float, float | None], None]


@dataclass
class StepOutcome:
    state: str  # done, failed or interrupted
    error: str = ""
    notes: list[str] = field(default_factory=list)


class Target(Protocol):
    backend: str  # label written into every record, e.g. "local:ext4:vda"

    def prepare(self, spec: CampaignSpec, store: CampaignStore) -> None:
        """Check the target can take the whole campaign; raise TargetError if not."""

    def run_step(
        self, step: Step, store: CampaignStore, stop: threading.Event, tick: Tick
    ) -> StepOutcome:
        """Run one step; raw output goes to store.raw_dir(step.id) untouched."""

    def cleanup(self, store: CampaignStore) -> list[str]:
        """Remove everything this target created for the campaign; return what went."""


class TargetError(RuntimeError):
    """The target cannot run the campaign as asked (the message says why and what)."""


def require_space(problem: str, needed: int, basis: str, available: int, counted: str = "") -> None:
    """Refuse a campaign that cannot fit: ``problem`` says where and what ran short."""
    if needed > available:
        raise TargetError(
            f"{problem}: it needs {needed / 2**30:.2f} GiB ({basis}), "
            f"{available / 2**30:.2f} GiB available{counted}"
        )
