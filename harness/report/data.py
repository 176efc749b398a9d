"""Everything a report page shows, loaded from a campaign directory.

A measured campaign is rebuilt from raw/ first (so the page can never disagree with the
raw output); a reference campaign (published figures, no raw output) is read as stored.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from harness.campaign.results import rebuild
from harness.core.redact import redact
from harness.core.store import CampaignStore
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

    @property
    def workloads(self) -> list[str]:
        names: list[str] = []
        for step in self.steps:
            if step.get("workload") not in names:
                names.append(step.get("workload"))
        return names

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
    document = store.read_campaign()
    reference = document.get("reference")
    records: dict[str, list[FioConsumerRecord]] = {}
    events: dict[str, list[EventRecord]] = {}
    if reference:
        steps = reference_steps(store.root, reference, document.get("spec", {}))
    else:
        results = rebuild(store)
        steps = [r.summary for r in results]
        records = {r.summary["step"]: r.records for r in results}
        events = {r.summary["step"]: r.events for r in results}
    summary = store.root / "summary.json"
    found = json.loads(summary.read_text()).get("capacity") if summary.exists() else None
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
        capacity=found or [],
    )
