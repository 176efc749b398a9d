"""What a step's Ceph-side raw files add to its results: health events and warnings, and
what the cluster recovered (raw/ceph-health.jsonl), and a warning when consumers read
blocks never written (raw/images.json)."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness.host.sampler import read_samples
from harness.planes.ceph.health import UNREACHABLE, describe, health_events, sampling_cost
from harness.planes.ceph.phases import bytes_recovered, states
from harness.records.aggregate import Warning
from harness.records.db import EventRecord
from harness.records.phases import RECOVERING, phases

HEALTH_FILE = "ceph-health.jsonl"


@dataclass
class CephStepResult:
    summary: dict[str, Any] = field(default_factory=dict)
    events: list[EventRecord] = field(default_factory=list)
    warnings: list[Warning] = field(default_factory=list)


def ceph_step(raw: Path, step_id: str, step_start: float | None) -> CephStepResult:
    result = CephStepResult()
    samples = read_samples(raw / HEALTH_FILE)
    if samples:
        start = step_start if step_start is not None else min(s["t"] for s in samples)
        seen: Counter[str] = Counter()
        for event in health_events(samples):
            seen[event.code] += 1
            text = describe(event, start)
            result.events.append(
                EventRecord(
                    step_id,
                    "cluster",
                    f"ceph {event.code}",
                    seen[event.code],
                    round(event.first_t * 1000),
                    event.seconds,
                    text,
                )
            )
            kind = "ceph-unreachable" if event.code == UNREACHABLE else "ceph-health"
            result.warnings.append(Warning(kind, text))
        result.summary["ceph_health"] = {**sampling_cost(samples), "checks": dict(seen)}
        recovery = recovery_of(samples)
        if recovery is not None:
            result.summary["ceph_recovery"] = recovery
    unwritten = _unwritten_readers(raw / "images.json")
    if unwritten:
        result.warnings.append(
            Warning(
                "unwritten-reads",
                f"{', '.join(unwritten)} read RBD images not written in full first: RBD answers "
                "reads of never-written blocks with zeros without reaching the OSDs, so read "
                "figures are inflated; prefill the images (prefill: true) for real reads",
            )
        )
    return result


def recovery_of(samples: list[dict[str, Any]]) -> dict[str, Any] | None:
    """How long the cluster recovered within the step's samples (phases.py) and what it
    recovered, at the manager's rate; None if it never did."""
    found = phases(states(samples), end=max(float(s["t"]) for s in samples))
    recovering = [p for p in found if p.state == RECOVERING]
    if not recovering:
        return None
    seconds = sum(p.seconds for p in recovering)
    recovered = sum(bytes_recovered(samples, p) for p in recovering)
    return {
        "seconds": round(seconds, 3),
        "bytes": round(recovered),
        "bytes_per_s": round(recovered / seconds) if seconds else None,
    }


def _unwritten_readers(path: Path) -> list[str]:
    try:
        images = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    return [i["consumer"] for i in images if i.get("reads") and not i.get("written_in_full")]
