"""The Ceph OSDs' own view of a step, from their perf counters (`ceph tell osd.N perf dump
osd`) sampled with the cluster's health into raw/ceph-health.jsonl: the client
operations each OSD served (reads, writes), the bytes they carried, and their mean
latency as the OSD measured it. Pure functions of the samples: the mean over the step's
window (its fio runs, where it has them) and the busiest interval in it, per OSD.

The mean is over the window itself: the counters at its start and stop are read linearly
between the samples around each (a sample is taken when the step ends), so a load that
grows during the run is not measured over a shorter part of it than fio's own figures."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from operator import itemgetter
from typing import Any

from harness.records.node_load import Window, in_window

COUNTERS = ("op_r", "op_w", "op_rw", "op_in_bytes", "op_out_bytes")
LATENCIES = ("op_r_latency", "op_w_latency")  # [count, seconds in all]


def counters_of(perf_dump: dict[str, Any]) -> dict[str, Any]:
    """What a sample keeps of an OSD's `perf dump osd`: the counters and, for each
    latency, [count, seconds in all]."""
    osd = perf_dump.get("osd", perf_dump)
    kept: dict[str, Any] = {name: int(osd[name]) for name in COUNTERS if name in osd}
    for name in LATENCIES:
        if isinstance(osd.get(name), dict):
            kept[name] = [int(osd[name]["avgcount"]), float(osd[name]["sum"])]
    return kept


@dataclass(frozen=True)
class OsdLoad:
    osd: str
    seconds: float
    reads_s_mean: float
    reads_s_peak: float
    writes_s_mean: float  # writes and read-modify-writes
    writes_s_peak: float
    read_kib_s_mean: float
    write_kib_s_mean: float
    read_ms: float | None  # mean latency of the reads in the window
    write_ms: float | None


def _series(samples: Sequence[dict[str, Any]], osd: str) -> list[tuple[float, dict[str, Any]]]:
    """(time, counters) of the samples in which the OSD answered."""
    return [
        (float(s["t"]), s["osd_perf"][osd])
        for s in samples
        if isinstance(s.get("osd_perf"), dict) and "op_r" in (s["osd_perf"].get(osd) or {})
    ]


def _rates(a: tuple[float, dict[str, Any]], b: tuple[float, dict[str, Any]]) -> list[float]:
    """reads/s, writes/s, read KiB/s, write KiB/s between two samples."""
    seconds = b[0] - a[0]
    x, y = a[1], b[1]
    return [
        (y["op_r"] - x["op_r"]) / seconds,
        (y["op_w"] + y.get("op_rw", 0) - x["op_w"] - x.get("op_rw", 0)) / seconds,
        (y.get("op_out_bytes", 0) - x.get("op_out_bytes", 0)) / 1024 / seconds,
        (y.get("op_in_bytes", 0) - x.get("op_in_bytes", 0)) / 1024 / seconds,
    ]


def _between(
    a: tuple[float, dict[str, Any]], b: tuple[float, dict[str, Any]], t: float
) -> tuple[float, dict[str, Any]]:
    """The counters at t, linearly between samples a and b (a latency's count and sum each)."""
    share = (t - a[0]) / (b[0] - a[0])

    def value(x: Any, y: Any) -> Any:
        if isinstance(x, list):
            return [value(i, j) for i, j in zip(x, y, strict=True)]
        return x + (y - x) * share

    return t, {name: value(a[1][name], b[1][name]) for name in a[1] if name in b[1]}


def _at(
    series: list[tuple[float, dict[str, Any]]], t: float
) -> tuple[float, dict[str, Any]] | None:
    """The counters at t, between the samples around it; None unless there are samples on
    both sides."""
    for a, b in zip(series, series[1:], strict=False):
        if a[0] <= t <= b[0] and b[0] > a[0]:
            return _between(a, b, t)
    return None


def _latency_ms(x: dict[str, Any], y: dict[str, Any], name: str) -> float | None:
    if name not in x or name not in y or y[name][0] <= x[name][0]:
        return None
    return (y[name][1] - x[name][1]) / (y[name][0] - x[name][0]) * 1000


def osd_loads(samples: Sequence[dict[str, Any]], window: Window | None) -> list[OsdLoad]:
    """Each OSD's load over the window (all samples without one), in the order of their
    ids: the mean from the counters at the window's start and stop (those of the first and
    last sample inside it where no sample lies beyond), the peak over the intervals between
    the samples inside it (with fewer than two inside, the two around it)."""
    osds = sorted(
        {
            osd
            for s in samples
            if isinstance(s.get("osd_perf"), dict)
            for osd, counters in s["osd_perf"].items()
            if isinstance(counters, dict) and "op_r" in counters
        },
        key=lambda osd: (len(osd), osd),
    )
    loads = []
    for osd in osds:
        every = _series(samples, osd)
        series = in_window(every, window, itemgetter(0))
        if len(series) < 2 or series[-1][0] <= series[0][0]:
            continue
        first, last = series[0], series[-1]
        if window is not None:
            first = _at(every, window[0]) or first
            last = _at(every, window[1]) or last
        mean = _rates(first, last)
        each = [_rates(a, b) for a, b in zip(series, series[1:], strict=False) if b[0] > a[0]]
        loads.append(
            OsdLoad(
                f"osd.{osd}",
                last[0] - first[0],
                mean[0],
                max(r[0] for r in each),
                mean[1],
                max(r[1] for r in each),
                mean[2],
                mean[3],
                _latency_ms(first[1], last[1], "op_r_latency"),
                _latency_ms(first[1], last[1], "op_w_latency"),
            )
        )
    return loads


def osd_perf_problem(samples: Sequence[dict[str, Any]]) -> str:
    """Why the samples have no OSD counters: the first error they hold ('' if none)."""
    for sample in samples:
        perf = sample.get("osd_perf")
        if not isinstance(perf, dict):
            continue
        if "error" in perf:
            return str(perf["error"])
        for osd, counters in perf.items():
            if isinstance(counters, dict) and "error" in counters:
                return f"osd.{osd}: {counters['error']}"
    return ""
