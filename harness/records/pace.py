"""How each consumer of a fixed-rate step (fio's rate_iops) kept to the rate it was asked
for, from its per-second IOPS log: what it achieved against what it was asked, second by
second, and how far behind its schedule it fell.

fio times a fixed-rate consumer's latency from when it submitted each I/O, not from when
its schedule said it should: a device that cannot keep up makes the consumer submit late,
and the queue that builds up before submission shows in no latency of fio's (coordinated
omission). How far behind schedule it is shows it: after k seconds it was asked for
rate × k I/Os; the I/Os it had not done by then, over the rate, are the seconds it is
behind."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

SHORT_PCT = 95.0  # a second below this share of the asked rate is a short one


@dataclass(frozen=True)
class ConsumerPace:
    consumer: str  # its job name
    asked_iops: float
    achieved_iops: float  # over its whole run (fio's own figure)
    seconds: int  # intervals of its per-second log
    seconds_short: int  # of them, those below the share of the asked rate
    behind_s: float  # the most it was behind its schedule, at the end of any second
    behind_end_s: float  # behind at its last second
    per_second: tuple[float, ...] = ()  # its IOPS log, one value a second

    @property
    def achieved_pct(self) -> float:
        return 100.0 * self.achieved_iops / self.asked_iops


def behind_schedule(per_second: Sequence[float], rate: float) -> list[float]:
    """Seconds behind schedule at the end of each second: (rate × k − I/Os done in the
    first k seconds) / rate, never below 0 (a consumer does not run ahead of its rate)."""
    behind, done = [], 0.0
    for k, iops in enumerate(per_second, start=1):
        done += iops
        behind.append(max(0.0, (rate * k - done) / rate))
    return behind


def consumer_pace(
    consumer: str,
    asked_iops: float,
    achieved_iops: float,
    per_second: Sequence[float],
    share_pct: float,
) -> ConsumerPace:
    """One consumer's pace: ``per_second`` its log's IOPS, one value a second (its
    directions summed); ``share_pct`` the share of the asked rate a second must reach not
    to count as short."""
    behind = behind_schedule(per_second, asked_iops)
    short = sum(1 for iops in per_second if iops < asked_iops * share_pct / 100)
    return ConsumerPace(
        consumer=consumer,
        asked_iops=asked_iops,
        achieved_iops=achieved_iops,
        seconds=len(per_second),
        seconds_short=short,
        behind_s=round(max(behind, default=0.0), 3),
        behind_end_s=round(behind[-1] if behind else 0.0, 3),
        per_second=tuple(per_second),
    )


@dataclass(frozen=True)
class StepPace:
    consumers: list[ConsumerPace]
    share_pct: float  # a second below this share of the asked rate is short

    @property
    def worst_achieved_pct(self) -> float | None:
        return min((c.achieved_pct for c in self.consumers), default=None)

    @property
    def most_behind_s(self) -> float | None:
        return max((c.behind_s for c in self.consumers), default=None)

    def to_json(self) -> dict[str, object]:
        return {
            "share_pct": self.share_pct,
            "worst_achieved_pct": _rounded(self.worst_achieved_pct),
            "most_behind_s": self.most_behind_s,
            "latency_from": "submission (fio's): the wait before a late I/O is submitted "
            "shows in behind_s, not in the latencies",
            "consumers": [
                {
                    "consumer": c.consumer,
                    "asked_iops": c.asked_iops,
                    "achieved_iops": round(c.achieved_iops, 3),
                    "achieved_pct": _rounded(c.achieved_pct),
                    "seconds": c.seconds,
                    "seconds_short": c.seconds_short,
                    "behind_s": c.behind_s,
                    "behind_end_s": c.behind_end_s,
                    "per_second": [round(v, 3) for v in c.per_second],
                }
                for c in self.consumers
            ],
        }


def _rounded(value: float | None) -> float | None:
    return round(value, 2) if value is not None else None
