"""The terminal volperf talks to: rich's console on stderr, made on first use, so that a
command that prints nothing through it (``--help``, ``--version``) never imports rich."""

from __future__ import annotations

import sys
from functools import cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.console import Console


@cache
def console() -> Console:
    from rich.console import Console

    # tables stay readable when output goes to a file or CI log (rich would assume 80
    # columns)
    return Console(stderr=True, width=None if sys.stderr.isatty() else 130)


def say(line: str) -> None:
    """One line as it is: no markup, no highlighting."""
    console().print(line, highlight=False, markup=False)
