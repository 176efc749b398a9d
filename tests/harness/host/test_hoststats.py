from __future__ import annotations

import os
from pathlib import Path

import pytest

from harness.host.hoststats import (
    BlockDevice,
    DiskCounters,
    device_for_path,
    interpolate,
    parse_cpu,
    parse_diskstats,
    parse_meminfo,
    rates_between,
)
from harness.host.machine import directory_bytes

DISKSTATS = (
    " 254       0 vda 80488 10 2826114 100 9123 20 1070960 300 0 400 500 0 0 0 0 0 0\n"
    " 254       1 vda1 100 0 800 1 50 0 400 2 0 3 4\n"
)


def test_parse_diskstats():
    counters = parse_diskstats(DISKSTATS, BlockDevice("vda", 254, 0))
    assert counters == DiskCounters(80488, 2826114, 9123, 1070960)
    assert parse_diskstats(DISKSTATS, BlockDevice("sdz", 8, 0)) is None


def test_parse_this_hosts_proc_files():
    busy, total = parse_cpu(Path("/proc/stat").read_text())
    assert 0 <= busy <= total
    memory = parse_meminfo(Path("/proc/meminfo").read_text())
    assert memory["MemTotal"] >= memory["MemAvailable"] > 0
    with pytest.raises(ValueError):
        parse_cpu("intr 1 2 3\n")


def test_device_of_a_directory_on_disk(tmp_path):
    device = device_for_path(Path(__file__))
    assert device is not None
    counters = parse_diskstats(Path("/proc/diskstats").read_text(), device)
    assert counters is not None and counters.reads > 0


def test_directory_bytes_counts_what_is_allocated(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "full").write_bytes(b"x" * 65536)
    with open(tmp_path / "sparse", "wb") as sparse:
        sparse.truncate(1 << 30)  # a 1 GiB hole holds nothing
    expected = sum(os.lstat(p).st_blocks * 512 for p in (tmp_path / "a/full", tmp_path / "sparse"))
    assert directory_bytes(tmp_path) == expected
    assert 65536 <= directory_bytes(tmp_path) < 1 << 20
    assert directory_bytes(tmp_path / "missing") == 0


def test_virtual_file_systems_have_no_device():
    assert device_for_path(Path("/proc/self")) is None


def test_rates_between():
    a = DiskCounters(0, 0, 0, 0)
    b = DiskCounters(1000, 8000, 500, 4000)
    rates = rates_between(a, b, 2.0)
    assert (rates.read_iops, rates.write_iops, rates.iops) == (500, 250, 750)
    assert rates.bandwidth_kib == 12000 * 512 / 1024 / 2
    assert (rates.read_kib, rates.write_kib) == (8000 * 512 / 1024 / 2, 4000 * 512 / 1024 / 2)
    with pytest.raises(ValueError):
        rates_between(a, b, 0)


def test_interpolate():
    samples = [(0.0, DiskCounters(0, 0, 0, 0)), (1.0, DiskCounters(100, 800, 10, 80))]
    assert interpolate(samples, 0.5) == DiskCounters(50, 400, 5, 40)
    assert interpolate(samples, -1) == samples[0][1]
    assert interpolate(samples, 5) == samples[1][1]
