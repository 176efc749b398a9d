"""Ceph health during a step, as pure functions of the samples in raw/ceph-health.jsonl.

A sample is ``ceph -s -f json`` cut down to what matters ({t, status, checks, pgs, osds,
recovery}), or {t, error} when the cluster did not answer. Every health check seen
(SLOW_OPS, OSD_DOWN, PG_DEGRADED, …) becomes an event: when it first showed, when it was
last seen, when it cleared (None if it never did within the step), and its worst message.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

UNREACHABLE = "CEPH_UNREACHABLE"  # our own code for samples the cluster did not answer
# the pgmap's figures of data at risk and of its recovery, present only while non-zero; the
# rates are the manager's over its last few seconds
RECOVERY_FIELDS = (
    "degraded_objects",
    "degraded_total",
    "misplaced_objects",
    "recovering_objects_per_sec",
    "recovering_bytes_per_sec",
)


def sample_of(status: dict[str, Any], t: float) -> dict[str, Any]:
    """The parts of `ceph -s -f json` a health sample keeps."""
    health = status.get("health", {})
    pgmap = status.get("pgmap", {})
    osdmap = status.get("osdmap", {})
    osdmap = osdmap.get("osdmap", osdmap)
    return {
        "t": t,
        "status": health.get("status", "?"),
        "checks": {
            code: {
                "severity": check.get("severity", ""),
                "message": check.get("summary", {}).get("message", ""),
                "count": check.get("summary", {}).get("count"),
            }
            for code, check in health.get("checks", {}).items()
        },
        "pgs": {s["state_name"]: s["count"] for s in pgmap.get("pgs_by_state", [])},
        "osds": {k: osdmap.get(k) for k in ("num_osds", "num_up_osds", "num_in_osds")},
        "recovery": {k: pgmap[k] for k in RECOVERY_FIELDS if k in pgmap},
    }


@dataclass(frozen=True)
class HealthEvent:
    code: str
    severity: str
    first_t: float  # wall clock of the first sample that showed it
    last_t: float  # of the last sample that showed it
    cleared_t: float | None  # of the first sample without it again; None: never within the step
    message: str  # its worst message: the highest leading number ("54 slow ops"), else the last
    samples: int

    @property
    def seconds(self) -> float | None:
        return None if self.cleared_t is None else self.cleared_t - self.first_t


def _checks(sample: dict[str, Any]) -> dict[str, dict[str, Any]]:
    if "error" in sample:
        return {UNREACHABLE: {"severity": "UNREACHABLE", "message": sample["error"], "count": 1}}
    return sample.get("checks", {})


def _size(message: str) -> int:
    """How bad a check's message says it is: its leading number (summary.count only
    counts detail lines, always 1 for SLOW_OPS)."""
    match = re.match(r"\s*(\d+)", message)
    return int(match.group(1)) if match else 0


def health_events(samples: list[dict[str, Any]]) -> list[HealthEvent]:
    """Every check's spells in the samples, in order of first appearance."""
    events: list[HealthEvent] = []
    open_: dict[str, dict[str, Any]] = {}

    def close(code: str, cleared_t: float | None) -> None:
        spell = open_.pop(code)
        events.append(
            HealthEvent(
                code,
                spell["severity"],
                spell["first_t"],
                spell["last_t"],
                cleared_t,
                spell["message"],
                spell["samples"],
            )
        )

    for sample in sorted(samples, key=lambda s: s["t"]):
        checks, t = _checks(sample), float(sample["t"])
        unknown = UNREACHABLE in checks  # an unanswered sample says nothing of other checks
        for code in list(open_):
            if code not in checks and (not unknown or code == UNREACHABLE):
                close(code, t)
        for code, check in checks.items():
            spell = open_.setdefault(code, {"first_t": t, "samples": 0, "size": -1})
            spell.update(last_t=t, severity=check.get("severity", ""), samples=spell["samples"] + 1)
            message = check.get("message", "")
            if _size(message) >= spell["size"]:
                spell.update(size=_size(message), message=message)
    for code in list(open_):
        close(code, None)
    return sorted(events, key=lambda e: (e.first_t, e.code))


def describe(event: HealthEvent, step_start: float) -> str:
    """E.g. 'SLOW_OPS (HEALTH_WARN) from +3 s to +12 s of the step, cleared at +14 s: …'."""

    def at(t: float) -> str:
        return f"+{t - step_start:.0f} s"

    span = (
        at(event.first_t)
        if event.samples == 1
        else f"from {at(event.first_t)} to {at(event.last_t)}"
    )
    cleared = (
        f", cleared at {at(event.cleared_t)}" if event.cleared_t is not None else ", not cleared"
    )
    return f"{event.code} ({event.severity}) {span} of the step{cleared}: {event.message}"


def sampling_cost(samples: list[dict[str, Any]]) -> dict[str, Any]:
    """How many samples, how many unanswered, and what taking them cost volperf."""
    answered = [s for s in samples if "error" not in s]
    order = ["HEALTH_OK", "HEALTH_WARN", "HEALTH_ERR"]
    statuses = [s["status"] for s in answered if s.get("status") in order]
    worst = max(statuses, key=order.index, default=None)
    return {
        "samples": len(samples),
        "unanswered": len(samples) - len(answered),
        "worst": worst,
        "cpu_ms": round(sum(s.get("cpu_ms", 0) for s in samples), 3),
        "wall_ms_mean": round(sum(s.get("wall_ms", 0) for s in samples) / len(samples), 3)
        if samples
        else None,
    }
