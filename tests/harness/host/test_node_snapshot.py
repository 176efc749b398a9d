"""The node-sample format: a sampler pod's log as the kubelet stamped it (captured with
fixtures/capture_node_log.py), and the same text written by volperf on the host."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from harness.host.node_snapshot import (
    epoch_of,
    parse_snapshots,
    read_snapshots,
    snapshot_lines,
    stamp,
)

LOG = Path(__file__).parent / "fixtures" / "node-sampler.log"


def test_a_sampler_pods_log_gives_one_sample_a_second_with_every_section():
    samples = read_snapshots(LOG)
    assert len(samples) == 5
    gaps = [b.t - a.t for a, b in zip(samples, samples[1:], strict=False)]
    assert all(0.99 < gap < 1.1 for gap in gaps), gaps
    first = samples[0]
    assert first.t == pytest.approx(epoch_of("2026-11-25T05:46:17.355424801Z")[0])
    jiffies = [5304712, 751, 1833454, 9306943, 99981, 0, 189166, 2198, 0, 0]
    assert first.cpu == (sum(jiffies) - 9306943 - 99981, sum(jiffies))  # idle and iowait
    assert first.mem_kib == {
        "MemTotal": 24684092,
        "MemAvailable": 23695208,
        "Cached": 757148,
        "Dirty": 2372,
        "Writeback": 44,
    }
    vda = first.disks["vda"]
    assert (vda.reads, vda.read_sectors, vda.read_ms) == (200913801, 2320106498, 45087735)
    assert (vda.writes, vda.write_sectors, vda.write_ms, vda.io_ms) == (
        138254254,
        2731054152,
        38494153,
        5779664,
    )
    assert set(first.disks) == {"loop0", "vda"}  # devices that never did I/O left out
    assert first.net["volperf0"].rx_bytes == 25888 and first.net["volperf0"].tx_bytes == 12064
    assert "vda" in first.whole_disks and "loop7" in first.whole_disks


def test_a_sample_cut_short_is_left_out_and_unstamped_lines_ignored():
    lines = LOG.read_text().splitlines(keepends=True)
    last_begin = max(i for i, line in enumerate(lines) if line.endswith("## sample\n"))
    cut = lines[: last_begin + 6]  # the last sample without its end
    assert len(parse_snapshots(cut)) == 4
    assert len(parse_snapshots(["no stamp here\n", *lines])) == 5


def test_the_host_writes_the_same_format_from_its_own_proc():
    now = time.time()
    text = snapshot_lines(now)
    (sample,) = parse_snapshots(text.splitlines(keepends=True))
    assert sample.t == pytest.approx(now, abs=1e-6)
    assert sample.cpu is not None and sample.cpu[1] > sample.cpu[0] > 0
    assert sample.mem_kib["MemTotal"] > sample.mem_kib["MemAvailable"] > 0
    assert sample.disks and set(sample.whole_disks) & set(sample.disks)
    assert "lo" in sample.net


def test_stamps_read_as_the_kubelet_and_volperf_write_them():
    assert epoch_of(stamp(1795584016.1098788))[0] == pytest.approx(1795584016.1098788, abs=1e-6)
    assert epoch_of("2026-11-25T05:46:17Z x") == (1795585577.0, "x")
    assert epoch_of("2026-11-25T06:46:17.5+01:00 x") == (1795585577.5, "x")
    assert epoch_of("2026-11-25 05:46:17 x") is None
