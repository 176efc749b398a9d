"""Rally's own HTML report of a step, with the phases added to each workload given faults:
made from RAW/rally.json (Rally's JSON export, left as Rally wrote it) through Rally's own
loader and html-static exporter (what `rally task report rally.json` does), after volperf
adds to the workload

- in the Hooks tab, to the output of its first fault hook's first firing: a table
  "volperf phases" (each phase by the backend's own state, its iterations, failures and
  Rally's durations; the time from the first fault to healed) and the step's warnings
  about the faults and phases, each saying volperf added them after the task and from
  which samples;
- under the workload's title (its description, which the report shows first): the
  backend-phases warning, the one the console, summary.json and the campaign page carry,
  and the warnings of the RBD images Cinder lost in a stopped service's hands (RAW/
  faults.json's images_left: the step's end writes the report again when it found some).

The samples are the plane's (RAW/openstack-services.jsonl, RAW/ceph-health.jsonl), else the
volperf_ceph_health hook's in the task itself, as for the step's summary
(planes/rally/phases.py). Imports Rally: the runner calls it, in its own process."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from harness.host.sampler import read_samples
from harness.planes.ceph.step import HEALTH_FILE
from harness.planes.rally.lost_volumes import WARNING_CODE as LEFT_CODE
from harness.planes.rally.lost_volumes import left_warnings
from harness.planes.rally.phases import (
    FAULT_TITLE,
    SERVICE_FAULT_TITLE,
    phase_warnings,
    workload_phases,
)
from harness.planes.rally.service_states import STATES_FILE as SERVICE_STATES_FILE
from harness.records.aggregate import Warning
from harness.records.phases import faults_record

PHASES_TITLE = "volperf phases"
WARNINGS_TITLE = "volperf warnings"
COLUMNS = ["state", "from (s)", "seconds", "iterations", "failed", "median (s)", "slowest (s)"]


def write_report(raw: Path, json_report: str, html_report: str) -> Path:
    """RAW/``html_report``: Rally's html-static report of RAW/``json_report`` with the phases
    of each workload given faults (the page carries its scripts: it opens offline)."""
    from rally.cli import task_results_loader
    from rally.plugins.task.exporters.html import HTMLStaticExporter
    from rally.task import exporter

    tasks = task_results_loader.load(str(raw / json_report))
    health = read_samples(raw / HEALTH_FILE)
    services = read_samples(raw / SERVICE_STATES_FILE)
    left = left_warnings(faults_record(raw))
    for task in tasks:
        for subtask in task["subtasks"]:
            for workload in subtask["workloads"]:
                _hooks_as_rally_keeps_them(workload)
                add_phases(workload, health, services, left)
    path = raw / html_report
    report = exporter.TaskExporter.make(HTMLStaticExporter, tasks, str(path))
    for name, content in report["files"].items():
        Path(name).write_text(content, encoding="utf-8")
    return path


def add_phases(
    workload: dict[str, Any],
    health: list[dict[str, Any]],
    services: list[dict[str, Any]],
    left: Sequence[Warning] = (),
) -> None:
    """Add the workload's phases and their warnings (and ``left``'s, the step's images
    left) to its first fault hook's output and its backend-phases warning (and ``left``)
    to its description (a workload as Rally's loader gives it, its scenario under
    "name"); nothing when no fault was given during it."""
    # phases.py reads a workload as Rally's JSON export has it: its scenario by name
    faulted = workload_phases(workload, health, services)
    if faulted is None:
        return
    warnings = [*phase_warnings(workload["name"], faulted), *left]
    fired = first_fault_firing(workload)
    if fired is not None:
        complete = fired.setdefault("output", {}).setdefault("complete", [])
        complete.append(phases_table(faulted))
        if warnings:
            complete.append(warnings_text(warnings))
    said = [w.message for w in warnings if w.code in ("backend-phases", LEFT_CODE)]
    if said:
        before = (workload.get("description") or "").rstrip()
        workload["description"] = "\n\n".join(
            [
                *([before] if before else []),
                *(f"volperf warning: {s} (Hooks: {PHASES_TITLE})" for s in said),
            ]
        )


def first_fault_firing(workload: dict[str, Any]) -> dict[str, Any] | None:
    """The result of the fault hooks' firing that began first (the one the report's Hooks
    tab opens on), whose output the phases join."""
    firings = [
        result
        for hook in workload.get("hooks") or []
        for result in hook.get("results") or []
        if any(
            output.get("title") in (FAULT_TITLE, SERVICE_FAULT_TITLE)
            for output in (result.get("output") or {}).get("complete") or []
        )
    ]
    return min(firings, key=lambda r: r.get("started_at") or 0, default=None)


def phases_table(faulted: dict[str, Any]) -> dict[str, Any]:
    """Rally's Table output of the phases (its columns and rows as they are)."""
    healed = faulted["fault_to_healed_s"]
    return {
        "title": PHASES_TITLE,
        "description": (
            f"Added by volperf after the task: the workload's phases by {faulted['backend']}'s "
            f"own state ({faulted['health_samples']} samples), the iterations that started in "
            "each, as Rally timed them; from the first fault to healed: "
            + ("not healed within the workload" if healed is None else f"{healed:.1f} s")
        ),
        "chart_plugin": "Table",
        "data": {
            "cols": COLUMNS,
            "rows": [
                [
                    p["state"],
                    p["start_s"],
                    p["seconds"],
                    p["iterations"],
                    p["failed"],
                    "-" if p["median_s"] is None else p["median_s"],
                    "-" if p["max_s"] is None else p["max_s"],
                ]
                for p in faulted["phases"]
            ],
        },
    }


def warnings_text(warnings: list[Warning]) -> dict[str, Any]:
    return {
        "title": WARNINGS_TITLE,
        "description": "Added by volperf after the task: what its summary warns of",
        "chart_plugin": "TextArea",
        "data": [f"{w.code}: {w.message}" for w in warnings],
    }


def _hooks_as_rally_keeps_them(workload: dict[str, Any]) -> None:
    """Rally 5.1's loader of a JSON export leaves each hook's action and trigger as the
    export's one-key dicts; its exporters read them as (name, args) pairs, as its database
    keeps them (without this, `rally task report` of an export with hooks raises)."""
    for hook in workload.get("hooks") or []:
        config = hook.get("config") or {}
        for key in ("action", "trigger"):
            if isinstance(config.get(key), dict):
                config[key] = next(iter(config[key].items()))


if __name__ == "__main__":  # RAW JSON HTML: the step's end, the report again with the images left
    import sys

    write_report(Path(sys.argv[1]), sys.argv[2], sys.argv[3])
