"""records/rounding.py: a figure printed beside its bound keeps the comparison true."""

from __future__ import annotations

import pytest

from harness.records.rounding import MOST_DECIMALS, beside, decimals_apart


@pytest.mark.parametrize(
    ("value", "bound", "fewest", "decimals", "printed"),
    [
        (94.98, 95, 1, 2, "94.98"),  # 1 decimal reads 95.0: on the bound
        (95.0, 95, 1, 1, "95.0"),  # equal: no decimals make it differ, the usual ones kept
        (99.999, 100, 1, 3, "99.999"),  # 100.0, then 100.00
        (90.0, 95, 1, 1, "90.0"),  # far from it: the usual decimals
        (5.004, 5, 2, 3, "5.004"),  # a p99 in ms, usually 2 decimals: 5.00 would be on it
        (10.5, 10, 0, 1, "10.5"),  # a percentage usually whole: 10 would be on it
        (49.6, 50, 0, 1, "49.6"),  # 50 would be on it
        (94.96, 94.97, 1, 2, "94.96"),  # 95.0 would be past the bound, on its other side
        (25.0, 20, 2, 2, "25.00"),
    ],
)
def test_the_fewest_decimals_that_keep_the_value_on_its_side_of_the_bound(
    value, bound, fewest, decimals, printed
):
    assert decimals_apart(value, bound, fewest) == decimals
    assert beside(value, bound, fewest) == printed


def test_a_value_below_the_bound_is_printed_below_it():
    for value in (94.951, 94.99, 94.999, 94.9999):
        shown = float(beside(value, 95))
        assert shown < 95 and shown != 95.0, value


def test_a_value_too_close_to_tell_apart_stops_at_the_most_decimals():
    assert decimals_apart(95 - 1e-14, 95) == MOST_DECIMALS
