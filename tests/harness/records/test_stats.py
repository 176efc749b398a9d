"""Each statistics function, one to one, with property tests where invariants exist."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from harness.records import stats

counts = st.integers(min_value=0, max_value=1000)
histograms = st.dictionaries(st.integers(min_value=1, max_value=10**10), counts, min_size=1).filter(
    lambda h: sum(h.values()) > 0
)
percentiles = st.sampled_from([1.0, 50.0, 90.0, 95.0, 99.0, 99.9, 99.99, 100.0])


def test_mean():
    assert stats.mean([1.0, 2.0, 6.0]) == 3.0
    assert stats.mean([]) is None


def test_total():
    assert stats.total([1, 2, 3.5]) == 6.5
    assert stats.total([]) is None


@given(st.lists(st.floats(min_value=0, max_value=1e9), min_size=1))
def test_sum_is_at_least_max_and_mean_between_min_and_max(values):
    assert stats.total(values) >= max(values) - 1e-6
    assert min(values) - 1e-6 <= stats.mean(values) <= max(values) + 1e-6


def test_merge_histograms_adds_counts_and_drops_empty_buckets():
    assert stats.merge_histograms([{10: 1, 20: 2}, {20: 3, 30: 0}]) == {10: 1, 20: 5}
    with pytest.raises(ValueError, match="negative count"):
        stats.merge_histograms([{10: -1}])


@given(st.lists(histograms, min_size=1, max_size=6))
def test_merge_preserves_sample_count(parts):
    merged = stats.merge_histograms(parts)
    assert sum(merged.values()) == sum(sum(p.values()) for p in parts)


def test_histogram_percentile_follows_fio():
    # 100 samples: 95 at 10, 5 at 1000. fio returns the first bucket whose cumulative
    # count reaches p/100 * samples: p95 -> 95 >= 95 -> 10; p96 -> 1000.
    histogram = {10: 95, 1000: 5}
    assert stats.histogram_percentile(histogram, 95.0) == 10
    assert stats.histogram_percentile(histogram, 96.0) == 1000
    assert stats.histogram_percentile(histogram, 100.0) == 1000
    assert stats.histogram_percentile({}, 99.0) is None
    with pytest.raises(ValueError):
        stats.histogram_percentile(histogram, 0)


@given(st.lists(histograms, min_size=1, max_size=6), percentiles)
def test_merged_percentile_lies_between_consumer_percentiles(parts, p):
    per_consumer = [stats.histogram_percentile(h, p) for h in parts]
    merged = stats.histogram_percentile(stats.merge_histograms(parts), p)
    assert min(per_consumer) <= merged <= max(per_consumer)


@given(histograms, percentiles, percentiles)
def test_percentile_is_monotonic(histogram, p, q):
    low, high = sorted((p, q))
    assert stats.histogram_percentile(histogram, low) <= stats.histogram_percentile(histogram, high)


def test_overlap_fraction():
    assert stats.overlap_fraction([(0, 10), (0, 10)]) == 1.0
    assert stats.overlap_fraction([(0, 10), (2, 12)]) == pytest.approx(8 / 12)
    assert stats.overlap_fraction([(0, 5), (6, 10)]) == 0.0
    assert stats.overlap_fraction([]) is None
    assert stats.overlap_fraction([(3, 3)]) == 1.0
    with pytest.raises(ValueError):
        stats.overlap_fraction([(5, 1)])


windows = st.lists(
    st.tuples(st.floats(0, 1000), st.floats(0, 1000)).map(lambda w: (min(w), max(w))),
    min_size=1,
)


@given(windows)
def test_overlap_is_a_fraction(ws):
    assert 0.0 <= stats.overlap_fraction(ws) <= 1.0


def test_relative_gap():
    assert stats.relative_gap(95, 100) == pytest.approx(0.05)
    assert stats.relative_gap(105, 100) == pytest.approx(0.05)
    assert stats.relative_gap(1, 0) is None


def test_relative_delta():
    assert stats.relative_delta(100, 83) == pytest.approx(-0.17)
    assert stats.relative_delta(100, 125) == pytest.approx(0.25)
    assert stats.relative_delta(0, 1) is None


def test_relative_spread():
    assert stats.relative_spread([90, 100, 110]) == pytest.approx(0.1)
    assert stats.relative_spread([100, 100]) == 0
    assert stats.relative_spread([-2, -4]) == pytest.approx(1 / 3)
    assert stats.relative_spread([100]) is None
    assert stats.relative_spread([-1, 1]) is None


def test_at_ceiling():
    assert stats.at_ceiling(16711.68, 16711.68)
    assert not stats.at_ceiling(16000, 16711.68)
    assert stats.at_ceiling(199, 200, tolerance=0.01)


def test_sample_percentile_interpolates_between_ranks():
    assert stats.sample_percentile([], 50) is None
    assert stats.sample_percentile([4.0], 95) == 4.0
    assert stats.sample_percentile([3, 1, 2], 50) == 2
    assert stats.sample_percentile([1, 2, 3, 4], 50) == 2.5
    assert stats.sample_percentile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11], 95) == 10.5
    assert stats.sample_percentile([1, 2, 3], 100) == 3
    assert stats.sample_percentile([1, 2, 3], 0) == 1


@given(st.lists(st.floats(0, 1e6), min_size=1), st.floats(0, 100))
def test_sample_percentile_lies_between_min_and_max(values, p):
    assert min(values) <= stats.sample_percentile(values, p) <= max(values)


def test_coefficient_of_variation():
    assert stats.coefficient_of_variation([100.0, 100.0, 100.0]) == 0.0
    # mean 100, sample standard deviation 10
    assert stats.coefficient_of_variation([90.0, 100.0, 110.0]) == pytest.approx(0.10)
    assert stats.coefficient_of_variation([1.0]) is None
    assert stats.coefficient_of_variation([-1.0, 1.0]) is None


@given(st.lists(st.floats(min_value=1, max_value=1e6), min_size=2, max_size=50))
def test_coefficient_of_variation_is_not_negative(values):
    assert stats.coefficient_of_variation(values) >= 0


def test_least_squares_slope():
    assert stats.least_squares_slope([1.0, 2.0, 3.0, 4.0]) == pytest.approx(1.0)
    assert stats.least_squares_slope([5.0, 5.0, 5.0]) == 0.0
    assert stats.least_squares_slope([4.0, 2.0, 4.0, 2.0]) == pytest.approx(-0.4)
    assert stats.least_squares_slope([3.0]) is None


def test_steady_state_follows_the_snia_criteria():
    flat = stats.steady_state([1000.0, 1010.0, 990.0, 1005.0, 995.0])
    assert flat is not None and flat.steady and flat.data_excursion == pytest.approx(0.02)
    # a 25 % swing: the data excursion is out
    swinging = stats.steady_state([1000.0, 1250.0, 1000.0, 1250.0, 1000.0])
    assert swinging is not None and not swinging.steady
    assert swinging.data_excursion == pytest.approx(250 / 1100)
    # a steady climb of 3 % per interval over 5: range 12 % passes, the line's 12 % does not
    climbing = stats.steady_state([1000.0, 1030.0, 1060.0, 1090.0, 1120.0])
    assert climbing is not None and climbing.data_excursion < stats.STEADY_RANGE
    assert climbing.slope_excursion == pytest.approx(120 / 1060)
    assert not climbing.steady
    assert stats.steady_state([1.0]) is None and stats.steady_state([0.0, 0.0]) is None


def test_rounds_average_equal_rounds_from_the_end():
    assert stats.rounds([1, 2, 3, 4, 5, 6], 3) == [1.5, 3.5, 5.5]
    # the leftover is dropped from the start, where a run warms up
    assert stats.rounds([100, 1, 1, 3, 3], 2) == [1.0, 3.0]
    assert stats.rounds([7, 8], 5) == [7, 8]  # fewer values than rounds
    with pytest.raises(ValueError, match="at least 1"):
        stats.rounds([1], 0)


@given(st.lists(st.floats(min_value=0, max_value=1e6), min_size=1), st.integers(1, 10))
def test_rounds_have_the_mean_of_the_values_they_use(values, count):
    made = stats.rounds(values, count)
    used = (
        values[len(values) - (len(values) // count) * count :] if len(values) >= count else values
    )
    assert len(made) == min(count, len(values)) or len(values) < count
    assert sum(made) / len(made) == pytest.approx(sum(used) / len(used), rel=1e-9, abs=1e-9)


STEADY_FIXTURES = Path(__file__).parents[1] / "tools" / "fio" / "fixtures" / "steadystate"


@pytest.mark.parametrize(
    "name", ["fio-3.33-attained", "fio-3.33-not-attained", "fio-3.41-attained"]
)
def test_on_real_series_fio_judged_our_slope_and_mean_are_fios(name):
    """fio's steadystate section keeps the per-second IOPS it judged: our least-squares
    slope and mean agree with fio's own, and SNIA's verdict follows from them."""
    ss = json.loads((STEADY_FIXTURES / f"{name}.json").read_text())["jobs"][0]["steadystate"]
    iops = [float(v) for v in ss["data"]["iops"]]
    mean = sum(iops) / len(iops)
    assert mean == pytest.approx(ss["data"]["iops_mean"], abs=1)  # fio truncates
    criterion = float(ss["criterion"].rstrip("%")) / 100
    if ss["ss"].startswith("iops_slope"):
        assert stats.least_squares_slope(iops) == pytest.approx(ss["slope"], abs=0.1)
        assert ss["slope"] / mean == pytest.approx(criterion, rel=1e-3)
    else:  # iops: the largest deviation from the mean
        assert max(abs(v - mean) for v in iops) == pytest.approx(ss["max_deviation"], abs=0.5)
        assert ss["max_deviation"] / mean == pytest.approx(criterion, rel=1e-3)
    snia = stats.steady_state(iops)
    assert snia is not None
    assert snia.data_excursion == pytest.approx((max(iops) - min(iops)) / mean)
    slope = stats.least_squares_slope(iops)
    assert slope is not None
    assert snia.slope_excursion == pytest.approx(abs(slope) * (len(iops) - 1) / mean)
    assert snia.steady == (snia.data_excursion <= 0.2 and snia.slope_excursion <= 0.1)


STEADY_SERIES = Path(__file__).parent / "fixtures" / "steady"


def _iops_series(*names: str) -> list[float]:
    """Real fio 1-second IOPS logs (fixtures/steady/capture.sh), one series in time order."""
    points = []
    for name in names:
        for line in (STEADY_SERIES / name).read_text().splitlines():
            time_ms, value = line.split(",")[:2]
            points.append((int(time_ms), float(value)))
    return [value for _, value in sorted(points)]


def test_the_snia_verdict_on_real_per_second_series():
    # a reader held at 1500 IOPS: flat, steady
    flat = _iops_series("flat_iops.1.log")
    assert len(flat) >= 8
    held = stats.steady_state(stats.rounds(flat, 5))
    assert held is not None and held.steady
    assert held.average == pytest.approx(1500, abs=2) and held.data_excursion < 0.01
    # 1000 IOPS, then 3000: the same reader's series steps up; neither criterion holds
    step = _iops_series("step_iops.1.log", "step_iops.2.log")
    assert min(step) < 1100 and max(step) > 2900
    climbed = stats.steady_state(stats.rounds(step, 4))
    assert climbed is not None and not climbed.steady
    assert climbed.data_excursion > 0.2 and climbed.slope_excursion > 0.1
