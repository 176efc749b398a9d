"""Real `ceph -s -f json` output captured from the testbed (fixtures/ceph/capture.sh), and
an independent reading of fio's completions log for the phases' tests."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

CEPH_FIXTURES = Path(__file__).parent / "fixtures"


def ceph_status(name: str) -> dict[str, Any]:
    """status-ok, status-peering, status-slow-ops, status-laggy or status-cephfs-*."""
    return json.loads((CEPH_FIXTURES / f"{name}.json").read_text())


def completed_per_phase(raw: Path, start: float, phases: list[dict[str, Any]]) -> list[float]:
    """Each phase's IOPS read independently of volperf's records: the I/Os each line of
    fio's completions log counts (its buckets summed: what completed in the 100 ms before
    it), for the lines within the phase; ``start``: the phases' zero, in epoch seconds."""
    [completions] = raw.glob("logs/*-completions_clat_hist.1.log")
    with completions.open() as handle:
        counted = [(int(r[0]) / 1000, sum(int(c) for c in r[3:])) for r in csv.reader(handle)]
    rates = []
    for phase in phases:
        begin = start + phase["start_s"]
        ios = sum(n for t, n in counted if begin < t <= begin + phase["seconds"])
        rates.append(ios / phase["seconds"])
    return rates
