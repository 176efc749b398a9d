"""The steps of a campaign and the consumers of each step, derived from its spec."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from harness.core.redact import redact
from harness.core.spec import READ_MODES, WRITE_MODES, CampaignSpec, Workload

# what each database test does to storage, for the reader/writer/mixed split of reports
_DB_ROLES = {
    "rndrd": "reader",
    "seqrd": "reader",
    "read_only": "reader",
    "rndwr": "writer",
    "seqwr": "writer",
    "write_only": "writer",
}


@dataclass(frozen=True)
class ConsumerPlan:
    name: str  # c01, c02 … stable across steps so files can be reused
    rw: str
    role: str  # reader, writer or mixed

    @property
    def jobname(self) -> str:
        return f"{self.name}-{self.rw}"

    def to_dict(self) -> dict[str, str]:
        """As a step's step.json lists it."""
        return {"name": self.name, "rw": self.rw, "role": self.role, "jobname": self.jobname}


@dataclass(frozen=True)
class Step:
    id: str
    index: int
    workload: Workload
    concurrency: int
    repeat: int
    threads: int | None = None  # database workloads: client threads of each consumer

    @property
    def consumers(self) -> list[ConsumerPlan]:
        return assign_consumers(self.workload, self.concurrency)

    def to_dict(self) -> dict[str, Any]:
        """As the step's step.json holds it (secrets in the workload redacted)."""
        return {
            "workload": redact(self.workload.model_dump(mode="json")),
            "concurrency": self.concurrency,
            "threads": self.threads,
            "repeat": self.repeat,
            "consumers": [c.to_dict() for c in self.consumers],
        }


def role_of(rw: str) -> str:
    if rw in READ_MODES:
        return "reader"
    if rw in WRITE_MODES:
        return "writer"
    return _DB_ROLES.get(rw, "mixed")


def modes_of(workload: Workload) -> list[str]:
    """fio's rw modes, or the one test a database workload runs (rndrw, read_write …)."""
    rw = getattr(workload, "rw", None)  # fio's modes, round-robin over its consumers
    return list(rw) if rw else [getattr(workload, "test", workload.tool)]


def assign_consumers(workload: Workload, count: int) -> list[ConsumerPlan]:
    """Consumers take the workload's rw modes in turn: [randread, randwrite] gives half
    readers and half writers running at the same time, as the reference method does."""
    width = max(2, len(str(count)))
    modes = modes_of(workload)
    return [
        ConsumerPlan(f"c{i + 1:0{width}d}", rw, role_of(rw))
        for i, rw in ((i, modes[i % len(modes)]) for i in range(count))
    ]


def plan_steps(
    spec: CampaignSpec, searched: Mapping[str, Sequence[int]] | None = None
) -> list[Step]:
    """Workloads in spec order, each swept over the consumer counts (and, for database
    workloads, over their thread counts), each repeated. A capacity search's counts are
    those it has tried so far, in the order it tried them (``searched``, by workload: the
    campaign keeps them, campaign/capacity.py); its workloads run at their rate as fio's
    rate_process asks, poisson unless the workload says."""
    steps: list[Step] = []
    for workload in spec.workloads:
        counts = spec.counts
        if spec.search is not None:
            counts = list((searched or {}).get(workload.name, []))
            if getattr(workload, "rate_process", None) is None:
                workload = workload.model_copy(update={"rate_process": "poisson"})
        threads: list[int | None] = list(getattr(workload, "threads", None) or [None])
        for concurrency in counts:
            for thread_count in threads:
                for repeat in range(1, spec.repeats + 1):
                    index = len(steps) + 1
                    step_id = f"{index:03d}-{workload.name}-c{concurrency:03d}"
                    if thread_count is not None:
                        step_id += f"-t{thread_count:03d}"
                    step_id += f"-r{repeat}"
                    steps.append(Step(step_id, index, workload, concurrency, repeat, thread_count))
    return steps
