"""Records of the git workload: git.csv (one row per consumer, iteration and phase, as
workload.sh printed it) and the step's figures: each phase's mean and slowest time, the
mean time of a whole iteration (the seed study's "time"), and the phases that failed."""

from __future__ import annotations

import json
import statistics
from collections.abc import Iterable
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any

from harness.host.process import read_output
from harness.records.aggregate import Warning
from harness.records.db import EventRecord, csv_text
from harness.records.step import RawStep, StepParts
from harness.tools.git.parse import PHASES, GitOutputError, GitRun, parse

GIT_DIR = "git"  # raw/git/: every consumer's output, and the repository's line
REPO_OUT = "repo.out"
PROJECTS_FILE = "projects.json"  # Kubernetes: what volperf saw of each project's PVC and pod
GIT_CSV = "git.csv"


@dataclass(frozen=True)
class GitRecord:
    step: str
    consumer: str
    concurrency: int
    iteration: int
    phase: str  # clone, tar, untar, rm
    seconds: float
    ok: bool
    backend: str = ""
    repeat: int = 1


def git_csv(records: Iterable[GitRecord]) -> str:
    return csv_text([f.name for f in fields(GitRecord)], (asdict(r).values() for r in records))


def _json(path: Path) -> dict[str, Any]:
    text = read_output(path)
    return json.loads(text) if text else {}


def read_runs(raw: Path) -> dict[str, GitRun]:
    """Every consumer's parsed output in raw/git/, by consumer."""
    return {
        path.stem: parse(read_output(path))
        for path in sorted(raw.glob("*.out"))
        if path.name != REPO_OUT
    }


def iteration_seconds(run: GitRun) -> list[float]:
    """The time of each iteration whose every phase ran and succeeded."""
    by_iteration: dict[int, list[float]] = {}
    for phase in run.phases:
        by_iteration.setdefault(phase.iteration, []).append(phase.seconds if phase.ok else -1)
    return [
        round(sum(times), 2)
        for times in by_iteration.values()
        if len(times) == len(PHASES) and min(times) >= 0
    ]


def phase_figures(records: list[GitRecord]) -> dict[str, Any]:
    """Mean and slowest seconds of each phase over its successful runs."""
    figures: dict[str, Any] = {}
    for name in PHASES:
        times = [r.seconds for r in records if r.phase == name and r.ok]
        figures[f"{name}_s"] = round(statistics.fmean(times), 3) if times else None
        figures[f"{name}_s_max"] = max(times) if times else None
    return figures


def _project_events(
    step_id: str, projects: dict[str, dict[str, Any]], parts: StepParts
) -> dict[str, str]:
    """Kubernetes: each project's PVC-bound time (from volperf's create request) as an
    event; the projects whose pod never ran, with why."""
    errors = {}
    for index, (consumer, seen) in enumerate(projects.items(), start=1):
        created, bound = seen.get("created_ms"), seen.get("bound_ms")
        if created is not None:
            seconds = (bound - created) / 1000 if bound is not None else None
            detail = "" if bound is not None else str(seen.get("error", "never bound"))
            parts.events.append(
                EventRecord(step_id, consumer, "k8s pvc-bound", index, created, seconds, detail)
            )
        if seen.get("error"):
            errors[consumer] = str(seen["error"])
        if seen.get("namespace_left"):
            parts.warnings.append(
                Warning(
                    "k8s-namespace",
                    f"namespace {seen.get('namespace')}: its pods or PVCs were still being "
                    "deleted when the step ended",
                )
            )
    return errors


def git_step(step: RawStep) -> StepParts:
    raw = step.raw / GIT_DIR
    concurrency = int(step.plan.get("concurrency") or 0)
    parts = StepParts()
    records: list[GitRecord] = []
    iterations: list[float] = []
    failed = 0
    failed_consumers = 0
    projects = _json(raw / PROJECTS_FILE).get("projects", {})
    never_ran = _project_events(step.step_id, projects, parts)
    for consumer in [c["name"] for c in step.plan.get("consumers", [])]:
        if consumer in never_ran:
            parts.warnings.append(Warning("git-failed", f"{consumer}: {never_ran[consumer]}"))
            failed_consumers += 1
            continue
        try:
            run = parse(read_output(raw / f"{consumer}.out"))
        except GitOutputError as exc:
            parts.warnings.append(Warning("git-output", f"{consumer}: {exc}"))
            failed += 1
            failed_consumers += 1
            continue
        records += [
            GitRecord(
                step.step_id,
                consumer,
                concurrency,
                p.iteration,
                p.phase,
                p.seconds,
                p.ok,
                step.backend,
                int(step.plan.get("repeat") or 1),
            )
            for p in run.phases
        ]
        iterations += iteration_seconds(run)
        failed += run.failed + (not run.finished and not run.failed)
        failed_consumers += bool(run.failed or not run.finished)
        for error in run.errors:
            parts.warnings.append(Warning("git-failed", f"{consumer}: {error}"))
    repo = parse(read_output(raw / REPO_OUT)).repo
    if projects:
        parts.summary["storage_class"] = _json(raw / PROJECTS_FILE).get("storage_class")
    parts.summary = {
        **parts.summary,
        "git": {
            "repo": repo,
            "iterations": len(iterations),
            "iteration_s": round(statistics.fmean(iterations), 3) if iterations else None,
            "iteration_s_max": max(iterations) if iterations else None,
            **phase_figures(records),
            "failed": failed,
            "failed_consumers": failed_consumers,
        },
    }
    parts.rows[GIT_CSV] = records
    return parts
