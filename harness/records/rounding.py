"""A figure printed beside the bound it was judged against ("94.98 % < 95 %"), with
enough decimals that the comparison it states is true as printed: rounded to the usual
decimals, 94.98 would read "95.0 % < 95 %"."""

from __future__ import annotations

MOST_DECIMALS = 12  # beyond this a float's own digits are noise


def decimals_apart(value: float, bound: float, fewest: int = 1) -> int:
    """The fewest decimals, at least ``fewest``, at which ``value`` rounded stands on the
    same side of ``bound`` (as ``:g`` prints it) as ``value`` itself: 2 for 94.98 against
    95, 3 for 99.999 against 100. A value equal to the bound keeps ``fewest``."""
    side = (value > bound) - (value < bound)
    if side == 0:
        return fewest
    printed = float(f"{bound:g}")
    for decimals in range(fewest, MOST_DECIMALS + 1):
        rounded = float(f"{value:.{decimals}f}")
        if (rounded > printed) - (rounded < printed) == side:
            return decimals
    return MOST_DECIMALS


def beside(value: float, bound: float, fewest: int = 1) -> str:
    """``value`` printed to be set beside ``bound``: decimals_apart's decimals."""
    return f"{value:.{decimals_apart(value, bound, fewest)}f}"
