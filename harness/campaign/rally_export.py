"""A Rally task (or several) as a volperf campaign, for `rally task export --type volperf
--to results/NAME`: each task becomes a done step whose raw/ holds Rally's JSON export and
its HTML report, and rally.csv and summary.json are rebuilt from them as for any campaign,
so `volperf report` renders it and `volperf compare` sets it against another."""

from __future__ import annotations

import datetime
import importlib.metadata
import json
from pathlib import Path
from typing import Any

from harness.campaign.environment import snapshot
from harness.campaign.results import rebuild
from harness.core import secrets
from harness.core.plan import plan_steps
from harness.core.redact import redact
from harness.core.spec import validate
from harness.core.store import CampaignError, CampaignStore, StepStatus, atomic_write_json
from harness.planes.rally.runner import HTML_REPORT, JSON_REPORT, TASK_FILE

EXPORTED_TASK = "exported"  # the workload's task: run by Rally, not by volperf


def _epoch(stamp: str | None) -> float | None:
    if not stamp:
        return None
    moment = datetime.datetime.fromisoformat(stamp)
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=datetime.UTC)  # Rally keeps UTC without a zone
    return moment.timestamp()


def write_campaign(destination: Path, document: dict[str, Any], html: str) -> CampaignStore:
    """Write ``document`` (Rally's JSON export) and its HTML report as a new campaign."""
    store = CampaignStore(destination)
    if store.exists():
        raise CampaignError(f"{destination} already holds a campaign: export to a new --to")
    tasks = document.get("tasks") or []
    if not tasks:
        raise CampaignError("nothing to export: no task in Rally's results")
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
            "sweep": [1],
            "labels": {"source": "rally task export"},
        },
        f"export to {destination}",
    )
    environment = snapshot(None)
    environment["tools"]["rally"] = importlib.metadata.version("rally")
    store.write_campaign(redact(spec.to_dict()), environment, f"openstack:{env_name}")
    for step, task in zip(plan_steps(spec), tasks, strict=True):
        raw = store.raw_dir(step.id)
        raw.mkdir(parents=True, exist_ok=True)
        one = {**document, "tasks": [task]}
        (raw / JSON_REPORT).write_text(json.dumps(one, indent=2), encoding="utf-8")
        (raw / HTML_REPORT).write_text(html, encoding="utf-8")
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
                notes=[f"exported from Rally task {task['uuid']} ({task.get('status')})"],
            )
        )
    rebuild(store)
    secrets.scrub_tree(store.root)
    return store
