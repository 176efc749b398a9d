"""A step's result of fio's own steady-state detection (workload ``steadystate``): which
consumers attained it, at what value, and a warning naming those that did not."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from harness.records.aggregate import Warning
from harness.tools.fio.parse import FioJob


@dataclass(frozen=True)
class ConsumerSteadyState:
    attained: bool
    iops_mean: float  # over the last ss_dur seconds fio judged
    bw_mean_kib: float


@dataclass(frozen=True)
class StepSteadyState:
    criterion: str
    duration_s: int
    attained: int  # consumers that attained it
    consumers: dict[str, ConsumerSteadyState]  # jobname -> its result

    def warning(self) -> Warning | None:
        missed = sorted(name for name, c in self.consumers.items() if not c.attained)
        if not missed:
            return None
        return Warning(
            "not-steady",
            f"fio's steady state ({self.criterion} over {self.duration_s} s) was not attained "
            f"by {', '.join(missed)} within the runtime: their figures are of a run still "
            "changing",
        )


def step_steadystate(jobs: Sequence[FioJob]) -> StepSteadyState | None:
    """None when no job asked fio for steady-state detection."""
    results = {j.jobname: j.steadystate for j in jobs if j.steadystate is not None}
    if not results:
        return None
    consumers = {
        name: ConsumerSteadyState(r.attained, r.iops_mean, r.bw_mean_kib)
        for name, r in results.items()
    }
    first = next(iter(results.values()))
    attained = sum(c.attained for c in consumers.values())
    return StepSteadyState(first.criterion, first.duration_s, attained, consumers)
