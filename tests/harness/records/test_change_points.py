"""Changes of level in a figure's history, against its own noise: synthetic histories of
20 campaigns (3 % Gaussian noise, seeded), one to one with the issue's example, then over
many seeds to state how often the method finds a step and how often it invents one."""

from __future__ import annotations

import random

import pytest

from harness.records.change_points import MIN_CAMPAIGNS, change_points


def noisy(seed: int, step_at: int | None, size: float = 0.10, n: int = 20) -> list[float]:
    """1000 IOPS with 3 % noise, ``size`` more from ``step_at`` (an index) on."""
    rng = random.Random(seed)
    return [
        1000 * (1 + (size if step_at is not None and i >= step_at else 0)) * rng.gauss(1, 0.03)
        for i in range(n)
    ]


def test_a_10_percent_step_at_12_is_found_there_with_its_size():
    (point,) = change_points(noisy(1, step_at=12))
    assert point.index == 12
    assert point.change == pytest.approx(0.10, abs=0.03)
    assert point.before == pytest.approx(1000, rel=0.03) and point.p_value < 1e-4


def test_a_stationary_history_is_not_flagged():
    assert change_points(noisy(1, step_at=None)) == []


def test_over_200_histories_a_step_is_found_at_12_to_14_and_none_invented():
    found = [[p.index for p in change_points(noisy(seed, step_at=12))] for seed in range(200)]
    placed = [f for f in found if f and all(12 <= i <= 14 for i in f)]
    near = [f for f in found if f and all(11 <= i <= 14 for i in f)]
    assert len(placed) >= 160 and len(near) >= 170, found  # 167 and 178 of these 200
    invented = [seed for seed in range(200) if change_points(noisy(1000 + seed, step_at=None))]
    assert len(invented) <= 2, invented  # none of these 200; 4 of 1,000


def test_two_changes_are_both_found_and_each_level_is_its_segments_mean():
    values = [100.0] * 3 + [101.0, 99.0] + [150.0, 151.0, 149.0, 150.0] + [75.0, 76.0, 74.0]
    points = change_points(values)
    assert [p.index for p in points] == [5, 9]
    assert points[0].before == pytest.approx(100) and points[0].after == pytest.approx(150)
    assert points[1].before == pytest.approx(150) and points[1].change == pytest.approx(-0.5)


def test_a_change_in_the_newest_campaign_alone_waits_for_a_second():
    assert change_points([100.0, 101.0, 99.0, 100.0, 100.5, 160.0]) == []
    assert [p.index for p in change_points([100.0, 101.0, 99.0, 100.0, 160.0, 161.0])] == [4]


def test_too_short_a_history_or_a_change_within_the_tolerance_is_not_searched_or_flagged():
    assert change_points([1.0, 1.0, 2.0, 2.0][: MIN_CAMPAIGNS - 1]) == []
    # significant (no noise at all) but 1 %: within the ±2 % tolerance
    assert change_points([100.0] * 5 + [101.0] * 5) == []
    assert [p.index for p in change_points([100.0] * 5 + [103.0] * 5)] == [5]
