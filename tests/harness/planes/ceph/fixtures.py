"""Real `ceph -s -f json` output captured from the testbed (fixtures/ceph/capture.sh), and
an independent reading of fio's completions log for the phases' tests."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

import pytest

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


def iops_points(raw: Path) -> list[tuple[float, float]]:
    """fio's per-second IOPS log of a step's one consumer, as it wrote it: (the end of each
    second in epoch seconds, the IOPS fio averaged over it)."""
    [iops_log] = raw.glob("logs/*_iops.1.log")
    with iops_log.open() as handle:
        return [(int(r[0]) / 1000, float(r[1])) for r in csv.reader(handle)]


def logged_per_phase(raw: Path, start: float, phases: list[dict[str, Any]]) -> list[float]:
    """Each phase's I/Os read from fio's per-second IOPS log itself, apart from volperf's
    parser: each line (the end of its second in epoch ms, the IOPS fio averaged over that
    second, its direction) counted for the share of its second that lies in the phase;
    ``start``: the phases' zero, in epoch seconds."""
    points = iops_points(raw)
    counted = []
    for phase in phases:
        begin = start + phase["start_s"]
        end = begin + phase["seconds"]
        counted.append(sum(v * max(0.0, min(end, t) - max(begin, t - 1)) for t, v in points))
    return counted


def assert_phases_equal_the_iops_log(found: dict[str, Any], raw: Path, start: float) -> None:
    """The phases of a step of one consumer, the healthy one first (summary.json's
    ``phases``), against its fio per-second IOPS log read apart (``logged_per_phase``):
    each phase's I/Os, IOPS and IOPS kept equal to what the summary rounds them to, its
    bounds to 1 ms and its figures to 0.1."""
    peak = max(iops for _, iops in iops_points(raw))
    bound_ios = 2 * 0.0005 * peak + 0.05  # each bound moved by up to half a millisecond
    ios = logged_per_phase(raw, start, found["phases"])
    seconds = [phase["seconds"] for phase in found["phases"]]
    rates = [n / s for n, s in zip(ios, seconds, strict=True)]
    off = [(bound_ios + r * 0.0005) / s for r, s in zip(rates, seconds, strict=True)]
    assert len(found["sum"]) == len(ios)
    for summed, n, rate, rate_off in zip(found["sum"], ios, rates, off, strict=True):
        assert summed["ios"] == pytest.approx(n, abs=bound_ios), (summed, n)
        assert summed["iops"] == pytest.approx(rate, abs=0.05 + rate_off), (summed, rate)
        kept = 100 * rate / rates[0]
        kept_off = 100 * (rate_off / rates[0] + rate * off[0] / rates[0] ** 2) + 0.05
        assert summed["kept_pct"] == pytest.approx(kept, abs=kept_off), (summed, kept)
