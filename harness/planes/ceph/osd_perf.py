"""The Ceph OSDs' own view of a step, from their perf counters (`ceph tell osd.N perf dump
osd`) sampled with the cluster's health into raw/ceph-health.jsonl: the client
operations each OSD served (reads, writes), the bytes they carried, and their mean
latency as the OSD measured it. Pure functions of the samples: the mean over the step's
window (its fio runs, where it has them) and the busiest interval in it, per OSD."""

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


def _latency_ms(x: dict[str, Any], y: dict[str, Any], name: str) -> float | None:
    if name not in x or name not in y or y[name][0] <= x[name][0]:
        return None
    return (y[name][1] - x[name][1]) / (y[name][0] - x[name][0]) * 1000


def osd_loads(samples: Sequence[dict[str, Any]], window: Window | None) -> list[OsdLoad]:
    """Each OSD's load over the window (all samples without one; with fewer than two
    inside it, the two around it), in the order of their ids."""
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
        series = in_window(_series(samples, osd), window, itemgetter(0))
        if len(series) < 2 or series[-1][0] <= series[0][0]:
            continue
        mean = _rates(series[0], series[-1])
        each = [_rates(a, b) for a, b in zip(series, series[1:], strict=False) if b[0] > a[0]]
        loads.append(
            OsdLoad(
                f"osd.{osd}",
                series[-1][0] - series[0][0],
                mean[0],
                max(r[0] for r in each),
                mean[1],
                max(r[1] for r in each),
                mean[2],
                mean[3],
                _latency_ms(series[0][1], series[-1][1], "op_r_latency"),
                _latency_ms(series[0][1], series[-1][1], "op_w_latency"),
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
