"""Records of the application workloads that time their own phases (git, build, redis,
broker): apps.csv (one row per consumer, iteration and phase, as the workload's script
printed it; redis's rows also carry go-ycsb's figures of the phase, the broker's nats
bench's) and the step's figures under ``app``: each phase's mean and slowest time, the
mean time of a whole iteration (the seed study's "time"), the iterations that failed (its
"failed builds"); redis's and the broker's throughput summed over the consumers and per
consumer, and their latencies; on Kubernetes each project's PVC-bound time as an event."""

from __future__ import annotations

import statistics
from collections.abc import Iterable
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any

from harness.core.workloads.registry import tool as by_tag
from harness.host.process import read_output
from harness.records import APPS_CSV
from harness.records.aggregate import Warning
from harness.records.db import EventRecord, csv_text
from harness.records.step import RawStep, StepParts, read_json
from harness.tools.apps.parse import PHASES, AppOutputError, AppRun, Measured, parse

APP_DIR = "app"  # raw/app/: every consumer's output, and the source's line
SOURCE_OUT = "source.out"
PROJECTS_FILE = "projects.json"  # Kubernetes: what volperf saw of each project's PVC and pod


@dataclass(frozen=True)
class AppRecord:
    step: str
    tool: str  # git, build, redis, broker
    consumer: str
    concurrency: int
    iteration: int
    phase: str  # clone, tar, untar, rm; unpack, build, clean; load, run; publish, consume
    seconds: float
    ok: bool
    backend: str = ""
    repeat: int = 1
    # redis: go-ycsb's TOTAL of the phase (the operations that succeeded) and its errors;
    # broker: nats bench's messages, messages/s and publishing latencies
    operations: int | None = None
    ops_per_s: float | None = None
    latency_avg_ms: float | None = None
    latency_p95_ms: float | None = None
    latency_p99_ms: float | None = None
    failed_operations: int | None = None


def apps_csv(records: Iterable[AppRecord]) -> str:
    return csv_text([f.name for f in fields(AppRecord)], (asdict(r).values() for r in records))


def read_runs(raw: Path) -> dict[str, AppRun]:
    """Every consumer's parsed output in raw/app/, by consumer."""
    return {
        path.stem: parse(read_output(path))
        for path in sorted(raw.glob("*.out"))
        if path.name != SOURCE_OUT
    }


def iteration_seconds(run: AppRun, phases: tuple[str, ...]) -> list[float]:
    """The time of each iteration whose every phase ran and succeeded."""
    return [
        round(sum(p.seconds for p in done), 2)
        for done in run.iterations().values()
        if len(done) == len(phases) and all(p.ok for p in done)
    ]


def phase_figures(records: list[AppRecord], phases: tuple[str, ...]) -> dict[str, Any]:
    """Mean and slowest seconds of each phase over its successful runs."""
    figures: dict[str, Any] = {}
    for name in phases:
        times = [r.seconds for r in records if r.phase == name and r.ok]
        figures[f"{name}_s"] = round(statistics.fmean(times), 3) if times else None
        figures[f"{name}_s_max"] = max(times) if times else None
    return figures


def throughput_figures(
    measured: tuple[Measured, ...], iteration: int, phase: str
) -> dict[str, Any]:
    """A phase's figures in apps.csv from go-ycsb's or nats bench's TOTAL (empty when it
    measured none)."""
    here = [m for m in measured if m.iteration == iteration and m.phase == phase]
    total = next((m for m in here if m.operation == "TOTAL"), None)
    failed = sum(m.count for m in here if m.operation.endswith("_ERROR"))
    if total is None:
        return {"failed_operations": failed} if here else {}
    return {
        "operations": total.count,
        "ops_per_s": total.ops_per_s,
        "latency_avg_ms": _ms(total.avg_us),
        "latency_p95_ms": _ms(total.p95_us),
        "latency_p99_ms": _ms(total.p99_us),
        "failed_operations": failed,
    }


def _ms(us: float | None) -> float | None:
    return None if us is None else round(us / 1000, 6)


def _highest(values: list[float | None]) -> float | None:
    return max((v for v in values if v is not None), default=None)


def throughput_summary(tool: str, records: list[AppRecord]) -> dict[str, Any]:
    """Per phase: throughput summed over the consumers (each consumer's mean over its
    iterations) and per consumer, mean latency, the highest p95 and p99, failed operations."""
    figures: dict[str, Any] = {}
    for name in PHASES[tool]:
        rows = [r for r in records if r.phase == name and r.ops_per_s is not None]
        by_consumer: dict[str, list[float]] = {}
        for r in rows:
            by_consumer.setdefault(r.consumer, []).append(r.ops_per_s or 0.0)
        means = [statistics.fmean(v) for v in by_consumer.values()]
        figures[f"{name}_ops_s"] = round(sum(means), 1) if means else None
        figures[f"{name}_ops_s_per_consumer"] = round(statistics.fmean(means), 1) if means else None
        latencies = [r.latency_avg_ms for r in rows if r.latency_avg_ms is not None]
        figures[f"{name}_latency_avg_ms"] = (
            round(statistics.fmean(latencies), 3) if latencies else None
        )
        figures[f"{name}_p95_ms_max"] = _highest([r.latency_p95_ms for r in rows])
        figures[f"{name}_p99_ms_max"] = _highest([r.latency_p99_ms for r in rows])
        figures[f"{name}_failed_operations"] = sum(
            r.failed_operations or 0 for r in records if r.phase == name
        )
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


def app_step(step: RawStep) -> StepParts:
    tool = str(step.plan.get("workload", {}).get("tool"))
    phases = PHASES[tool]
    raw = step.raw / APP_DIR
    concurrency = int(step.plan.get("concurrency") or 0)
    repeat = int(step.plan.get("repeat") or 1)
    parts = StepParts()
    records: list[AppRecord] = []
    iterations: list[float] = []
    failed = failed_consumers = 0
    sources = [parse(read_output(raw / SOURCE_OUT)).source]  # the local target's line
    projects = read_json(raw / PROJECTS_FILE) or {}
    never_ran = _project_events(step.step_id, projects.get("projects", {}), parts)
    for consumer in [c["name"] for c in step.plan.get("consumers", [])]:
        try:
            run = None if consumer in never_ran else parse(read_output(raw / f"{consumer}.out"))
        except AppOutputError as exc:
            never_ran[consumer] = str(exc)
            run = None
        if run is None:
            parts.warnings.append(Warning(f"{tool}-failed", f"{consumer}: {never_ran[consumer]}"))
            failed += 1
            failed_consumers += 1
            continue
        records += [
            AppRecord(
                step.step_id,
                tool,
                consumer,
                concurrency,
                p.iteration,
                p.phase,
                p.seconds,
                p.ok,
                step.backend,
                repeat,
                **throughput_figures(run.measured, p.iteration, p.phase),
            )
            for p in run.phases
        ]
        iterations += iteration_seconds(run, phases)
        failed_here = run.failed_iterations()
        failed += failed_here
        failed_consumers += bool(failed_here)
        sources.append(run.source)
        for error in run.errors:
            parts.warnings.append(Warning(f"{tool}-failed", f"{consumer}: {error}"))
    if projects:
        parts.summary["storage_class"] = projects.get("storage_class")
    parts.summary["app"] = {
        "tool": tool,
        # a pod prints the line of the source it made before its phases
        "source": next((source for source in sources if source), {}),
        "iterations": len(iterations),
        "iteration_s": round(statistics.fmean(iterations), 3) if iterations else None,
        "iteration_s_max": max(iterations) if iterations else None,
        **phase_figures(records, phases),
        "failed": failed,
        "failed_consumers": failed_consumers,
        **(throughput_summary(tool, records) if by_tag(tool).throughput else {}),
    }
    parts.rows[APPS_CSV] = records
    return parts
