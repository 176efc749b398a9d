"""A Rally step's records and summary, from its raw/rally.json alone (kept gzipped or
not; so `volperf reparse` rebuilds them): rally.csv rows, and per workload its
iterations, failures, durations and SLA verdicts; failed iterations and failed SLAs
become the step's warnings."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness.host.sampler import read_samples
from harness.planes.ceph.step import HEALTH_FILE
from harness.planes.rally.data_plane import data_plane_parts
from harness.planes.rally.faults import asked
from harness.planes.rally.lost_volumes import left_warnings
from harness.planes.rally.phases import phase_warnings, workload_phases
from harness.planes.rally.records import (
    CSV_FILE,
    RallyActionRecord,
    RallyReportMissing,
    RallyResultError,
    load_export,
    records_of,
    runner_of,
    scenario_of,
    workloads,
)
from harness.planes.rally.runner import HTML_REPORT, JSON_REPORT, TASK_FILE
from harness.planes.rally.service_states import STATES_FILE as SERVICE_STATES_FILE
from harness.records.aggregate import Warning
from harness.records.phases import faults_record
from harness.records.step import RawStep, StepParts


@dataclass
class RallyStepResult:
    summary: dict[str, Any] = field(default_factory=dict)
    records: list[RallyActionRecord] = field(default_factory=list)
    warnings: list[Warning] = field(default_factory=list)


def rally_step(raw: Path, step_id: str) -> RallyStepResult:
    try:
        document = load_export(raw / JSON_REPORT)  # rally.json, or rally.json.gz as kept
    except RallyReportMissing:
        return RallyStepResult()  # the task made no report: the step's status says why
    except RallyResultError as exc:
        return RallyStepResult(warnings=[Warning("unparseable-output", str(exc))])
    result = RallyStepResult(records=records_of(document, step_id))
    health = read_samples(raw / HEALTH_FILE)  # the plane's own samples, where it took them
    services = read_samples(raw / SERVICE_STATES_FILE)
    asked_of_each = asked(raw)  # the faults the plane's hooks were to give each workload
    tasks, summaries = [], []
    for task, workload in workloads(document):
        if task.get("uuid") not in tasks:
            tasks.append(task.get("uuid"))
        runner = runner_of(workload)
        failed = int(workload.get("failed_iteration_count") or 0)
        total = int(workload.get("total_iteration_count") or 0)
        scenario = scenario_of(workload)
        verdicts = workload.get("sla_results", {}).get("sla", [])
        slas = [
            {
                "criterion": s.get("criterion"),
                "success": s.get("success"),
                "detail": s.get("detail"),
            }
            for s in verdicts
        ]
        here = (task.get("uuid"), scenario, runner.get("concurrency"))
        totals = [
            r
            for r in result.records
            if r.action == "total" and (r.task, r.scenario, r.concurrency) == here
        ]
        actions = {
            r.action: {"median_s": r.median_s, "p95_s": r.p95_s, "success_pct": r.success_pct}
            for r in result.records
            if r.depth == 0 and (r.task, r.scenario, r.concurrency) == here
        }
        summaries.append(
            {
                "total_median_s": totals[0].median_s if totals else None,
                "total_p95_s": totals[0].p95_s if totals else None,
                "scenario": scenario,
                "concurrency": runner.get("concurrency"),
                "times": runner.get("times"),
                "iterations": total,
                "failed": failed,
                "load_duration": workload.get("load_duration"),
                "full_duration": workload.get("full_duration"),
                "pass_sla": bool(workload.get("pass_sla")),
                "sla": slas,
                "actions": actions,  # Rally's top-level actions and total, for compare
            }
        )
        faulted = workload_phases(workload, health, services)
        if faulted is not None:
            summaries[-1]["phases"] = faulted
            result.warnings += phase_warnings(scenario, faulted)
        result.warnings += _not_given(scenario, asked_of_each, faulted)
        if failed:
            errors = sorted({_error(i) for i in workload.get("data", []) if i.get("error")})
            message = f"{scenario}: {failed} of {total} iterations failed: {'; '.join(errors[:3])}"
            result.warnings.append(Warning("rally-failures", message))
        for sla in slas:
            if not sla["success"]:
                result.warnings.append(
                    Warning(
                        "rally-sla", f"{scenario}: SLA {sla['criterion']} failed: {sla['detail']}"
                    )
                )
    status = [t.get("status") for t in document["tasks"]]
    result.summary = {
        "rally": {
            "tasks": tasks,
            "status": status,
            "workloads": summaries,
            "html": f"raw/{HTML_REPORT}" if (raw / HTML_REPORT).exists() else None,
        }
    }
    if any(s not in ("finished", None) for s in status):
        message = (
            f"Rally task status {', '.join(map(str, status))} (aborted or crashed: "
            f"figures cover part of the task){_runner_error(raw / TASK_FILE)}"
        )
        result.warnings.append(Warning("rally-task", message))
    result.warnings += left_warnings(faults_record(raw))  # what the stops left, removed
    return result


def _not_given(
    scenario: str, asked_of_each: list[dict[str, Any]], faulted: dict[str, Any] | None
) -> list[Warning]:
    """A fault the plane asked for that the workload's hooks never gave (Rally fires a
    time trigger only while the workload runs)."""
    given = {(f["fault"], f["action"]) for f in (faulted or {}).get("faults", [])}
    return [
        Warning(
            "fault-not-given",
            f"{scenario}: fault {a['fault']} ({a['action']}): not given, the workload ended "
            f"before +{a['due_s']:g} s; its figures are not of the faults asked for",
        )
        for a in asked_of_each
        if (a["fault"], a["action"]) not in given
    ]


def _runner_error(noted: Path) -> str:
    """The last line of the error the runner noted for its task, as ": why"."""
    try:
        error = (json.loads(noted.read_text()).get("error") or "").strip()
    except (OSError, ValueError, AttributeError):
        return ""
    return f": {error.splitlines()[-1].strip()}" if error else ""


def _error(iteration: dict[str, Any]) -> str:
    error = iteration.get("error") or []
    return ": ".join(str(part) for part in error[:2]) if error else ""


def task_step(step: RawStep) -> StepParts:
    """A Rally step's parts: Rally's records and warnings, and its VMs' fio where the task
    ran the data plane (the registry's builder of a `rally` step)."""
    rally = rally_step(step.raw, step.step_id)
    vms = data_plane_parts(step.raw, step.step_id, step.backend)
    return StepParts(
        rally.summary,
        rally.warnings + vms.warnings,
        events=vms.events,
        fio_records=vms.fio_records,
        fio_outputs=vms.fio_outputs,
        rows={CSV_FILE: list(rally.records)},
    )
