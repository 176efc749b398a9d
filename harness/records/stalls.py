"""Stalls: every window of a second or more in which a consumer completed no I/O, which an
average over its run hides (fio counts only what completed).

Read from when the consumer's I/Os completed (tools/fio/logs.py: a histogram log line at
the first completion after each interval of ``every`` ms, none while nothing completes).
Between two lines a and b, the last completion before b came within ``every`` after a,
so nothing completed for b − a less up to ``every``: the stall is taken to start halfway
through that (a + every/2) and to last until b, right within ±every/2. The consumer's
start and stop count as lines (before its first line, and after its last, nothing
completed that fio wrote down). Pure functions."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

STALL_S = 1.0


@dataclass(frozen=True)
class Stall:
    start_ms: int
    seconds: float


def stalls(completions: Sequence[int], start_ms: int, stop_ms: int, every_ms: int) -> list[Stall]:
    """The consumer's stalls between its start and stop (ms since the epoch), from the
    moments it completed I/O, logged every ``every_ms`` (see the module)."""
    marks = sorted(t for t in completions if start_ms < t <= stop_ms)
    half = every_ms / 2
    found = []
    for after, before in zip([start_ms, *marks], [*marks, stop_ms], strict=True):
        seconds = (before - after - half) / 1000
        if seconds >= STALL_S:
            found.append(Stall(round(after + half), round(seconds, 3)))
    return found


@dataclass(frozen=True)
class StallFigures:
    """A consumer's stalls in a step, in short (fio.csv)."""

    count: int
    longest_s: float
    total_s: float

    @classmethod
    def of(cls, found: Sequence[Stall]) -> StallFigures:
        seconds = [s.seconds for s in found]
        return cls(len(found), max(seconds, default=0.0), round(sum(seconds), 3))
