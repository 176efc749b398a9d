"""A faulted step's phases: the states its backend went through (healthy, degraded,
recovering, healed), as the backend's own samples showed them, not as the fault's timing
would suggest; and each phase's figures from a consumer's per-second log. Pure functions.

Each sample gives a time and a state (None: the backend did not say). A phase is a run of
samples in one state, from its first sample to the next phase's first (to the step's
end for the last): a boundary is known to within the sampling interval, after the
change. Healthy after any other state is healed.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from harness.records import stats
from harness.records.stalls import Stall

FAULTS_FILE = "faults.json"  # raw/: the faults a plane gave during the step, and when


def faults_record(raw: Path) -> dict[str, Any]:
    """A step's raw/faults.json ({} where there is none)."""
    try:
        record: dict[str, Any] = json.loads((raw / FAULTS_FILE).read_text())
    except (OSError, ValueError):
        return {}
    return record


HEALTHY = "healthy"
DEGRADED = "degraded"
RECOVERING = "recovering"
HEALED = "healed"


@dataclass(frozen=True)
class Phase:
    state: str
    start: float  # seconds since the epoch: its first sample
    end: float  # the next phase's first sample, or the step's end

    @property
    def seconds(self) -> float:
        return self.end - self.start


def phases(
    samples: Sequence[tuple[float, str | None]], end: float, start: float | None = None
) -> list[Phase]:
    """The phases of (time, state) samples up to ``end``, from ``start`` if given (the
    state then is the last sample's before it); an unanswered sample (None) leaves the
    phase before it as it was."""
    found: list[Phase] = []
    faulted = False
    for t, state in sorted(samples, key=lambda s: s[0]):
        if state is None or t >= end:
            continue
        if state == HEALTHY and faulted:
            state = HEALED
        faulted = faulted or state not in (HEALTHY, HEALED)
        if found and found[-1].state == state:
            continue
        if found:
            found[-1] = Phase(found[-1].state, found[-1].start, t)
        found.append(Phase(state, t, end))
    if start is None:
        return found
    return [Phase(p.state, max(p.start, start), p.end) for p in found if p.end > start]


@dataclass(frozen=True)
class PhaseFigures:
    """A consumer's figures over one phase."""

    state: str
    start_s: float  # from the step's start
    seconds: float
    ios: float  # I/Os completed in the phase, from the per-second log
    iops: float | None  # ios / seconds
    kept_pct: float | None  # iops against the healthy phase's (None: no healthy phase)
    longest_stall_s: float  # the longest time within the phase with no I/O completed
    # of the I/Os completed in the phase, from fio's per-second histogram logs where they
    # were kept (histogram_logs), each second counted in the phase its middle lies in
    p99_ms: float | None = None


def _overlap(start: float, end: float, phase: Phase) -> float:
    return max(0.0, min(end, phase.end) - max(start, phase.start))


def ios_in(phase: Phase, per_second: Sequence[tuple[float, float]]) -> float:
    """The I/Os a per-second log says completed within the phase: each point, (the end of
    its second, the IOPS fio averaged over it), counted for the share of its second that
    lies in the phase; a second with no point completed none."""
    return sum(iops * _overlap(t - 1.0, t, phase) for t, iops in per_second)


def longest_stall_in(phase: Phase, found: Sequence[Stall]) -> float:
    """The longest of the stalls (records/stalls.py) as much of it as lies in the phase."""
    spans = [_overlap(s.start_ms / 1000, s.start_ms / 1000 + s.seconds, phase) for s in found]
    return round(max(spans, default=0.0), 3)


Histograms = Sequence[tuple[float, Mapping[int, int]]]  # (end of its second, fio's bins)


def p99_in(phase: Phase, histograms: Histograms, latency_ns: float = 1.0) -> float | None:
    """The 99th percentile, in ms, of the I/Os of the per-second histograms whose second's
    middle lies in the phase (fio's own percentile over their merged bins; fio's bins
    are in its latency unit, ``latency_ns`` ns); None without any."""
    inside = [bins for t, bins in histograms if phase.start <= t - 0.5 < phase.end]
    merged = stats.merge_histograms(inside)
    p99 = stats.histogram_percentile(merged, 99.0) if merged else None
    return None if p99 is None else round(p99 * latency_ns / 1e6, 3)


def phase_figures(
    found: Sequence[Phase],
    per_second: Sequence[tuple[float, float]],
    stalls: Sequence[Stall],
    step_start: float,
    histograms: Histograms = (),
    latency_ns: float = 1.0,
) -> list[PhaseFigures]:
    """Each phase's figures for one consumer (its per-second log, its stalls, its
    per-second histograms if kept)."""
    ios = [ios_in(phase, per_second) for phase in found]
    rates = [n / p.seconds if p.seconds > 0 else None for n, p in zip(ios, found, strict=True)]
    healthy = [r for p, r in zip(found, rates, strict=True) if p.state == HEALTHY]
    baseline = healthy[0] if healthy else None
    return [
        PhaseFigures(
            state=phase.state,
            start_s=round(phase.start - step_start, 3),
            seconds=round(phase.seconds, 3),
            ios=round(n, 1),
            iops=None if rate is None else round(rate, 1),
            kept_pct=None if rate is None or not baseline else round(100 * rate / baseline, 1),
            longest_stall_s=longest_stall_in(phase, stalls),
            p99_ms=p99_in(phase, histograms, latency_ns) if histograms else None,
        )
        for phase, n, rate in zip(found, ios, rates, strict=True)
    ]


def fault_to_healed_s(found: Sequence[Phase], fault_t: float) -> float | None:
    """Seconds from the fault to the start of the healed phase (None: never healed)."""
    healed = [p for p in found if p.state == HEALED and p.start >= fault_t]
    return round(healed[0].start - fault_t, 3) if healed else None


Consumer = tuple[Sequence[tuple[float, float]], Sequence[Stall]]  # per-second IOPS, stalls


def step_phases(
    found: Sequence[Phase],
    consumers: Mapping[str, Consumer],
    step_start: float,
    histograms: Mapping[str, Histograms] | None = None,
    latency_ns: float = 1.0,
) -> dict[str, Any]:
    """A step's phases with every consumer's figures in each, and all consumers' summed
    (their I/Os together; the longest stall any of them had; the p99 of all their I/Os,
    where every consumer kept its per-second histograms)."""
    histograms = histograms or {}
    every = [point for per_second, _ in consumers.values() for point in per_second]
    stalled = [stall for _, found_stalls in consumers.values() for stall in found_stalls]
    merged = [h for name in consumers for h in histograms.get(name, ())]
    if any(not histograms.get(name) for name in consumers):
        merged = []  # a p99 of some consumers' I/Os is not the step's
    return {
        "phases": [
            {
                "state": p.state,
                "start_s": round(p.start - step_start, 3),
                "seconds": round(p.seconds, 3),
            }
            for p in found
        ],
        "sum": [
            asdict(f) for f in phase_figures(found, every, stalled, step_start, merged, latency_ns)
        ],
        "consumers": {
            name: [
                asdict(f)
                for f in phase_figures(
                    found, per_second, own, step_start, histograms.get(name, ()), latency_ns
                )
            ]
            for name, (per_second, own) in consumers.items()
        },
        # each consumer's IOPS second by second, [end of its second from the step's start,
        # IOPS]: the phases' picture
        "per_second": {
            name: [[round(t - step_start, 3), iops] for t, iops in sorted(per_second)]
            for name, (per_second, _) in consumers.items()
        },
    }


def phases_sentence(summary: Mapping[str, Any]) -> str:
    """E.g. 'degraded from +10.4 s for 20.1 s (IOPS kept 41 %), recovering from +30.5 s
    for 17.0 s (63 %), healed at +47.5 s'."""
    parts = []
    for phase in summary["sum"]:
        if phase["state"] == HEALTHY:
            continue
        if phase["state"] == HEALED:
            parts.append(f"healed at +{phase['start_s']:.1f} s")
            continue
        kept = "" if phase["kept_pct"] is None else f" (IOPS kept {phase['kept_pct']:.0f} %)"
        parts.append(
            f"{phase['state']} from +{phase['start_s']:.1f} s for {phase['seconds']:.1f} s{kept}"
        )
    return ", ".join(parts)
