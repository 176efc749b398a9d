"""A Rally task (or several) as a volperf campaign, for `rally task export --type volperf
--to results/NAME`: each task becomes a done step (a data-plane task, one per VM count)
whose raw/ holds its part of Rally's JSON export and Rally's HTML report of it (with the
phases of a workload given faults); rally.csv, fio.csv and
summary.json are rebuilt from them as for any campaign, so `volperf report` renders it and
`volperf compare` sets it against another."""

from __future__ import annotations

import datetime
import importlib.metadata
import json
from pathlib import Path
from typing import Any

from harness.campaign.environment import snapshot
from harness.campaign.rebuild import rebuild
from harness.core import secrets
from harness.core.plan import plan_steps
from harness.core.redact import redact
from harness.core.spec import validate
from harness.core.store import CampaignError, CampaignStore, StepStatus, atomic_write_json
from harness.planes.rally.phased_report import write_report
from harness.planes.rally.records import scenario_of, workloads
from harness.planes.rally.runner import DATA_PLANE_SCENARIO, HTML_REPORT, JSON_REPORT, TASK_FILE

EXPORTED_TASK = "exported"  # the workload's task: run by Rally, not by volperf


def _epoch(stamp: str | None) -> float | None:
    if not stamp:
        return None
    moment = datetime.datetime.fromisoformat(stamp)
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=datetime.UTC)  # Rally keeps UTC without a zone
    return moment.timestamp()


def vm_counts(tasks: list[dict[str, Any]]) -> list[int]:
    """The VM counts of data-plane tasks (their steps' sweep); none for other tasks."""
    scenarios = [
        (scenario_of(workload), workload["scenario"])
        for task in tasks
        for _, workload in workloads({"tasks": [task]})
    ]
    planes = {name == DATA_PLANE_SCENARIO for name, _ in scenarios}
    if planes == {True, False}:
        raise CampaignError(
            f"these tasks mix {DATA_PLANE_SCENARIO} with other scenarios: export the "
            "data-plane tasks to a campaign of their own (its steps are VM counts)"
        )
    if planes != {True}:
        return []
    return sorted({int(args[DATA_PLANE_SCENARIO].get("vm_count", 2)) for _, args in scenarios})


def subtasks_of(task: dict[str, Any], vm_count: int) -> list[dict[str, Any]]:
    """The subtasks of a data-plane task that ran ``vm_count`` VMs."""
    return [
        subtask
        for subtask in task.get("subtasks") or []
        if any(
            int(w["scenario"][DATA_PLANE_SCENARIO].get("vm_count", 2)) == vm_count
            for w in subtask.get("workloads") or []
        )
    ]


def write_campaign(destination: Path, document: dict[str, Any]) -> CampaignStore:
    """Write ``document`` (Rally's JSON export) as a new campaign: each step's part of it
    and Rally's HTML report of that part, with its workloads' phases where faults were
    given (planes/rally/phased_report.py)."""
    store = CampaignStore(destination)
    if store.exists():
        raise CampaignError(f"{destination} already holds a campaign: export to a new --to")
    tasks = document.get("tasks") or []
    if not tasks:
        raise CampaignError("nothing to export: no task in Rally's results")
    counts = vm_counts(tasks)
    workloads = [
        {
            "name": f"task-{task['uuid'][:8]}",
            "tool": "rally",
            "task": EXPORTED_TASK,
            "args": {"task_uuid": task["uuid"]},
        }
        for task in tasks
    ]
    env_name = tasks[0].get("env_name") or "rally"
    spec = validate(
        {
            "name": destination.name,
            "target": {"type": "openstack", "cloud": env_name},
            "workloads": workloads,
            "sweep": counts or [1],
            "labels": {"source": "rally task export"},
        },
        f"export to {destination}",
    )
    environment = snapshot(None)
    environment["tools"]["rally"] = importlib.metadata.version("rally")
    store.write_campaign(redact(spec.to_dict()), environment, f"openstack:{env_name}")
    steps = plan_steps(spec)
    for step, task in zip(steps, [t for t in tasks for _ in counts or [1]], strict=True):
        raw = store.raw_dir(step.id)
        raw.mkdir(parents=True, exist_ok=True)
        notes = [f"exported from Rally task {task['uuid']} ({task.get('status')})"]
        if counts:  # the step of a VM count: that count's subtasks
            task = {**task, "subtasks": subtasks_of(task, step.concurrency)}
            if not task["subtasks"]:
                notes.append(f"the task ran no workload of {step.concurrency} VMs")
        one = {**document, "tasks": [task]}
        (raw / JSON_REPORT).write_text(json.dumps(one, indent=2), encoding="utf-8")
        write_report(raw, JSON_REPORT, HTML_REPORT)
        (raw / TASK_FILE).write_text(json.dumps({"uuid": task["uuid"]}) + "\n")
        atomic_write_json(
            store.step_dir(step.id) / "step.json",
            {
                "workload": step.workload.model_dump(mode="json"),
                "concurrency": step.concurrency,
                "threads": None,
                "repeat": step.repeat,
                "consumers": [],
            },
        )
        store.write_status(
            StepStatus(
                step.id,
                "done",
                1,
                _epoch(task.get("created_at")),
                _epoch(task.get("updated_at")),
                notes=notes,
            )
        )
    rebuild(store)
    secrets.scrub_tree(store.root)
    return store
