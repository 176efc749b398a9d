"""io-pause: how long a database stopped acknowledging I/O, from sysbench's interval
reports (as the failover studies define it).

With 1-second reports, io-pause is the time from the end of the last interval that
still had transactions to the start of the first interval that has them again, i.e.
the run of empty intervals after the kill; its resolution is the report interval.
A shorter outage leaves no empty interval, only dips: ``lost_s`` estimates the time
lost in the intervals around the kill as the shortfall from the rate before it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Pause:
    kill_s: float  # seconds since the client started, when the server was killed
    last_ack_s: float  # end of the last interval with transactions before the pause
    resumed_s: float | None  # start of the first interval with transactions after it
    seconds: float | None  # None: transactions never resumed in the output
    lost_s: float | None = None  # sum of (1 - tps / tps before the kill) × interval


def _median(values: list[float]) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    middle = len(ordered) // 2
    return ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2


def lost_time(
    series: Sequence[tuple[float, float]], kill_s: float, until_s: float, interval_s: float
) -> float | None:
    """Seconds of transactions lost from the interval of the kill to ``until_s`` (the
    end of the first full interval after the pause), against the median rate before:
    of the intervals that had transactions (an earlier kill's empty intervals are a
    pause, not the rate: run25's second kill came after 25 of 49 s of an earlier one)."""
    before = _median([tps for end, tps in series if end <= kill_s and tps > 0])
    if not before:
        return None
    around = [tps for end, tps in series if kill_s < end <= until_s]
    return sum(max(0.0, 1 - tps / before) for tps in around) * interval_s


def io_pause(
    series: Sequence[tuple[float, float]], kill_s: float, interval_s: float = 1.0
) -> Pause:
    """``series`` is (end of interval in seconds, transactions per second), in order."""
    after_kill = [i for i, (end, _tps) in enumerate(series) if end > kill_s]
    if not after_kill:
        return Pause(kill_s, kill_s, None, None)
    first = after_kill[0]
    gap = next((i for i in range(first, len(series)) if series[i][1] <= 0), None)
    if gap is None and first == len(series) - 1:  # the client ended with the kill's interval
        return Pause(kill_s, series[first][0], None, None)
    if gap is None:  # the server came back within the interval of the kill: dips only
        end = series[min(first + 1, len(series) - 1)][0]
        lost = lost_time(series, kill_s, end, interval_s)
        return Pause(kill_s, series[first][0], series[first][0], 0.0, lost)
    last_ack = series[gap][0] - interval_s
    resumed = next((i for i in range(gap, len(series)) if series[i][1] > 0), None)
    if resumed is None:
        return Pause(kill_s, last_ack, None, None)
    resumed_s = series[resumed][0] - interval_s
    end = series[min(resumed + 1, len(series) - 1)][0]
    lost = lost_time(series, kill_s, end, interval_s)
    return Pause(kill_s, last_ack, resumed_s, resumed_s - last_ack, lost)


def resumed(tps: Sequence[float | None], reports_before: int) -> bool:
    """Whether a client's reports show transactions again after a disruption made when it
    had printed ``reports_before`` of them: a report wholly after the disruption (the
    second new one on: the first may hold transactions from before it) with TPS above 0."""
    return any((t or 0) > 0 for t in tps[reports_before + 1 :])
