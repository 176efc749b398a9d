"""Did a database step measure storage or memory? Two real sysbench OLTP campaigns on
volperf's own MariaDB: data that fits a large buffer pool, and data sized to twice a
tiny one (O_DIRECT, MariaDB's default). The test reads /proc/diskstats itself, every
50 ms, and measures the database's folder with du, while volperf runs."""

from __future__ import annotations

import json
import os
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from harness.campaign.run import run_campaign
from harness.core.spec import validate
from harness.core.store import CampaignStore
from harness.planes.local.target import LocalTarget
from harness.records.compare import compare_campaigns
from harness.report import tables
from harness.report.data import load
from tests.harness.db_fixtures import make_reachable
from tests.harness.helpers import small_ext4

pytestmark = pytest.mark.functional
SECTOR = 512
TINY_POOL = 8 * 2**20


def diskstats(major: int, minor: int) -> tuple[int, int]:
    """Reads completed and sectors read of one device, straight from the kernel."""
    for line in Path("/proc/diskstats").read_text().splitlines():
        f = line.split()
        if (int(f[0]), int(f[1])) == (major, minor):
            return int(f[3]), int(f[5])
    raise AssertionError(f"device {major}:{minor} not in /proc/diskstats")


def at(samples: list[tuple[float, tuple[int, int]]], when: float) -> tuple[float, float]:
    for (t0, a), (t1, b) in zip(samples, samples[1:], strict=False):
        if t0 <= when <= t1:
            share = (when - t0) / (t1 - t0)
            return a[0] + (b[0] - a[0]) * share, a[1] + (b[1] - a[1]) * share
    raise AssertionError(f"no samples around {when}")


class Watcher(threading.Thread):
    """Samples the device's counters and, once the load is done, sizes the database."""

    def __init__(self, storage: Path, results: Path):
        super().__init__(daemon=True)
        st = os.stat(storage)
        self.device = (os.major(st.st_dev), os.minor(st.st_dev))
        self.storage, self.results = storage, results
        self.samples: list[tuple[float, tuple[int, int]]] = []
        self.database_bytes: int | None = None
        self.done = threading.Event()

    def run(self) -> None:
        while not self.done.is_set():
            self.samples.append((time.time(), diskstats(*self.device)))
            if self.database_bytes is None and list(self.results.glob("*/steps/*/raw/load.json")):
                folder = next(self.storage.glob("volperf-*-mariadb-c01/sbtest"))
                du = subprocess.run(["du", "-s", "-B1", str(folder)], capture_output=True)
                self.database_bytes = int(du.stdout.split()[0])
            time.sleep(0.05)


def run_watched(base: Path, name: str, workload: dict, pool: str) -> tuple[dict, Watcher]:
    storage = make_reachable(base / name / "storage")
    results = base / name / "results"
    spec = validate(
        {
            "name": name,
            "target": {"type": "local", "dir": str(storage)},
            "workloads": [
                {"name": "oltp", "tool": "sysbench-oltp", "test": "read_only", "runtime": 8}
                | workload
            ],
            "sweep": [1],
            "databases": {"mariadb": {"options": {"innodb_buffer_pool_size": pool}}},
        }
    )
    watcher = Watcher(storage, results)
    watcher.start()
    try:
        outcome = run_campaign(spec, results, LocalTarget)
        assert outcome.ok, [r.summary.get("error") for r in outcome.results]
    finally:
        watcher.done.set()
        watcher.join()
    [step] = load(CampaignStore(results / name)).steps
    return step, watcher


@pytest.fixture(scope="module")
def steps(tmp_path_factory) -> Iterator[dict[str, tuple[dict, Watcher]]]:
    """Both campaigns on a disk of their own, whose counters are their I/O alone while
    other tests run beside them."""
    with small_ext4(tmp_path_factory.mktemp("storage"), "1G") as base:
        yield {
            "fits": run_watched(base, "fits", {"tables": 2, "table_size": 5000}, "256M"),
            "sized": run_watched(base, "sized", {"tables": 2, "dataset": "2x-memory"}, "8M"),
        }


def own_reading(step: dict, watcher: Watcher) -> tuple[float, float]:
    """Reads/s and read MiB/s over the clients' run, from the test's own samples."""
    raw = next(watcher.results.glob(f"*/steps/{step['step']}/raw"))
    run = json.loads((raw / "process.json").read_text())["c01"]
    (r0, s0), (r1, s1) = at(watcher.samples, run["start_s"]), at(watcher.samples, run["end_s"])
    seconds = run["end_s"] - run["start_s"]
    return (r1 - r0) / seconds, (s1 - s0) * SECTOR / 2**20 / seconds


def page_figures(step: dict) -> dict[str, str]:
    [row] = tables.storage_rows([step])
    return dict(zip(tables.STORAGE_HEADER, row, strict=True))


def test_data_that_fits_the_buffer_pool_is_memory_not_storage(steps):
    step, watcher = steps["fits"]
    storage = step["storage"]
    assert storage["data_bytes"] < storage["memory_bytes"] == 256 * 2**20
    [warning] = [w for w in step["warnings"] if w["code"] == "memory-not-storage"]
    assert warning["message"].startswith("this step measured memory, not storage: ")
    assert (
        "fits in the memory" in warning["message"]
        and "innodb_buffer_pool_size" in warning["message"]
    )
    assert step["db"]["memory_not_storage"] is True
    # the device read (almost) nothing while sysbench was served thousands of queries
    reads, _ = own_reading(step, watcher)
    queries = step["db"]["qps_total"]
    assert storage["device_read_iops"] < 0.01 * queries and reads < 0.01 * queries
    # a few reads/s of the file system's own (metadata, the journal): agreement within half
    # the threshold
    assert storage["device_read_iops"] == pytest.approx(reads, abs=0.005 * queries)
    assert page_figures(step)["measured"] == "memory, not storage"


def test_data_twice_a_tiny_buffer_pool_is_read_from_the_device(steps):
    step, watcher = steps["sized"]
    storage = step["storage"]
    assert not [w for w in step["warnings"] if w["code"] == "memory-not-storage"]
    assert step["db"]["memory_not_storage"] is False
    assert storage["memory_bytes"] == TINY_POOL
    reads, read_mib_s = own_reading(step, watcher)
    assert storage["device_read_iops"] > 0.01 * step["db"]["qps_total"]
    # what volperf reports (and the page shows) is what the kernel counted
    assert storage["device_read_iops"] == pytest.approx(reads, rel=0.05)
    assert storage["device_read_mib_s"] == pytest.approx(read_mib_s, rel=0.05)
    page = page_figures(step)
    assert float(page["device reads/s"].replace(",", "")) == pytest.approx(reads, rel=0.05)
    assert page["measured"] == "storage"


def test_the_sized_dataset_is_at_least_twice_the_memory(steps):
    step, watcher = steps["sized"]
    assert watcher.database_bytes is not None
    assert watcher.database_bytes >= 2 * TINY_POOL  # du of the database's own folder
    assert step["storage"]["data_bytes"] == pytest.approx(watcher.database_bytes, rel=0.05)


def test_compare_carries_the_flag(steps):
    fits, sized = (load(CampaignStore(w.results / n)) for n, (_, w) in steps.items())
    comparison = compare_campaigns(fits.compared(), sized.compared())
    [match] = comparison.matches
    measured = next(d for d in match.differences if d.setting == "measured")
    assert (measured.baseline, measured.other, measured.changes_meaning) == (
        "memory, not storage",
        "storage",
        True,
    )
    tps = next(d for d in comparison.deltas if d.metric == "tps_total")
    assert tps.verdict == "not comparable" and "baseline measured memory" in tps.note
