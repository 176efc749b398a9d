"""A campaign's capacity search (sweep.search): the counts it has tried, kept in the
campaign's search.json before each step runs (a resumed campaign goes on where the first
run left it, and its steps are planned from them: core/plan.py), each step judged from its
summary (records/capacity.py), the next count chosen from those judged, and the answer,
which summary.json and the page state."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from harness.core.plan import Step, plan_steps
from harness.core.spec import CampaignSpec, Sweep
from harness.core.store import CampaignStore, atomic_write_json
from harness.records.capacity import (
    Capacity,
    Trial,
    answer,
    arrivals_warning,
    judge,
    next_count,
)

SEARCH_FILE = "search.json"


def searched(store: CampaignStore) -> dict[str, list[int]]:
    """The counts the search has tried so far, by workload, in the order it tried them."""
    path = store.root / SEARCH_FILE
    if not path.exists():
        return {}
    return {k: [int(c) for c in v] for k, v in json.loads(path.read_text())["tried"].items()}


def plan(spec: CampaignSpec, store: CampaignStore) -> list[Step]:
    """The campaign's steps: a search's, those it has tried so far."""
    return plan_steps(spec, searched(store) if spec.search is not None else None)


def _direction_figure(summary: Mapping[str, Any], name: str) -> float | None:
    """The worse of the step's directions' figure (each must meet the objective)."""
    values = [(summary.get(d) or {}).get(name) for d in ("read", "write") if summary.get(d)]
    return None if not values or None in values else max(values)


def trial_of(spec: CampaignSpec, step: Step, summary: Mapping[str, Any]) -> Trial:
    """A step of the search, judged from its summary."""
    assert spec.search is not None
    pace = summary.get("pace") or {}
    failed = ""
    if summary.get("state") != "done":
        failed = f"the step {summary.get('state')}: {summary.get('error') or 'no error given'}"
    return judge(
        spec.search,
        step.id,
        step.concurrency,
        _direction_figure(summary, "p99_merged"),
        _direction_figure(summary, "p50_merged"),
        pace.get("worst_achieved_pct"),
        sum(c["achieved_iops"] for c in pace.get("consumers", [])),
        pace.get("most_behind_s"),
        failed,
    )


def trials(
    spec: CampaignSpec, steps: Sequence[Step], summaries: Mapping[str, Mapping[str, Any]], name: str
) -> list[Trial]:
    """The workload's steps that ended (done or failed), judged, in the order they ran."""
    return [
        trial_of(spec, step, summaries[step.id])
        for step in steps
        if step.workload.name == name
        and step.id in summaries
        and summaries[step.id].get("state") in ("done", "failed")
    ]


def _sweep(spec: CampaignSpec) -> Sweep:
    assert isinstance(spec.sweep, Sweep) and spec.sweep.search is not None
    assert spec.sweep.start is not None and spec.sweep.max is not None
    return spec.sweep


def rate_of(spec: CampaignSpec, name: str) -> float:
    """What each consumer of the workload is asked for: its rate_iops, for each of its
    fio jobs."""
    workload = next(w for w in spec.workloads if w.name == name)
    return float(getattr(workload, "rate_iops", 0) * getattr(workload, "numjobs", 1))


def _next_count(spec: CampaignSpec, name: str, judged: Sequence[Trial]) -> int | None:
    sweep = _sweep(spec)
    assert spec.search is not None
    start, most = sweep.start or 1, sweep.max or 1
    return next_count(spec.search, start, sweep.factor, most, rate_of(spec, name), judged)


def warnings_of(spec: CampaignSpec, name: str) -> list[str]:
    """What limits how far the workload's search can be trusted, known before it runs."""
    assert spec.search is not None
    workload = next(w for w in spec.workloads if w.name == name)
    seconds = workload.runtime if getattr(workload, "mode", "time") == "time" else None
    process = getattr(workload, "rate_process", None) or "poisson"  # core/plan.py's default
    found = arrivals_warning(
        spec.search, rate_of(spec, name), seconds, process, _sweep(spec).max or 1
    )
    return [found] if found else []


def next_step(
    spec: CampaignSpec, store: CampaignStore, name: str, summaries: Mapping[str, Mapping[str, Any]]
) -> Step | None:
    """The workload's next step of the search, its count kept in search.json first; None
    once the search is over."""
    count = _next_count(spec, name, trials(spec, plan(spec, store), summaries, name))
    if count is None:
        return None
    tried = searched(store)
    tried.setdefault(name, []).append(count)
    atomic_write_json(store.root / SEARCH_FILE, {"tried": tried})
    return [s for s in plan(spec, store) if s.workload.name == name][-1]


def answers(
    spec: CampaignSpec,
    steps: Sequence[Step],
    summaries: Mapping[str, Mapping[str, Any]],
    unsettled: set[str],
) -> list[Capacity]:
    """What the search found for each workload so far; ``unsettled``: the ids of steps
    not yet settled (a search with one is not done)."""
    assert spec.search is not None
    found = []
    for workload in spec.workloads:
        name = workload.name
        judged = trials(spec, steps, summaries, name)
        mine = {s.id for s in steps if s.workload.name == name}
        done = _next_count(spec, name, judged) is None and not (mine & unsettled)
        most = _sweep(spec).max or 1
        found.append(
            answer(
                spec.search, name, rate_of(spec, name), most, judged, done, warnings_of(spec, name)
            )
        )
    return found
