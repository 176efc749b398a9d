"""An application workload's output (phases.sh's lines): the source it generated and
every timed phase.

    volperf-app source files=2000 size=8192 commits=20 pack_kib=13197
    volperf-app iteration=1 phase=clone start=12456.42 end=12457.16 seconds=0.74 status=ok
    volperf-app error iteration=2 phase=untar: tar: short read
    volperf-app done iterations=3

redis adds go-ycsb's measurements of each phase, its JSON on one line:

    volperf-app measurements iteration=1 phase=run [{"Operation":"TOTAL","OPS":"9665.1",…}]

An operation that failed is measured as ``<OPERATION>_ERROR``: its phase counts as failed.

broker adds `nats bench`'s figures of each phase as it printed them, on one line:

    volperf-app bench iteration=1 phase=publish messages=10000 NATS JetStream asynchronous
    publisher aggregated stats: 4,658 msgs/sec ~ 4.5 MiB/sec latencies per operation min
    100,678.28us | avg 209,091.75us | max 297,854.29us | … | P99 297,854.29us | …
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

from harness.core.workloads.registry import TOOLS

# each application's timed phases, as its declaration gives them (harness/core/workloads)
PHASES = {t.tag: t.phases for t in TOOLS if t.phases}
PREFIX = "volperf-app "
DONE = f"{PREFIX}done "  # the last line of a run that tried every iteration
_FIELDS = re.compile(r"(\w+)=(\S+)")
_NATS_RATE = re.compile(r"stats: ([\d,.]+) msgs/sec")
_NATS_LATENCY = {  # one client: "avg: 3,704.85us"; more: "avg 209,091.75us"
    name: re.compile(rf"{name}:? ([\d,.]+)us") for name in ("avg", "max", "P99")
}


class AppOutputError(ValueError):
    """Output that is not an application workload's: the message quotes the line."""


@dataclass(frozen=True)
class Phase:
    iteration: int
    phase: str
    seconds: float
    ok: bool


@dataclass(frozen=True)
class Measured:
    """One operation of a phase as go-ycsb measured it (TOTAL: every operation), or a
    phase as nats bench measured it (TOTAL: its messages; latencies of publishing only,
    no p95)."""

    iteration: int
    phase: str
    operation: str  # TOTAL, INSERT, READ, UPDATE, READ_MODIFY_WRITE, <OPERATION>_ERROR …
    count: int
    ops_per_s: float
    seconds: float  # go-ycsb's "Takes(s)" (its first such operation to the end); nats: count / rate
    avg_us: float | None
    p95_us: float | None
    p99_us: float | None
    max_us: float | None


@dataclass(frozen=True)
class AppRun:
    source: dict[str, int] = field(default_factory=dict)  # files, size … of what it made
    phases: tuple[Phase, ...] = ()
    measured: tuple[Measured, ...] = ()  # redis: go-ycsb's figures; broker: nats bench's
    errors: tuple[str, ...] = ()  # each failed phase's last output lines
    finished: bool = False  # the "done" line: every iteration was tried

    def iterations(self) -> dict[int, list[Phase]]:
        """Each iteration's phases, in the order they ran."""
        by_iteration: dict[int, list[Phase]] = {}
        for phase in self.phases:
            by_iteration.setdefault(phase.iteration, []).append(phase)
        return by_iteration

    def failed_iterations(self) -> int:
        """Iterations with a failed phase, and the one a stopped run left unfinished."""
        by_iteration = self.iterations()
        failed = sum(any(not p.ok for p in done) for done in by_iteration.values())
        if not self.finished:
            last = by_iteration.get(max(by_iteration, default=0), [])
            failed += all(p.ok for p in last)  # stopped inside it, or before any
        return failed


def _measured(rest: str) -> list[Measured]:
    """A measurements line's operations (KeyError, ValueError when it is not one)."""
    head, _, text = rest.partition(" [")
    values = dict(_FIELDS.findall(head))
    return [
        Measured(
            int(values["iteration"]),
            values["phase"],
            item["Operation"],
            int(item["Count"]),
            float(item["OPS"]),
            float(item["Takes(s)"]),
            int(item["Avg(us)"]),
            int(item["95th(us)"]),
            int(item["99th(us)"]),
            int(item["Max(us)"]),
        )
        for item in json.loads("[" + text)
    ]


def _nats_number(pattern: re.Pattern[str], text: str) -> float | None:
    match = pattern.search(text)
    return float(match.group(1).replace(",", "")) if match else None


def _bench(rest: str) -> Measured:
    """A bench line's phase (KeyError, ValueError when it is not one)."""
    values = dict(_FIELDS.findall(rest))
    count = int(values["messages"])
    rate = _nats_number(_NATS_RATE, rest)
    if rate is None or rate <= 0:
        raise ValueError(rest)
    latency = {name: _nats_number(pattern, rest) for name, pattern in _NATS_LATENCY.items()}
    return Measured(
        int(values["iteration"]),
        values["phase"],
        "TOTAL",
        count,
        rate,
        round(count / rate, 3),
        latency["avg"],
        None,
        latency["P99"],
        latency["max"],
    )


def _failed_operations(phases: list[Phase], measured: list[Measured]) -> str:
    """Errors go-ycsb counted in a phase: the phase, failed (it said ok), and what failed."""
    failed = [m for m in measured if m.operation.endswith("_ERROR") and m.count]
    if not failed or not phases:
        return ""
    last = phases[-1]
    phases[-1] = Phase(last.iteration, last.phase, last.seconds, False)
    counts = ", ".join(f"{m.operation} {m.count}" for m in failed)
    return f"iteration={last.iteration} phase={last.phase}: operations failed ({counts})"


def parse(text: str) -> AppRun:
    known = {name for phases in PHASES.values() for name in phases}
    source: dict[str, int] = {}
    phases: list[Phase] = []
    measured: list[Measured] = []
    errors: list[str] = []
    finished = False
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.startswith(PREFIX):
            continue
        rest = line[len(PREFIX) :]
        try:
            if rest.startswith("error "):
                errors.append(rest[len("error ") :])
            elif rest.startswith("source "):
                source = {k: int(v) for k, v in _FIELDS.findall(rest)}
            elif line.startswith(DONE):
                finished = True
            elif rest.startswith("bench "):
                measured.append(_bench(rest[len("bench ") :]))
            elif rest.startswith("measurements "):
                these = _measured(rest[len("measurements ") :])
                measured += these
                if failed := _failed_operations(phases, these):
                    errors.append(failed)
            else:
                values = dict(_FIELDS.findall(rest))
                if values["phase"] not in known or values["status"] not in ("ok", "failed"):
                    raise KeyError(values["phase"])
                phases.append(
                    Phase(
                        int(values["iteration"]),
                        values["phase"],
                        float(values["seconds"]),
                        values["status"] == "ok",
                    )
                )
        except (KeyError, ValueError, TypeError):
            raise AppOutputError(
                f"line {number} is not an application workload's: {line!r}"
            ) from None
    return AppRun(source, tuple(phases), tuple(measured), tuple(errors), finished)
