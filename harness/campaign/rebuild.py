"""A campaign's record files and summary.json rebuilt from its steps' raw output: made in
memory (rebuilt: what a page or a comparison reads, which never writes into the campaign
folder) and written only by what is to rewrite them (rebuild: `volperf reparse`, and the
runner after every step)."""

from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from harness import __version__
from harness.campaign import capacity
from harness.campaign.results import StepResult, build_step
from harness.core.redact import redact
from harness.core.spec import validate
from harness.core.store import CampaignStore, atomic_write_json, atomic_write_text
from harness.core.workloads.registry import families
from harness.planes import registry
from harness.records.db import db_csv, events_csv
from harness.records.fio import fio_csv
from harness.records.node_load import nodes_csv
from harness.records.repeats import repeat_spreads

SUMMARY_FILE = "summary.json"


@dataclass
class Rebuilt:
    """A campaign's records as its raw output gives them, nothing written."""

    results: list[StepResult]
    files: dict[str, str | None]  # record file -> its text; None: no such records (no file)
    summary: dict[str, Any]  # summary.json's document (redacted)


def rebuilt(store: CampaignStore) -> Rebuilt:
    """Re-derive every step's records and aggregates, and the record files' texts."""
    document = store.read_campaign()
    spec = validate(document["spec"], str(store.campaign_file))
    backend = document.get("backend") or spec.labels.get("backend", spec.target.type)
    results = []
    steps = capacity.plan(spec, store)
    for step in steps:
        rate_iops = getattr(step.workload, "rate_iops", None)
        results.append(build_step(store, step.id, backend, rate_iops))
    records = [r for result in results for r in result.records]
    runs_fio = "fio" in families(spec.workloads)
    db_records = [r for result in results for r in result.db_records]
    events = [e for result in results for e in result.events]
    loads = [(result.summary["step"], load) for result in results for load in result.nodes]
    files: dict[str, str | None] = {
        "fio.csv": fio_csv(records) if records or runs_fio else None,
        "db.csv": db_csv(db_records) if db_records else None,
        "events.csv": events_csv(events) if events else None,
        "nodes.csv": nodes_csv(loads) if loads else None,
    }
    for name, write in registry.csv_files().items():
        rows = [row for result in results for row in result.rows.get(name, [])]
        files[name] = write(rows) if rows else None
    summary = {
        "campaign": spec.name,
        "generated": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "volperf": __version__,
        "labels": spec.labels,
        "steps": [r.summary for r in results],
        "repeats": [
            {**asdict(r), "flagged": r.flagged}
            for r in repeat_spreads([r.summary for r in results])
        ],
    }
    if spec.search is not None:
        unsettled = {s.id for s in steps if not store.read_status(s.id).settled}
        summaries = {r.summary["step"]: r.summary for r in results}
        found = capacity.answers(spec, steps, summaries, unsettled)
        summary["capacity"] = [f.to_json() for f in found]
    return Rebuilt(results, files, json.loads(json.dumps(redact(summary))))


def rebuild(store: CampaignStore) -> list[StepResult]:
    """Re-derive every step's records and aggregates and rewrite fio.csv, summary.json."""
    made = rebuilt(store)
    for name, text in made.files.items():
        _write_if_any(store.root / name, text)
    _write_summary(store.root / SUMMARY_FILE, made.summary)
    return made.results


def _write_if_any(path: Path, text: str | None) -> None:
    """A record file exists only when the campaign has such records."""
    if text is None:
        path.unlink(missing_ok=True)
    else:
        atomic_write_text(path, text)


def _write_summary(path: Path, summary: dict[str, Any]) -> None:
    """summary.json, unless it already says the same but for when it was generated (a
    campaign rebuilt again with nothing new keeps its file as it is)."""
    try:
        old = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        old = None
    if isinstance(old, dict) and {**old, "generated": summary["generated"]} == summary:
        return
    atomic_write_json(path, summary)
