"""Read the host's counters: CPU (/proc/stat), memory (/proc/meminfo) and a block
device's I/O (/proc/diskstats), and turn two readings into rates. Pure parsing lives
here; sampler.py does the timed reading."""

from __future__ import annotations

import os
import stat
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

SECTOR_BYTES = 512  # /proc/diskstats counts 512-byte sectors whatever the device


@dataclass(frozen=True)
class BlockDevice:
    name: str
    major: int
    minor: int


@dataclass(frozen=True)
class DiskCounters:
    reads: int
    read_sectors: int
    writes: int
    write_sectors: int


def parse_diskstats(text: str, device: BlockDevice) -> DiskCounters | None:
    for line in text.splitlines():
        parts = line.split()
        if len(parts) >= 10 and (int(parts[0]), int(parts[1])) == (device.major, device.minor):
            return DiskCounters(int(parts[3]), int(parts[5]), int(parts[7]), int(parts[9]))
    return None


def parse_cpu(text: str) -> tuple[int, int]:
    """(busy, total) jiffies from the aggregate 'cpu' line of /proc/stat."""
    for line in text.splitlines():
        if line.startswith("cpu "):
            values = [int(v) for v in line.split()[1:]]
            idle = values[3] + (values[4] if len(values) > 4 else 0)  # idle + iowait
            return sum(values) - idle, sum(values)
    raise ValueError("no aggregate cpu line in /proc/stat")


def parse_meminfo(text: str) -> dict[str, int]:
    """Selected /proc/meminfo fields in KiB."""
    wanted = {"MemTotal", "MemAvailable", "Cached", "Dirty", "Writeback"}
    values: dict[str, int] = {}
    for line in text.splitlines():
        key, _, rest = line.partition(":")
        if key in wanted:
            values[key] = int(rest.split()[0])
    return values


def device_for_path(path: Path) -> BlockDevice | None:
    """The block device holding ``path`` (a file system's device, or the device itself)."""
    st = os.stat(path)
    dev = st.st_rdev if stat.S_ISBLK(st.st_mode) else st.st_dev
    major, minor = os.major(dev), os.minor(dev)
    if major == 0:  # tmpfs, overlay, other virtual file systems
        return None
    sys_link = Path(f"/sys/dev/block/{major}:{minor}")
    if not sys_link.exists():
        return None
    return BlockDevice(sys_link.resolve().name, major, minor)


@dataclass(frozen=True)
class DeviceRates:
    iops: float
    read_iops: float
    write_iops: float
    bandwidth_kib: float  # KiB/s, both directions
    read_kib: float  # KiB/s
    write_kib: float


def rates_between(a: DiskCounters, b: DiskCounters, seconds: float) -> DeviceRates:
    if seconds <= 0:
        raise ValueError(f"interval must be positive, got {seconds}")
    reads, writes = b.reads - a.reads, b.writes - a.writes
    read_kib = (b.read_sectors - a.read_sectors) * SECTOR_BYTES / 1024 / seconds
    write_kib = (b.write_sectors - a.write_sectors) * SECTOR_BYTES / 1024 / seconds
    return DeviceRates(
        iops=(reads + writes) / seconds,
        read_iops=reads / seconds,
        write_iops=writes / seconds,
        bandwidth_kib=read_kib + write_kib,
        read_kib=read_kib,
        write_kib=write_kib,
    )


def interpolate(samples: Sequence[tuple[float, DiskCounters]], when: float) -> DiskCounters:
    """Counters at time ``when``, linear between the two samples around it."""
    if not samples:
        raise ValueError("no samples")
    if when <= samples[0][0]:
        return samples[0][1]
    for (t0, c0), (t1, c1) in zip(samples, samples[1:], strict=False):
        if t0 <= when <= t1:
            share = (when - t0) / (t1 - t0) if t1 > t0 else 0.0

            def at(x: int, y: int, share: float = share) -> int:
                return round(x + (y - x) * share)

            return DiskCounters(
                at(c0.reads, c1.reads),
                at(c0.read_sectors, c1.read_sectors),
                at(c0.writes, c1.writes),
                at(c0.write_sectors, c1.write_sectors),
            )
    return samples[-1][1]


@dataclass(frozen=True)
class DiskStats:
    """One device's line of /proc/diskstats: I/Os completed, sectors, the milliseconds
    spent on them, and the milliseconds the device had I/O in flight (its utilisation)."""

    reads: int
    read_sectors: int
    read_ms: int
    writes: int
    write_sectors: int
    write_ms: int
    io_ms: int


def parse_all_diskstats(text: str) -> dict[str, DiskStats]:
    """Every device of /proc/diskstats by name."""
    devices = {}
    for line in text.splitlines():
        parts = line.split()
        if len(parts) >= 13 and parts[0].isdigit():
            n = [int(v) for v in parts[3:13]]
            devices[parts[2]] = DiskStats(n[0], n[2], n[3], n[4], n[6], n[7], n[9])
    return devices


@dataclass(frozen=True)
class NetCounters:
    rx_bytes: int
    rx_packets: int
    tx_bytes: int
    tx_packets: int


def parse_net_dev(text: str) -> dict[str, NetCounters]:
    """Every interface of /proc/net/dev by name (its two header lines skipped)."""
    interfaces = {}
    for line in text.splitlines():
        name, colon, rest = line.partition(":")
        values = rest.split()
        if colon and len(values) >= 16 and values[0].isdigit():
            interfaces[name.strip()] = NetCounters(
                int(values[0]), int(values[1]), int(values[8]), int(values[9])
            )
    return interfaces
