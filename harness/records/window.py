"""Figures over a step's common window: the interval during which every consumer was
running, read from fio's own per-second logs (absolute times, log_unix_epoch), so a sum
over consumers is a sum of load that really ran at once.

A log point stamped t covers the interval (t - avg, t]; a consumer ran from its first
interval's start to its last point. An interval counts inside the window when its middle
is. Over the window: each consumer's mean IOPS, KiB/s and completion latency of the
intervals inside, their sums and averages, the spread of the consumers' starts, and
whether the step's summed IOPS was steady (SNIA's criteria on five rounds); with
histogram logs, p95 and p99 of all the consumers' I/Os completed inside the window.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from harness.records import stats
from harness.records.fio import WindowFigures
from harness.tools.fio.logs import JobLogs, Series

STEADY_ROUNDS = 5


@dataclass(frozen=True)
class WindowDirection:
    consumers: int
    iops_avg: float | None
    iops_sum: float | None
    bandwidth_avg: float | None  # KiB/s
    bandwidth_sum: float | None
    clat_mean_avg: float | None  # ms, mean of the consumers' mean completion latency
    steady: stats.SteadyState | None  # the summed IOPS, rounds of the window
    p95_merged: float | None = None  # ms, from the histogram logs (histogram_logs)
    p99_merged: float | None = None


@dataclass(frozen=True)
class CommonWindow:
    start_ms: int
    end_ms: int
    seconds: float
    start_spread_s: float  # first consumer's start to the last one's
    read: WindowDirection | None
    write: WindowDirection | None
    consumers: dict[str, dict[str, WindowFigures]]  # jobname -> direction -> figures


def running(logs: JobLogs, avg_ms: int) -> tuple[int, int] | None:
    """When a consumer ran, from its logs: (start, end) in ms since the epoch."""
    times = [t for kind in (logs.iops, logs.bw, logs.clat) for s in kind.values() for t, _ in s]
    if not times:
        return None
    return min(times) - avg_ms, max(times)


def inside(points: Series, start_ms: int, end_ms: int, avg_ms: int) -> list[float]:
    """The values of the intervals whose middle lies within [start, end]."""
    return [v for t, v in points if start_ms <= t - avg_ms / 2 <= end_ms]


def _summed_per_interval(
    series: Sequence[Series], start_ms: int, end_ms: int, avg_ms: int
) -> list[float]:
    """The consumers' values added interval by interval across the window, for the
    intervals in which every consumer logged one (fio leaves out a last partial one)."""
    count = max(1, round((end_ms - start_ms) / avg_ms))
    totals = [0.0] * count
    seen: list[set[int]] = [set() for _ in range(count)]
    for consumer, points in enumerate(series):
        for t, v in points:
            middle = t - avg_ms / 2
            if start_ms <= middle <= end_ms:
                index = min(count - 1, int((middle - start_ms) // avg_ms))
                totals[index] += v
                seen[index].add(consumer)
    return [total for total, who in zip(totals, seen, strict=True) if len(who) == len(series)]


def consumer_window(
    logs: JobLogs, direction: str, start: int, end: int, avg_ms: int, latency_ns: float
) -> WindowFigures:
    def mean(points: Series | None) -> float | None:
        return stats.mean(inside(points, start, end, avg_ms)) if points else None

    clat = mean(logs.clat.get(direction))
    return WindowFigures(
        iops=mean(logs.iops.get(direction)),
        bandwidth=mean(logs.bw.get(direction)),
        clat_mean=clat * latency_ns / 1_000_000 if clat is not None else None,
    )


def _mean_and_sum(values: list[float | None]) -> tuple[float | None, float | None]:
    """None, None when a consumer had no interval inside the window."""
    if any(v is None for v in values):
        return None, None
    present = [v for v in values if v is not None]
    return stats.mean(present), stats.total(present)


def _direction(
    ran: Sequence[JobLogs],
    figures: Sequence[WindowFigures],
    direction: str,
    start: int,
    end: int,
    avg_ms: int,
    latency_ns: float,
) -> WindowDirection:
    iops_avg, iops_sum = _mean_and_sum([f.iops for f in figures])
    bandwidth_avg, bandwidth_sum = _mean_and_sum([f.bandwidth for f in figures])
    clat_avg, _ = _mean_and_sum([f.clat_mean for f in figures])
    summed = _summed_per_interval(
        [log.iops[direction] for log in ran if direction in log.iops], start, end, avg_ms
    )
    p95 = p99 = None
    if all(direction in log.clat_hist for log in ran):
        merged = stats.merge_histograms(
            bins
            for log in ran
            for t, bins in log.clat_hist[direction]
            if start <= t - avg_ms / 2 <= end
        )
        p95, p99 = (stats.histogram_percentile(merged, p) for p in (95.0, 99.0))
    return WindowDirection(
        consumers=len(figures),
        iops_avg=iops_avg,
        iops_sum=iops_sum,
        bandwidth_avg=bandwidth_avg,
        bandwidth_sum=bandwidth_sum,
        clat_mean_avg=clat_avg,
        steady=stats.steady_state(stats.rounds(summed, STEADY_ROUNDS)),
        p95_merged=p95 * latency_ns / 1_000_000 if p95 is not None else None,
        p99_merged=p99 * latency_ns / 1_000_000 if p99 is not None else None,
    )


def common_window(
    logs: Sequence[JobLogs], avg_ms: int, latency_ns: float = 1.0
) -> CommonWindow | None:
    """The step's figures over the time every consumer ran; None when a consumer has no
    logs or the consumers never all ran at once. ``latency_ns``: nanoseconds per unit of
    the latency logs (1 in fio 3, 1000 in fio 2)."""
    spans = [running(log, avg_ms) for log in logs]
    if not spans or any(s is None for s in spans):
        return None
    starts = [s[0] for s in spans if s is not None]
    start, end = max(starts), min(s[1] for s in spans if s is not None)
    if end <= start:
        return None
    consumers: dict[str, dict[str, WindowFigures]] = {log.jobname: {} for log in logs}
    directions: dict[str, WindowDirection | None] = {}
    for direction in ("read", "write"):
        ran = [log for log in logs if direction in log.iops or direction in log.bw]
        figures = [consumer_window(log, direction, start, end, avg_ms, latency_ns) for log in ran]
        for log, figure in zip(ran, figures, strict=True):
            consumers[log.jobname][direction] = figure
        directions[direction] = (
            _direction(ran, figures, direction, start, end, avg_ms, latency_ns) if ran else None
        )
    return CommonWindow(
        start_ms=start,
        end_ms=end,
        seconds=(end - start) / 1000,
        start_spread_s=(start - min(starts)) / 1000,
        read=directions["read"],
        write=directions["write"],
        consumers=consumers,
    )
