"""The steps of a campaign and the consumers of each step, derived from its spec."""

from __future__ import annotations

from dataclasses import dataclass

from harness.spec import READ_MODES, WRITE_MODES, CampaignSpec, Workload


@dataclass(frozen=True)
class ConsumerPlan:
    name: str  # c01, c02 … stable across steps so files can be reused
    rw: str
    role: str  # reader, writer or mixed

    @property
    def jobname(self) -> str:
        return f"{self.name}-{self.rw}"


@dataclass(frozen=True)
class Step:
    id: str
    index: int
    workload: Workload
    concurrency: int
    repeat: int

    @property
    def consumers(self) -> list[ConsumerPlan]:
        return assign_consumers(self.workload, self.concurrency)


def role_of(rw: str) -> str:
    if rw in READ_MODES:
        return "reader"
    if rw in WRITE_MODES:
        return "writer"
    return "mixed"


def assign_consumers(workload: Workload, count: int) -> list[ConsumerPlan]:
    """Consumers take the workload's rw modes in turn: [randread, randwrite] gives half
    readers and half writers running at the same time, as the reference method does."""
    width = max(2, len(str(count)))
    return [
        ConsumerPlan(f"c{i + 1:0{width}d}", rw, role_of(rw))
        for i, rw in ((i, workload.rw[i % len(workload.rw)]) for i in range(count))
    ]


def plan_steps(spec: CampaignSpec) -> list[Step]:
    """Workloads in spec order, each swept over the consumer counts, each repeated."""
    steps: list[Step] = []
    for workload in spec.workloads:
        for concurrency in spec.sweep:
            for repeat in range(1, spec.repeats + 1):
                index = len(steps) + 1
                step_id = f"{index:03d}-{workload.name}-c{concurrency:03d}-r{repeat}"
                steps.append(Step(step_id, index, workload, concurrency, repeat))
    return steps
