"""Per-step aggregates of consumer records: the tables of the reference documents.

Readers and writers are aggregated separately, as average per consumer and sum over
consumers. Tail latency comes from the consumers' merged histogram buckets; the mean of
per-consumer percentiles (what the reference document tabulates) sits beside it so a
reader sees the difference. A figure at a measurement ceiling is not reported as a
number: its value is None and ``ceilings`` holds the bound it reached.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from harness.records import stats
from harness.records.fio import DirectionFigures, FioConsumerRecord

OVERLAP_WARNING = 0.90
RATE_CAP_TOLERANCE = 0.01
_NS_PER_MS = 1_000_000


@dataclass(frozen=True)
class DirectionAggregate:
    consumers: int
    iops_avg: float | None
    iops_sum: float | None
    bandwidth_avg: float | None  # KiB/s
    bandwidth_sum: float | None
    clat_mean_avg: float | None  # ms, mean of the consumers' mean completion latency
    clat_max: float | None  # ms, slowest single I/O of any consumer
    p95_merged: float | None  # ms, from merged histogram buckets
    p99_merged: float | None
    p95_consumer_mean: float | None  # ms, mean of per-consumer 95th percentiles
    p99_consumer_mean: float | None
    ceilings: dict[str, str] = field(default_factory=dict)  # figure -> why it is a bound
    p50_merged: float | None = None  # ms, from merged histogram buckets (a capacity search's)


@dataclass(frozen=True)
class Warning:
    code: str
    message: str


@dataclass(frozen=True)
class StepAggregate:
    read: DirectionAggregate | None
    write: DirectionAggregate | None
    overlap: float | None
    overlap_estimated: bool
    warnings: tuple[Warning, ...]


def _percentile_ms(bins: dict[int, int], p: float) -> float | None:
    value = stats.histogram_percentile(bins, p)
    return value / _NS_PER_MS if value is not None else None


def aggregate_direction(
    figures: Sequence[DirectionFigures],
    ceiling_ms: float,
    rate_iops: int | None = None,
) -> DirectionAggregate | None:
    """Aggregate one direction over the consumers that ran it."""
    if not figures:
        return None
    ceilings: dict[str, str] = {}
    iops = [f.iops for f in figures]
    bandwidth = [f.bandwidth for f in figures]
    iops_avg, iops_sum = stats.mean(iops), stats.total(iops)
    if rate_iops is not None and any(
        stats.at_ceiling(v, rate_iops, RATE_CAP_TOLERANCE) for v in iops
    ):
        note = f"a consumer ran at its rate cap of {rate_iops} IOPS: a bound, not a measurement"
        ceilings.update(iops_avg=note, iops_sum=note)
        iops_avg = iops_sum = None

    p50_merged = p95_merged = p99_merged = None
    bins = [f.clat_bins_ns for f in figures]
    if all(b is not None for b in bins):
        merged = stats.merge_histograms(b for b in bins if b is not None)
        p95_merged, p99_merged = _percentile_ms(merged, 95.0), _percentile_ms(merged, 99.0)
        p50_merged = _percentile_ms(merged, 50.0)

    def consumer_mean(values: list[float | None]) -> float | None:
        present = [v for v in values if v is not None]
        return stats.mean(present) if len(present) == len(values) else None

    p95_mean = consumer_mean([f.complelatency_p95 for f in figures])
    p99_mean = consumer_mean([f.complelatency_p99 for f in figures])

    def bound(name: str, value: float | None, values: list[float | None]) -> float | None:
        hit = value is not None and stats.at_ceiling(value, ceiling_ms)
        hit = hit or any(v is not None and stats.at_ceiling(v, ceiling_ms) for v in values)
        if not hit:
            return value
        ceilings[name] = (
            f"at fio's top histogram bucket ({ceiling_ms:g} ms): at least that, not measured"
        )
        return None

    p95_list = [f.complelatency_p95 for f in figures]
    p99_list = [f.complelatency_p99 for f in figures]
    return DirectionAggregate(
        consumers=len(figures),
        iops_avg=iops_avg,
        iops_sum=iops_sum,
        bandwidth_avg=stats.mean(bandwidth),
        bandwidth_sum=stats.total(bandwidth),
        clat_mean_avg=stats.mean([f.complelatency_mean for f in figures]),
        clat_max=max(f.complelatency_max for f in figures),
        p95_merged=bound("p95_merged", p95_merged, []),
        p99_merged=bound("p99_merged", p99_merged, []),
        p95_consumer_mean=bound("p95_consumer_mean", p95_mean, p95_list),
        p99_consumer_mean=bound("p99_consumer_mean", p99_mean, p99_list),
        ceilings=ceilings,
        p50_merged=bound("p50_merged", p50_merged, []),
    )


def aggregate_step(
    records: Sequence[FioConsumerRecord],
    ceiling_ms: float,
    rate_iops: int | None = None,
) -> StepAggregate:
    ok = [r for r in records if not r.error]
    warnings = [
        Warning("consumer-failed", f"{r.context.consumer} ({r.jobname}): {r.error}")
        for r in records
        if r.error
    ]
    read = aggregate_direction([r.read for r in ok if r.read], ceiling_ms, rate_iops)
    write = aggregate_direction([r.write for r in ok if r.write], ceiling_ms, rate_iops)
    # a consumer that never ran (a VM whose agent failed before fio) has no window
    ran = [r for r in records if r.stop_ms > r.start_ms]
    overlap = stats.overlap_fraction([(r.start_ms, r.stop_ms) for r in ran])
    estimated = any(r.window_estimated for r in ran)
    if overlap is not None and overlap < OVERLAP_WARNING and len(ran) > 1:
        warnings.append(
            Warning(
                "low-overlap",
                f"consumers ran together for only {overlap:.0%} of the step "
                f"(under {OVERLAP_WARNING:.0%}): whole-run sums are not concurrent load",
            )
        )
    for name, direction in (("read", read), ("write", write)):
        for figure, why in (direction.ceilings if direction else {}).items():
            warnings.append(Warning("ceiling", f"{name} {figure}: {why}"))
    return StepAggregate(read, write, overlap, estimated, tuple(warnings))


def mean_of_runs(runs: Sequence[DirectionAggregate | None]) -> DirectionAggregate | None:
    """One direction of a step that ran its consumers several times over (a Rally step's
    iterations, each its own set of VMs): every figure the mean of the runs' figures,
    over the runs in which the direction ran; a figure that any run has only as a bound
    stays a bound; the slowest single I/O is the slowest of all runs."""
    ran = [r for r in runs if r is not None]
    if not ran:
        return None
    ceilings = {name: why for r in ran for name, why in r.ceilings.items()}

    def mean(name: str) -> float | None:
        values = [getattr(r, name) for r in ran]
        if name in ceilings or any(v is None for v in values):
            return None
        return stats.mean(values)

    return DirectionAggregate(
        consumers=max(r.consumers for r in ran),
        iops_avg=mean("iops_avg"),
        iops_sum=mean("iops_sum"),
        bandwidth_avg=mean("bandwidth_avg"),
        bandwidth_sum=mean("bandwidth_sum"),
        clat_mean_avg=mean("clat_mean_avg"),
        clat_max=max((r.clat_max for r in ran if r.clat_max is not None), default=None),
        p95_merged=mean("p95_merged"),
        p99_merged=mean("p99_merged"),
        p95_consumer_mean=mean("p95_consumer_mean"),
        p99_consumer_mean=mean("p99_consumer_mean"),
        ceilings=ceilings,
        p50_merged=mean("p50_merged"),
    )
