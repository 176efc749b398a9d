"""How much of a change between two campaigns noise alone can make, and what a verdict may
claim beyond it. Small pure functions:

- with repeats on both sides, Welch's t interval of the change of the mean (SciPy), as a
  share of the baseline's mean: a change is shown when the interval excludes zero;
- with fewer, a noise floor: the run-to-run spread of the side that has repeats, else a
  floor measured for the kind of figure on the target type (MEASURED_FLOORS), beyond which
  a single run's change is taken as real.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import fmean
from typing import Any

from harness.core import figures as catalogue

CONFIDENCE = 0.95

# How far two single runs of the same spec, back to back with nothing else running, were
# seen to differ, by target type and kind of figure (harness.core.figures): the largest
# difference between any two of 5 runs of the `quick` profile (3 s steps at 2 and 4
# consumers), on the development machine (2 cores, 2026-11-29), rounded up.
# local, a file on the host's disk: IOPS and bandwidth 14 %, mean latency 14 %, p95 22 %,
#   p99 154 % (at 4 consumers; 30 % at 2).
# rbd, the Ceph testbed's one OSD (`volperf testbed up ceph`): IOPS and bandwidth 41 %,
#   mean latency 41 %, p95 59 %, p99 58 %.
# The issue that asked for this saw two local runs differ by IOPS −9 %, mean latency
# +10 %, merged p99 +27 %. A target type not measured here takes the largest floor of
# those measured. Longer steps are usually quieter; none of that is known without repeats,
# and the page says to run with them.
MEASURED_FLOORS = {
    "local": {
        catalogue.RATE: 0.15,
        catalogue.MEAN: 0.15,
        catalogue.TAIL: 0.25,
        catalogue.FAR_TAIL: 1.6,
        catalogue.COUNT: 0.0,  # failed iterations, success %: a change is a change
    },
    "rbd": {
        catalogue.RATE: 0.45,
        catalogue.MEAN: 0.45,
        catalogue.TAIL: 0.6,
        catalogue.FAR_TAIL: 0.6,
        catalogue.COUNT: 0.0,
    },
}


def noise_floor(kind: str, target_types: Sequence[str | None]) -> tuple[float, str]:
    """The floor of a kind of figure for the targets compared (the larger where two
    differ), and whose it is."""
    largest = max(floors[kind] for floors in MEASURED_FLOORS.values())
    found = [
        (MEASURED_FLOORS[target][kind], f"on {target}")
        if target in MEASURED_FLOORS
        else (largest, f"on {target or 'an unnamed target'}, not measured")
        for target in dict.fromkeys(target_types)
    ]
    return max(found, default=(largest, "not measured"))


@dataclass(frozen=True)
class Interval:
    """A change of the mean from baseline to other with its confidence interval, each a
    share of the baseline's mean; runs on each side."""

    delta: float
    low: float
    high: float
    baseline_runs: int
    other_runs: int
    confidence: float = CONFIDENCE

    @property
    def excludes_zero(self) -> bool:
        return self.low > 0 or self.high < 0

    @property
    def half_width(self) -> float:
        """The smallest change these runs could show: half the interval's width."""
        return (self.high - self.low) / 2


def _welch_test(a: Sequence[float], b: Sequence[float]) -> Any:
    """SciPy's Welch's t-test of mean(a) − mean(b)."""
    from scipy import stats  # imported here: it takes a while, and most commands never judge

    with warnings.catch_warnings():  # one side without spread: exact, not a precision loss
        warnings.simplefilter("ignore", RuntimeWarning)
        return stats.ttest_ind(a, b, equal_var=False)


def welch_interval(
    baseline: Sequence[float], other: Sequence[float], confidence: float = CONFIDENCE
) -> Interval | None:
    """Welch's t interval of mean(other) − mean(baseline), over mean(baseline) (that mean
    taken as exact); None with fewer than two runs a side or a zero baseline. Two sides
    without any spread give the change itself as the interval."""
    if len(baseline) < 2 or len(other) < 2:
        return None
    centre = fmean(baseline)
    if centre == 0:
        return None
    delta = (fmean(other) - centre) / abs(centre)
    if len(set(baseline)) == 1 and len(set(other)) == 1:
        return Interval(delta, delta, delta, len(baseline), len(other), confidence)
    low, high = _welch_test(other, baseline).confidence_interval(confidence)
    return Interval(
        delta,
        float(low) / abs(centre),
        float(high) / abs(centre),
        len(baseline),
        len(other),
        confidence,
    )
