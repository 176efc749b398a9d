"""Load on a database after a disruption (io-pause, migration): the planes keep their
clients running until each client's own reports show transactions again, then ``after``
seconds more, so that a server slow to serve again (a replacement's recovery on a busy
node once took over 10 s past its Ready) is measured, not cut off."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from harness.tools.iopause import resumed
from harness.tools.sysbench.parse import report_tps

POLL_S = 0.25


def reports_now(outs: dict[str, Path]) -> dict[str, int]:
    """How many reports each client has printed, by consumer."""
    return {consumer: len(report_tps(out)) for consumer, out in outs.items()}


def wait_resumed(
    outs: dict[str, Path],
    before: dict[str, int],
    deadline: float,
    pause: Callable[[float], bool],
) -> list[str]:
    """Wait until every client's reports show transactions after the disruption (``before``:
    their counts once it had ended and the servers were back. Counted before it, the
    reports printed while a busy node pointed the clients away and deleted the server held
    transactions from before it: a client that never served again passed as resumed and its
    load was cut 13 s after the kill, run46), at most until ``deadline``
    (time.monotonic());
    ``pause(seconds)`` waits and says False once the step is stopped. The consumers whose
    transactions had not resumed."""
    waiting = sorted(outs)
    while waiting and time.monotonic() < deadline:
        waiting = [c for c in waiting if not resumed(report_tps(outs[c]), before[c])]
        if waiting and not pause(POLL_S):
            break
    return waiting
