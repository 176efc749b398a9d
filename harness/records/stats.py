"""Small pure statistics functions used by the aggregates.

Each function does one thing and is tested one to one in tests/harness/test_stats.py.
Latency histograms are mappings of bucket value (any unit) to sample count, as fio's
json+ output writes them.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

Histogram = Mapping[int, int]


def mean(values: Sequence[float]) -> float | None:
    """Arithmetic mean, or None for no values (never a silent zero)."""
    if not values:
        return None
    return sum(values) / len(values)


def total(values: Sequence[float]) -> float | None:
    """Sum, or None for no values."""
    if not values:
        return None
    return float(sum(values))


def sample_percentile(values: Sequence[float], percentile: float) -> float | None:
    """The percentile of samples, linear between the two nearest ranks (as numpy's
    default and Rally's percentiles do); None for no values."""
    if not values:
        return None
    ordered = sorted(values)
    rank = (len(ordered) - 1) * percentile / 100
    low = int(rank)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)


def merge_histograms(histograms: Iterable[Histogram]) -> dict[int, int]:
    """Add bucket counts of several histograms that share fio's bucket layout."""
    merged: Counter[int] = Counter()
    for histogram in histograms:
        for bucket, count in histogram.items():
            if count < 0:
                raise ValueError(f"negative count {count} in bucket {bucket}")
            merged[bucket] += count
    return {bucket: merged[bucket] for bucket in sorted(merged) if merged[bucket]}


def histogram_percentile(histogram: Histogram, percentile: float) -> int | None:
    """The percentile the way fio computes it from its buckets.

    fio walks the buckets in ascending order and returns the first bucket whose
    cumulative count reaches ``percentile / 100 * samples`` (stat.c,
    calc_clat_percentiles). Doing the same lets a single consumer's result be checked
    against fio's own percentile. Exact fractions avoid float edge cases at boundaries.
    """
    if not 0 < percentile <= 100:
        raise ValueError(f"percentile must be in (0, 100], got {percentile}")
    samples = sum(histogram.values())
    if samples == 0:
        return None
    threshold = Fraction(str(percentile)) / 100 * samples
    cumulative = 0
    for bucket in sorted(histogram):
        cumulative += histogram[bucket]
        if cumulative >= threshold:
            return bucket
    return max(histogram)  # unreachable: cumulative ends at samples >= threshold


def overlap_fraction(windows: Sequence[tuple[float, float]]) -> float | None:
    """Share of the whole step during which every consumer was running.

    The step spans from the first start to the last stop; all consumers run together
    from the last start to the first stop. 1.0 means perfectly aligned windows, 0.0
    means at least two consumers never ran at the same time.
    """
    if not windows:
        return None
    for start, stop in windows:
        if stop < start:
            raise ValueError(f"window ends before it starts: {start} > {stop}")
    span = max(stop for _, stop in windows) - min(start for start, _ in windows)
    if span == 0:
        return 1.0
    common = min(stop for _, stop in windows) - max(start for start, _ in windows)
    return max(common, 0) / span


def relative_gap(measured: float, reference: float) -> float | None:
    """|measured - reference| / reference, or None when the reference is zero."""
    if reference == 0:
        return None
    return abs(measured - reference) / abs(reference)


def relative_delta(baseline: float, other: float) -> float | None:
    """Signed change from baseline to other as a fraction (-0.17 is -17 %)."""
    if baseline == 0:
        return None
    return (other - baseline) / abs(baseline)


def relative_spread(values: Sequence[float]) -> float | None:
    """How far repeats of one figure lie from their mean, as a fraction of it: the
    largest |value - mean| / |mean|. None for fewer than two values or a zero mean."""
    if len(values) < 2:
        return None
    centre = sum(values) / len(values)
    if centre == 0:
        return None
    return max(abs(v - centre) for v in values) / abs(centre)


def at_ceiling(value: float, ceiling: float, tolerance: float = 0.0) -> bool:
    """True when a value reached a measurement limit (within a relative tolerance)."""
    return value >= ceiling * (1 - tolerance)


def coefficient_of_variation(values: Sequence[float]) -> float | None:
    """Sample standard deviation / |mean| of repeats of one figure (the run-to-run
    spread). None for fewer than two values or a zero mean."""
    if len(values) < 2:
        return None
    centre = sum(values) / len(values)
    if centre == 0:
        return None
    variance = sum((v - centre) ** 2 for v in values) / (len(values) - 1)
    return variance**0.5 / abs(centre)


def least_squares_slope(values: Sequence[float]) -> float | None:
    """Slope per sample of the least-squares line through values at x = 0, 1, 2, ...;
    None for fewer than two values."""
    n = len(values)
    if n < 2:
        return None
    x_mean = (n - 1) / 2
    y_mean = sum(values) / n
    covariance = sum((x - x_mean) * (y - y_mean) for x, y in enumerate(values))
    spread = sum((x - x_mean) ** 2 for x in range(n))
    return covariance / spread


# SNIA Solid State Storage Performance Test Specification: over the measurement window
# the data excursion (max - min) stays within 20 % of the window's average and the
# excursion of the least-squares line across the window within 10 %
STEADY_RANGE = 0.20
STEADY_SLOPE = 0.10


@dataclass(frozen=True)
class SteadyState:
    average: float
    data_excursion: float  # (max - min) / average
    slope_excursion: float  # |slope| x (samples - 1) / average
    steady: bool


def steady_state(
    window: Sequence[float],
    range_share: float = STEADY_RANGE,
    slope_share: float = STEADY_SLOPE,
) -> SteadyState | None:
    """The SNIA criteria on a window of a per-interval series (e.g. the last 60 one-second
    IOPS averages). None for fewer than two values or a zero average."""
    slope = least_squares_slope(window)
    if slope is None:
        return None
    average = sum(window) / len(window)
    if average == 0:
        return None
    data = (max(window) - min(window)) / abs(average)
    line = abs(slope) * (len(window) - 1) / abs(average)
    return SteadyState(average, data, line, data <= range_share and line <= slope_share)


def rounds(values: Sequence[float], count: int) -> list[float]:
    """The averages of ``count`` consecutive equal rounds of a series (SNIA's rounds),
    the last ``count x len // count`` values used: what is left over is dropped from the
    start, where a run warms up. Fewer values than rounds: the values themselves."""
    if count < 1:
        raise ValueError(f"rounds must be at least 1, got {count}")
    size = len(values) // count
    if size == 0:
        return list(values)
    used = values[len(values) - size * count :]
    return [sum(used[i : i + size]) / size for i in range(0, len(used), size)]
