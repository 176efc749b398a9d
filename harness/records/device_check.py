"""Compare what fio says it did with what the device under test counted."""

from __future__ import annotations

from dataclasses import dataclass

from harness.host.hoststats import DiskCounters, interpolate, rates_between
from harness.host.sampler import disk_counters
from harness.records import stats
from harness.tools.blkio.parse import CountersUnavailable, parse_counters

GAP_WARNING = 0.10
EDGE_S = 0.25
MIN_INNER_S = 0.9


@dataclass(frozen=True)
class DeviceComparison:
    device: str
    device_iops: float
    device_bandwidth_kib: float
    fio_iops: float
    fio_bandwidth_kib: float
    iops_gap: float | None  # |device - fio| / fio


@dataclass(frozen=True)
class HostLoad:
    cpu_busy: float | None  # share of all CPUs busy over the step
    mem_available_min_kib: int | None


@dataclass(frozen=True)
class DeviceWindow:
    """What the device under test did over a window, from the host's samples."""

    device: str
    seconds: float
    read_iops: float
    write_iops: float
    read_kib_s: float
    write_kib_s: float


def disk_series(samples: list[dict[str, object]]) -> tuple[str, list[tuple[float, DiskCounters]]]:
    """The device's name and its counters over time."""
    series: list[tuple[float, DiskCounters]] = []
    device = ""
    for sample in samples:
        counters = disk_counters(sample)
        if counters is not None:
            series.append((float(sample["t"]), counters))  # type: ignore[arg-type]
            device = str(sample["disk"]["device"])  # type: ignore[index]
    return device, series


def device_window(
    samples: list[dict[str, object]], window_s: tuple[float, float]
) -> DeviceWindow | None:
    """The device's rates between two moments, its counters interpolated at both."""
    device, series = disk_series(samples)
    start, stop = window_s
    if len(series) < 2 or stop <= start:
        return None
    r = rates_between(interpolate(series, start), interpolate(series, stop), stop - start)
    return DeviceWindow(device, stop - start, r.read_iops, r.write_iops, r.read_kib, r.write_kib)


def cgroup_window(
    readings: dict[str, dict[str, str]], window_s: tuple[float, float]
) -> tuple[DeviceWindow | None, str]:
    """What the containers' own cgroups counted on their data disks between a reading
    before and one after the window (``readings``: consumer -> {"before", "after"}, the
    counters' text), summed over the consumers, as rates over the window; or None and
    why not. A container idle outside the window adds nothing outside it."""
    start, stop = window_s
    if not readings or stop <= start:
        return None, ""
    done = []
    try:
        for consumer, pair in sorted(readings.items()):
            if "before" not in pair or "after" not in pair:
                return None, f"{consumer}: its container's counters were not read twice"
            done.append(parse_counters(pair["after"]).minus(parse_counters(pair["before"])))
    except CountersUnavailable as exc:
        return None, f"{consumer}: {exc}"
    if not any(d.seen for d in done):
        return None, (
            f"the containers' {done[0].source} counters listed no disk after the run: the "
            "kernel is not counting (cgroup v1 counts once a blkio throttle rule has been "
            "set on the disk)"
        )
    seconds = stop - start
    disks = sorted({d.name or d.disk for d in done})
    return (
        DeviceWindow(
            f"{', '.join(disks)} (the database containers' {done[0].source} counters)",
            seconds,
            sum(d.read_ios for d in done) / seconds,
            sum(d.write_ios for d in done) / seconds,
            sum(d.read_bytes for d in done) / 1024 / seconds,
            sum(d.write_bytes for d in done) / 1024 / seconds,
        ),
        "",
    )


def compare(
    samples: list[dict[str, object]],
    window_s: tuple[float, float],
    fio_iops: float,
    fio_bandwidth_kib: float,
) -> DeviceComparison | None:
    device, series = disk_series(samples)
    start, stop = window_s
    if len(series) < 2 or stop <= start:
        return None
    # Whole sampling intervals inside the run measure the device in steady state; the
    # edges of the window (fio start-up, an estimated job start) would blur a short run.
    inner = [(t, c) for t, c in series if start + EDGE_S <= t <= stop - EDGE_S]
    if len(inner) >= 2 and inner[-1][0] - inner[0][0] >= MIN_INNER_S:
        (t0, c0), (t1, c1) = inner[0], inner[-1]
        rates = rates_between(c0, c1, t1 - t0)
    else:
        rates = rates_between(interpolate(series, start), interpolate(series, stop), stop - start)
    return DeviceComparison(
        device=device,
        device_iops=rates.iops,
        device_bandwidth_kib=rates.bandwidth_kib,
        fio_iops=fio_iops,
        fio_bandwidth_kib=fio_bandwidth_kib,
        iops_gap=stats.relative_gap(rates.iops, fio_iops),
    )


def host_load(samples: list[dict[str, object]]) -> HostLoad:
    cpu = [s["cpu"] for s in samples if isinstance(s.get("cpu"), dict)]
    busy = None
    if len(cpu) >= 2 and cpu[-1]["total"] > cpu[0]["total"]:  # type: ignore[index]
        busy = (cpu[-1]["busy"] - cpu[0]["busy"]) / (  # type: ignore[index]
            cpu[-1]["total"] - cpu[0]["total"]  # type: ignore[index]
        )
    available = [
        s["mem_kib"].get("MemAvailable")  # type: ignore[union-attr]
        for s in samples
        if isinstance(s.get("mem_kib"), dict)
    ]
    available = [a for a in available if a is not None]
    return HostLoad(busy, min(available) if available else None)
