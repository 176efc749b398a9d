"""Workloads in words, for the terminal and the report's method section."""

from __future__ import annotations

from typing import Any

from harness.core.spec import Sweep
from harness.core.workloads.registry import as_run, tool


def describe_workload(w: dict[str, Any], target_type: str | None) -> str:
    """The workload, as the spec's dict, in its tool's words, as the target type runs it
    (fio on rbd: fio's rbd engine, whatever its ioengine says)."""
    return tool(w.get("tool", "fio")).describe(as_run(w, target_type))


def expected_seconds(w: dict[str, Any]) -> float | None:
    """How long the measured part of a step should take, for progress bars."""
    return tool(w.get("tool", "fio")).expected_seconds(w)


def step_line(w: dict[str, Any], threads: int | None) -> str:
    """The short form the terminal shows when a step starts."""
    return tool(w.get("tool", "fio")).step_line(w, threads)


_STOP_RULES = {
    "no_space": lambda v: "a step runs out of space",
    "failures_above_pct": lambda v: f"more than {v:g} % of a step's consumers fail",
    "bound_p95_above_s": lambda v: f"PVCs take over {v:g} s to bind (p95)",
    "per_consumer_below_pct": lambda v: (
        f"throughput per consumer falls below {v:g} % of the first step's"
    ),
}


def describe_sweep(sweep: Any, steps: list[dict[str, Any]]) -> str:
    """The consumer counts of a stored spec's sweep, the rules that end it early and,
    for each workload whose sweep they ended, where and why."""
    if not isinstance(sweep, dict):
        return ", ".join(str(c) for c in sweep or [])
    if sweep.get("search"):
        tried = ", ".join(str(s["concurrency"]) for s in steps)
        return (
            f"a capacity search from {sweep['start']} to {sweep['max']} consumers "
            f"(the Capacity section says how), which tried {tried or 'none yet'}"
        )
    counts = ", ".join(str(c) for c in Sweep.model_validate(sweep).values())
    rules = [
        _STOP_RULES[name](value)
        for name, value in (sweep.get("stop_when") or {}).items()
        if name in _STOP_RULES and value not in (None, False)
    ]
    text = counts + (f", until {' or '.join(rules)}" if rules else "")
    for s in steps:
        if s.get("ended_sweep"):
            skipped = [
                str(o["concurrency"])
                for o in steps
                if o.get("state") == "skipped" and o.get("workload") == s["workload"]
            ]
            text += (
                f"; the sweep of {s['workload']} ended at {s['concurrency']} consumers "
                f"({s['ended_sweep']})"
            )
            if skipped:
                text += f", so {', '.join(skipped)} did not run"
    return text
