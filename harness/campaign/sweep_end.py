"""Where an open-ended sweep ends: after each step the spec's stop rules are held against
its results (records/sweep_stop.py); the step whose rule held keeps the reason in its
status (ended_sweep), and the workload's later steps are skipped, saying why. Read back
from the statuses, so a resumed campaign goes on as the first run left it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from harness.core.plan import Step
from harness.core.spec import CampaignSpec
from harness.core.store import CampaignStore, atomic_write_json

if TYPE_CHECKING:  # the records' modules load once a step has run, not at the start
    from harness.campaign.results import StepResult
    from harness.records.sweep_stop import StepFigures


def figures(result: StepResult) -> StepFigures:
    """What the stop rules read of a step's result."""
    from harness.records.sweep_stop import step_figures

    return step_figures(result.summary, result.records, result.db_records, result.events)


def first_of_sweep(steps: Sequence[Step], step: Step) -> Step:
    """The step the sweep's figures are held against: the workload's first, at the same
    threads."""
    return next(
        s for s in steps if s.workload.name == step.workload.name and s.threads == step.threads
    )


def reason_to_end(
    spec: CampaignSpec, steps: Sequence[Step], step: Step, results: Mapping[str, StepResult]
) -> str | None:
    """Why the sweep of ``step``'s workload ends after it, or None (no rules, or none held;
    an interrupted step decides nothing)."""
    rules = spec.stop_when
    result = results.get(step.id)
    if rules is None or result is None or result.summary["state"] not in ("done", "failed"):
        return None
    from harness.records.sweep_stop import stop_reason

    first = results.get(first_of_sweep(steps, step).id, result)
    return stop_reason(rules, figures(result), figures(first))


def ended_sweeps(store: CampaignStore, steps: Sequence[Step]) -> dict[str, tuple[Step, str]]:
    """Each workload whose sweep has ended: the step where, and why."""
    ended: dict[str, tuple[Step, str]] = {}
    for step in steps:
        reason = store.read_status(step.id).ended_sweep
        if reason and step.workload.name not in ended:
            ended[step.workload.name] = (step, reason)
    return ended


def end_sweep(store: CampaignStore, step: Step, reason: str) -> None:
    status = store.read_status(step.id)
    status.ended_sweep = reason
    store.write_status(status)


def skip(store: CampaignStore, step: Step, ended_at: Step, reason: str) -> None:
    """A step the ended sweep does not run (its plan kept, as for any step)."""
    atomic_write_json(store.step_dir(step.id) / "step.json", step.to_dict())
    status = store.read_status(step.id)
    status.state = "skipped"
    status.error = (
        f"not run: the sweep of {step.workload.name} ended at {ended_at.concurrency} "
        f"consumers ({ended_at.id}): {reason}"
    )
    store.write_status(status)
