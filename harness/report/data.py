"""Everything a report page shows, loaded from a campaign directory.

A measured campaign is rebuilt from raw/ first (so the page can never disagree with the
raw output), in memory: its record files are what the page shows and offers, and nothing
is written into the campaign's folder (a campaign kept in the repository stays as it is
when the docs are built); a reference campaign (published figures, no raw output) is
read as stored.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from harness.campaign.rebuild import SUMMARY_FILE, rebuilt
from harness.campaign.results import record_files
from harness.core.redact import redact
from harness.core.store import CampaignStore
from harness.planes.rally.records import CSV_FILE as RALLY_CSV
from harness.planes.rally.records import rally_csv_rows
from harness.records.compare import ComparedCampaign
from harness.records.db import EventRecord
from harness.records.fio import FioConsumerRecord
from harness.records.method import CampaignMethod
from harness.report.reference import reference_steps


@dataclass
class CampaignData:
    name: str
    store: CampaignStore
    spec: dict[str, Any]
    environment: dict[str, Any]
    backend: str
    steps: list[dict[str, Any]]
    records: dict[str, list[FioConsumerRecord]] = field(default_factory=dict)
    reference: dict[str, Any] | None = None  # source of published figures
    events: dict[str, list[EventRecord]] = field(default_factory=dict)  # by step
    capacity: list[dict[str, Any]] = field(default_factory=list)  # a search's answers
    # each record file the campaign has (fio.csv, rally.csv, … summary.json) -> its text:
    # as rebuilt from raw/ (not as the folder keeps it), as stored for a reference one
    files: dict[str, str] = field(default_factory=dict)

    @property
    def workloads(self) -> list[str]:
        names: list[str] = []
        for step in self.steps:
            if step.get("workload") not in names:
                names.append(step.get("workload"))
        return names

    def rally_rows(self) -> list[dict[str, str]]:
        """rally.csv's rows (strings), none where the campaign has no Rally step."""
        text = self.files.get(RALLY_CSV)
        return rally_csv_rows(text, f"{self.name}/{RALLY_CSV}") if text else []

    def compared(self) -> ComparedCampaign:
        """What `volperf compare` reads: the steps and how they were measured."""
        method = CampaignMethod.of(self.spec, self.backend, self.environment)
        return ComparedCampaign(self.name, self.steps, method, self.capacity)

    def steps_of(self, workload: str) -> list[dict[str, Any]]:
        """The workload's steps that ran (not those an ended sweep skipped)."""
        return [
            s for s in self.steps if s.get("workload") == workload and s.get("state") != "skipped"
        ]


def load(store: CampaignStore) -> CampaignData:
    """The campaign as its page shows it; reads the campaign folder, never writes to it."""
    document = store.read_campaign()
    reference = document.get("reference")
    records: dict[str, list[FioConsumerRecord]] = {}
    events: dict[str, list[EventRecord]] = {}
    if reference:
        steps = reference_steps(store.root, reference, document.get("spec", {}))
        files = {
            name: (store.root / name).read_text(encoding="utf-8")
            for name in record_files()
            if (store.root / name).is_file()
        }
        summary = json.loads(files[SUMMARY_FILE]) if SUMMARY_FILE in files else {}
    else:
        made = rebuilt(store)
        steps = [r.summary for r in made.results]
        records = {r.summary["step"]: r.records for r in made.results}
        events = {r.summary["step"]: r.events for r in made.results}
        files = {name: text for name, text in made.files.items() if text is not None}
        files[SUMMARY_FILE] = json.dumps(made.summary, indent=2) + "\n"
        summary = made.summary
    return CampaignData(
        name=store.name,
        store=store,
        spec=redact(document.get("spec", {})),
        environment=redact(document.get("environment", {})),
        backend=str(document.get("backend", "")),
        steps=redact(steps),
        records=records,
        reference=redact(reference) if reference else None,
        events=events,
        capacity=summary.get("capacity") or [],
        files=files,
    )
