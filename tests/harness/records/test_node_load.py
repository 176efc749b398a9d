"""A node's load over a step from its samples: each function against figures worked out
by hand, and a step of the captured sampler log (tests/harness/host/fixtures)."""

from __future__ import annotations

import csv
import io
import shutil
from pathlib import Path

import pytest

from harness.host.hoststats import DiskStats, NetCounters
from harness.host.node_snapshot import NodeSample, read_snapshots
from harness.records.node_load import (
    cpu_busy,
    disk_rates,
    in_window,
    mem_used_kib,
    net_rates,
    node_load,
    nodes_csv,
    step_node_loads,
)

LOG = Path(__file__).parents[1] / "host" / "fixtures" / "node-sampler.log"


def disk(reads: int, writes: int, io_ms: int, busy_ms: int = 0) -> DiskStats:
    # 8 sectors (4 KiB) per I/O; busy_ms split between reads and writes
    return DiskStats(
        reads, reads * 8, busy_ms // 2, writes, writes * 8, busy_ms - busy_ms // 2, io_ms
    )


def sample(t: float, busy: int, total: int, disks=None, net=None, used: int = 1000) -> NodeSample:
    return NodeSample(
        t,
        (busy, total),
        {"MemTotal": 10_000, "MemAvailable": 10_000 - used},
        disks or {},
        net or {},
        frozenset({"vda", "loop0"}),
    )


def test_in_window_keeps_the_samples_inside_or_the_two_around_a_short_window():
    samples = [sample(t, 0, 100 * t) for t in range(10)]
    assert [s.t for s in in_window(samples, (2.5, 6.0))] == [3, 4, 5, 6]
    assert [s.t for s in in_window(samples, (2.2, 2.8))] == [2, 3]
    assert [s.t for s in in_window(samples, (2.0, 2.5))] == [1, 2, 3]  # one inside
    assert len(in_window(samples, None)) == 10


def test_cpu_busy_is_the_busy_share_of_all_jiffies_between_two_samples():
    assert cpu_busy(sample(0, 100, 1000), sample(1, 250, 1200)) == pytest.approx(0.75)
    assert cpu_busy(sample(0, 100, 1000), sample(1, 100, 1000)) is None


def test_memory_used_is_total_less_available():
    assert mem_used_kib(sample(0, 0, 1, used=2500)) == 2500
    assert mem_used_kib(NodeSample(0, None)) is None


def test_disk_rates_count_ios_bytes_time_in_flight_and_time_per_io():
    a = sample(10.0, 0, 1, {"vda": disk(1000, 500, 100, 40)})
    b = sample(12.0, 0, 1, {"vda": disk(1600, 700, 1300, 240)})
    iops, kib_s, util, busy_ms = disk_rates(a, b, "vda")
    assert iops == pytest.approx(400)  # 800 I/Os in 2 s
    assert kib_s == pytest.approx(1600)  # 800 x 4 KiB in 2 s
    assert util == pytest.approx(0.6)  # 1200 ms in flight of 2000
    assert busy_ms == 200
    # more time in flight than wall time (a rounding of the counters): capped at 1
    assert disk_rates(a, sample(11.0, 0, 1, {"vda": disk(1000, 500, 1200)}), "vda")[2] == 1.0
    # a device whose first I/O came between the samples counts from zero
    assert disk_rates(sample(0, 0, 1), b, "vda")[0] == pytest.approx((1600 + 700) / 12)


def test_net_rates_are_kib_per_second_each_way():
    a = sample(0, 0, 1, net={"eth0": NetCounters(0, 0, 0, 0)})
    b = sample(2, 0, 1, net={"eth0": NetCounters(4096, 4, 2048, 2)})
    assert net_rates(a, b, "eth0") == (2.0, 1.0)
    assert net_rates(a, b, "eth1") == (0.0, 0.0)


def test_node_load_means_over_the_window_and_peaks_of_its_seconds():
    net = {"lo": NetCounters(0, 0, 0, 0), "eth0": NetCounters(0, 0, 0, 0)}
    samples = [
        sample(0, 0, 0, {"vda": disk(0, 0, 0), "vda1": disk(0, 0, 0)}, net, used=1000),
        sample(1, 50, 100, {"vda": disk(100, 0, 500, 50), "vda1": disk(100, 0, 500)}, net, 2000),
        sample(
            2,
            60,
            200,
            {"vda": disk(400, 0, 1500, 200), "vda1": disk(400, 0, 1500)},
            {"lo": NetCounters(10**6, 1, 10**6, 1), "eth0": NetCounters(1024, 1, 0, 0)},
            3000,
        ),
    ]
    load = node_load("n1", samples, None)
    assert load is not None
    assert (load.node, load.seconds, load.samples) == ("n1", 2, 3)
    assert load.cpu_busy_mean == pytest.approx(0.3) and load.cpu_busy_peak == pytest.approx(0.5)
    assert load.mem_used_mean_kib == 2000 and load.mem_used_peak_kib == 3000
    (vda,) = load.disks  # vda1 is a partition: /sys/block does not list it
    assert vda.device == "vda"
    assert vda.iops_mean == pytest.approx(200) and vda.iops_peak == pytest.approx(300)
    assert vda.kib_s_mean == pytest.approx(800) and vda.kib_s_peak == pytest.approx(1200)
    assert vda.util_mean == pytest.approx(0.75) and vda.util_peak == pytest.approx(1.0)
    assert vda.await_ms == pytest.approx(0.5)  # 200 ms over 400 I/Os
    (eth0,) = load.nets  # loopback left out
    assert eth0.interface == "eth0" and eth0.rx_kib_s_mean == pytest.approx(0.5)
    assert eth0.rx_kib_s_peak == pytest.approx(1.0) and eth0.tx_kib_s_mean == 0
    assert node_load("n1", samples[:1], None) is None


def test_a_steps_nodes_from_its_raw_logs_and_their_csv_rows(tmp_path):
    (tmp_path / "nodes").mkdir()
    shutil.copy(LOG, tmp_path / "nodes" / "node-a.log")
    samples = read_snapshots(LOG)
    window = (samples[1].t - 0.01, samples[3].t + 0.01)
    (load,) = step_node_loads(tmp_path, window)
    assert load.node == "node-a" and load.samples == 3
    assert load.seconds == pytest.approx(samples[3].t - samples[1].t)
    vda = next(d for d in load.disks if d.device == "vda")
    a, b = samples[1].disks["vda"], samples[3].disks["vda"]
    assert vda.iops_mean == pytest.approx(
        (b.reads - a.reads + b.writes - a.writes) / (samples[3].t - samples[1].t)
    )
    rows = list(csv.DictReader(io.StringIO(nodes_csv([("001-step", load)]))))
    assert rows[0] == {
        "step": "001-step",
        "node": "node-a",
        "part": "cpu",
        "name": "all",
        "figure": "busy",
        "mean": f"{load.cpu_busy_mean:.6f}".rstrip("0").rstrip("."),
        "peak": f"{load.cpu_busy_peak:.6f}".rstrip("0").rstrip("."),
        "unit": "share",
    }
    iops = next(r for r in rows if r["name"] == "vda" and r["figure"] == "iops")
    assert float(iops["mean"]) == pytest.approx(vda.iops_mean, abs=1e-6)
    assert step_node_loads(tmp_path / "elsewhere", None) == []
