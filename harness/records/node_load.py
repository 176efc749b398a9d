"""What each node did during a step, from its samples (host/node_snapshot.py): CPU busy,
memory in use, every disk's IOPS, throughput, utilisation and await, every interface's
traffic; the mean over the step's window and the peak of its one-second intervals.

The window is the step's measured one where it has one (fio's runs), else the whole
span sampled. Means come from the counters at the first and last sample inside the
window, so they are what the device counted over that time; peaks from each pair of
consecutive samples inside it."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from operator import attrgetter
from pathlib import Path
from typing import TypeVar

from harness.host.hoststats import SECTOR_BYTES
from harness.host.node_snapshot import NODES_DIR, NodeSample, read_snapshots
from harness.records.db import csv_text


@dataclass(frozen=True)
class DiskLoad:
    device: str
    iops_mean: float
    iops_peak: float
    kib_s_mean: float
    kib_s_peak: float
    util_mean: float  # share of the time the device had I/O in flight
    util_peak: float
    await_ms: float | None  # mean time an I/O took, queueing included


@dataclass(frozen=True)
class NetLoad:
    interface: str
    rx_kib_s_mean: float
    rx_kib_s_peak: float
    tx_kib_s_mean: float
    tx_kib_s_peak: float


@dataclass(frozen=True)
class NodeLoad:
    node: str
    seconds: float
    samples: int
    cpu_busy_mean: float | None  # share of all CPUs
    cpu_busy_peak: float | None
    mem_used_mean_kib: float | None  # MemTotal - MemAvailable
    mem_used_peak_kib: float | None
    disks: tuple[DiskLoad, ...]  # devices that did I/O, busiest first
    nets: tuple[NetLoad, ...]  # interfaces with traffic but loopback, busiest first


Window = tuple[float, float]
T = TypeVar("T")


def in_window(
    samples: Sequence[T], window: Window | None, when: Callable[[T], float] = attrgetter("t")
) -> list[T]:
    """The samples taken inside the window (``when``: a sample's time); all of them without
    one. With fewer than two inside, the two around it, so a window shorter than a sample's
    interval still has a rate."""
    if window is None:
        return list(samples)
    start, stop = window
    inside = [s for s in samples if start <= when(s) <= stop]
    if len(inside) >= 2:
        return inside
    before = [s for s in samples if when(s) < start][-1:]
    after = [s for s in samples if when(s) > stop][:1]
    return before + inside + after


def cpu_busy(a: NodeSample, b: NodeSample) -> float | None:
    if a.cpu is None or b.cpu is None or b.cpu[1] <= a.cpu[1]:
        return None
    return (b.cpu[0] - a.cpu[0]) / (b.cpu[1] - a.cpu[1])


def mem_used_kib(sample: NodeSample) -> int | None:
    total, available = sample.mem_kib.get("MemTotal"), sample.mem_kib.get("MemAvailable")
    return total - available if total is not None and available is not None else None


def disk_rates(a: NodeSample, b: NodeSample, device: str) -> tuple[float, float, float, float]:
    """(IOPS, KiB/s, utilisation, ms of I/O) of a device between two samples."""
    seconds = b.t - a.t
    x, y = a.disks.get(device), b.disks.get(device)
    if seconds <= 0 or y is None:
        return 0.0, 0.0, 0.0, 0.0
    if x is None:  # its first I/O came between the two samples
        x = type(y)(0, 0, 0, 0, 0, 0, 0)
    ios = (y.reads - x.reads) + (y.writes - x.writes)
    sectors = (y.read_sectors - x.read_sectors) + (y.write_sectors - x.write_sectors)
    busy_ms = (y.read_ms - x.read_ms) + (y.write_ms - x.write_ms)
    return (
        ios / seconds,
        sectors * SECTOR_BYTES / 1024 / seconds,
        min(1.0, (y.io_ms - x.io_ms) / 1000 / seconds),
        float(busy_ms),
    )


def net_rates(a: NodeSample, b: NodeSample, interface: str) -> tuple[float, float]:
    """(received, sent) KiB/s of an interface between two samples."""
    seconds = b.t - a.t
    x, y = a.net.get(interface), b.net.get(interface)
    if seconds <= 0 or x is None or y is None:
        return 0.0, 0.0
    return (y.rx_bytes - x.rx_bytes) / 1024 / seconds, (y.tx_bytes - x.tx_bytes) / 1024 / seconds


def _peak(values: list[float | None]) -> float | None:
    present = [v for v in values if v is not None]
    return max(present) if present else None


def _peaks(rates: list[tuple[float, ...]]) -> tuple[float, ...]:
    """The highest of each figure over the intervals' rates."""
    return tuple(max(figure) for figure in zip(*rates, strict=True))


def _disk_load(
    first: NodeSample, last: NodeSample, pairs: list[tuple[NodeSample, NodeSample]], device: str
) -> DiskLoad | None:
    """A device's load between the first and last sample; None if it did no I/O."""
    iops, kib, util, busy_ms = disk_rates(first, last, device)
    if iops <= 0:
        return None
    iops_peak, kib_peak, util_peak, _ = _peaks([disk_rates(a, b, device) for a, b in pairs])
    ios = iops * (last.t - first.t)
    return DiskLoad(device, iops, iops_peak, kib, kib_peak, util, util_peak, busy_ms / ios)


def node_load(node: str, samples: Sequence[NodeSample], window: Window | None) -> NodeLoad | None:
    """The node's load over the window; None with fewer than two samples to go by."""
    chosen = in_window(samples, window)
    if len(chosen) < 2:
        return None
    first, last = chosen[0], chosen[-1]
    pairs = list(zip(chosen, chosen[1:], strict=False))
    used = [mem_used_kib(s) for s in chosen]
    used_known = [u for u in used if u is not None]
    devices = set(last.disks) & set(last.whole_disks or last.disks)
    disks = [d for d in (_disk_load(first, last, pairs, name) for name in devices) if d]
    nets = []
    for interface in last.net:
        rx, tx = net_rates(first, last, interface)
        if interface != "lo" and rx + tx > 0:
            rx_peak, tx_peak = _peaks([net_rates(a, b, interface) for a, b in pairs])
            nets.append(NetLoad(interface, rx, rx_peak, tx, tx_peak))
    return NodeLoad(
        node,
        last.t - first.t,
        len(chosen),
        cpu_busy(first, last),
        _peak([cpu_busy(a, b) for a, b in pairs]),
        sum(used_known) / len(used_known) if used_known else None,
        max(used_known) if used_known else None,
        tuple(sorted(disks, key=lambda d: (-d.iops_mean, d.device))),
        tuple(sorted(nets, key=lambda n: (-(n.rx_kib_s_mean + n.tx_kib_s_mean), n.interface))),
    )


def node_samples(raw: Path) -> dict[str, list[NodeSample]]:
    """Each node's samples of a step (raw/nodes/<node>.log), by node name."""
    directory = raw / NODES_DIR
    if not directory.is_dir():
        return {}
    return {path.stem: read_snapshots(path) for path in sorted(directory.glob("*.log"))}


def step_node_loads(raw: Path, window: Window | None) -> list[NodeLoad]:
    loads = (node_load(node, samples, window) for node, samples in node_samples(raw).items())
    return [load for load in loads if load is not None]


NODE_COLUMNS = ["step", "node", "part", "name", "figure", "mean", "peak", "unit"]


def node_rows(step: str, load: NodeLoad) -> list[list[object]]:
    """One row per figure of a node's load over a step: cpu, memory, each disk, each
    interface; the window's mean and its busiest second."""
    rows: list[list[object]] = [
        [step, load.node, "cpu", "all", "busy", load.cpu_busy_mean, load.cpu_busy_peak, "share"],
        [step, load.node, "memory", "all", "used"]
        + [load.mem_used_mean_kib, load.mem_used_peak_kib, "KiB"],
    ]
    for d in load.disks:
        rows += [
            [step, load.node, "disk", d.device, "iops", d.iops_mean, d.iops_peak, "1/s"],
            [step, load.node, "disk", d.device, "throughput", d.kib_s_mean, d.kib_s_peak, "KiB/s"],
            [step, load.node, "disk", d.device, "utilisation", d.util_mean, d.util_peak, "share"],
            [step, load.node, "disk", d.device, "await", d.await_ms, None, "ms"],
        ]
    for n in load.nets:
        rows += [
            [step, load.node, "net", n.interface, "received", n.rx_kib_s_mean, n.rx_kib_s_peak]
            + ["KiB/s"],
            [step, load.node, "net", n.interface, "sent", n.tx_kib_s_mean, n.tx_kib_s_peak]
            + ["KiB/s"],
        ]
    return rows


def nodes_csv(loads: Sequence[tuple[str, NodeLoad]]) -> str:
    """nodes.csv: every step's node figures."""
    return csv_text(NODE_COLUMNS, [row for step, load in loads for row in node_rows(step, load)])
