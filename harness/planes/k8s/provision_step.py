"""A PVC-provisioning step's records from its raw output alone (raw/provision.json: what
volperf saw of every PVC and its pod, as local wall-clock milliseconds): a `pvc-bound`
event per PVC (the PVC's creation request to Bound) and a `pod-ready` event per pod (the
pod's creation request to Ready; campaigns before pods' own request times were kept count
from the PVC's), unresolved ones with the reason and last events; p50/p95/max of each in
the summary, and over how many seconds the namespaces' create and delete requests went
(spread by the workload's pace)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from harness.records.aggregate import Warning
from harness.records.db import EventRecord
from harness.records.stats import sample_percentile

PROVISION_FILE = "provision.json"
BOUND, READY = "pvc-bound", "pod-ready"


def is_provision_step(raw: Path) -> bool:
    return (raw / PROVISION_FILE).exists()


def _spread(seconds: list[float]) -> dict[str, float | None]:
    return {
        "p50_s": sample_percentile(seconds, 50),
        "p95_s": sample_percentile(seconds, 95),
        "max_s": max(seconds, default=None),
    }


def _over(projects: dict[str, dict[str, int]], key: str) -> float | None:
    """Seconds from the first namespace's request to the last's (a pace spreads them)."""
    times = [p[key] for p in projects.values() if key in p]
    return (max(times) - min(times)) / 1000 if times else None


def provision_step(
    raw: Path, step_id: str
) -> tuple[list[EventRecord], dict[str, Any], list[Warning]]:
    seen = json.loads((raw / PROVISION_FILE).read_text(encoding="utf-8"))
    events: list[EventRecord] = []
    for index, claim in enumerate(seen.get("pvcs", []), start=1):
        where = f"{claim['namespace']}/{claim['name']}"
        pod_created = claim.get("pod_created_ms", claim.get("created_ms"))
        for event, key, wanted, created in (
            (BOUND, "bound_ms", True, claim.get("created_ms")),
            (READY, "ready_ms", seen["pods"], pod_created),
        ):
            if not wanted:
                continue
            at = claim.get(key)
            seconds = (at - created) / 1000 if at is not None and created is not None else None
            detail = where if seconds is not None else f"{where}: {claim.get('error') or 'never'}"
            events.append(
                EventRecord(step_id, claim["consumer"], event, index, created, seconds, detail)
            )
    summary: dict[str, Any] = {
        "storage_class": seen.get("storage_class"),
        "namespaces": len(seen.get("namespaces", [])),
        "pvcs": len(seen.get("pvcs", [])),
        "created_over_s": _over(seen.get("projects", {}), "created_ms"),
        "deleted_over_s": _over(seen.get("projects", {}), "delete_ms"),
    }
    for event in (BOUND, READY):
        of_kind = [e for e in events if e.event == event]
        ended = [e.seconds for e in of_kind if e.seconds is not None]
        summary[event] = {"count": len(of_kind), "ended": len(ended), **_spread(ended)}
    warnings = []
    if seen.get("namespaces_left"):
        warnings.append(
            Warning(
                "k8s-namespace",
                "namespaces still being deleted when the step "
                f"ended: {', '.join(seen['namespaces_left'])}",
            )
        )
    return events, {"provision": summary}, warnings
