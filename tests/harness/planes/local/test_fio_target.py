"""The local target running real fio on this machine's disk."""

from __future__ import annotations

import csv
import os
import stat
import subprocess
from pathlib import Path

import pytest

from harness.campaign.run import run_campaign
from harness.core.spec import validate
from harness.core.store import CampaignStore
from harness.planes.base import TargetError
from harness.planes.local.fio_target import LocalFioTarget
from harness.records.fio import FIO_COLUMNS
from tests.harness.helpers import fio_json, small_ext4, tiny_spec

pytestmark = pytest.mark.functional


def run(spec, results, target_class=LocalFioTarget):
    return run_campaign(spec, results, target_class)


# quiet: a disk of its own keeps other tests' I/O off its counters, but not their CPU: on
# a saturated machine fio's rate swings within a 3 s step, and the device's whole 1 s
# samples inside it were 21 % under fio's average in 2 of 6 suite runs (2026-11-26)
@pytest.mark.quiet
def test_campaign_records_match_fios_own_numbers(tmp_path):
    # a disk of its own, so that its counters are this campaign's I/O alone; 3 s steps:
    # long enough for whole 1 s device samples inside fio's run window
    with small_ext4(tmp_path, "256M") as data:
        outcome = run(tiny_spec(data, workload={"runtime": 3}), tmp_path / "results")
    assert outcome.ok, [r.summary for r in outcome.results]
    store = outcome.store
    rows = list(csv.DictReader((store.root / "fio.csv").open()))
    assert list(rows[0]) == FIO_COLUMNS
    assert [r["concurrency"] for r in rows] == ["1", "2", "2"]
    for step_id in store.step_ids():
        raw = fio_json(store.raw_dir(step_id) / "fio.out")
        step_rows = [r for r in rows if r["step"] == step_id]
        assert len(step_rows) == len(raw["jobs"])
        for job, row in zip(raw["jobs"], step_rows, strict=True):
            assert row["jobname"] == job["jobname"]
            for d in ("read", "write"):
                assert float(row[f"{d}_iops"]) == pytest.approx(job[d]["iops"], rel=1e-6)
                assert float(row[f"{d}_bandwidth"]) == job[d]["bw"]
                if job[d]["total_ios"]:
                    p99 = job[d]["clat_ns"]["percentile"]["99.000000"] / 1e6
                    assert float(row[f"{d}_complelatency_99%ile"]) == pytest.approx(p99)
    summary = outcome.results[-1].summary
    assert summary["readers"] == summary["writers"] == 1
    assert summary["read"]["iops_sum"] == pytest.approx(float(rows[1]["read_iops"]))
    # the device under test counted about what fio did (direct I/O on prefilled files)
    device = summary["device"]
    assert device is not None and device["device_iops"] > 0
    assert device["iops_gap"] < 0.15, device
    assert summary["host"]["cpu_busy"] > 0
    # the host's load table: the same device, over the same window, as the device check
    (host,) = summary["nodes"]
    disk = next(d for d in host["disks"] if d["device"] == device["device"])
    assert host["node"] == "host" and host["cpu_busy_mean"] > 0
    assert disk["iops_mean"] == pytest.approx(device["device_iops"], rel=0.05)
    assert f"host,disk,{device['device']},iops," in (store.root / "nodes.csv").read_text()
    # consumer files are gone, and so is their record
    assert not list(data.iterdir())
    assert store.created() == {}
    assert (store.raw_dir(store.step_ids()[0]) / "host.jsonl").stat().st_size > 0


def test_files_are_reused_and_prefilled_once(tmp_path):
    outcome = run(tiny_spec(tmp_path, sweep=[1, 2, 3]), tmp_path / "results")
    notes = [r.summary["notes"] for r in outcome.results]
    # each step adds one consumer, and only the new consumer's file is written first
    assert all(len(n) == 1 and n[0].startswith("prefilled 1 x 8M in ") for n in notes), notes


def a_block_device() -> Path:
    for name in sorted(os.listdir("/sys/block")):
        path = Path("/dev") / name
        if path.exists() and stat.S_ISBLK(path.stat().st_mode):
            return path
    raise AssertionError("this machine has no block device node under /dev")


def test_refuses_a_block_device_without_the_flag(tmp_path):
    device = a_block_device()
    with pytest.raises(TargetError, match=f"{device} is a block device.*--allow-device"):
        run(tiny_spec(device), tmp_path / "results")


def test_refuses_a_file_it_did_not_create(tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    precious = data / "volperf-tiny-c01.dat"
    precious.write_text("user data")
    with pytest.raises(TargetError, match=f"{precious} exists and volperf did not create it"):
        run(tiny_spec(data), tmp_path / "results")
    assert precious.read_text() == "user data"
    status = CampaignStore(tmp_path / "results" / "tiny").read_status("001-randrw-4k-c001-r1")
    assert status.state == "failed" and "--allow-existing" in status.error


def test_allow_existing_uses_the_file_and_leaves_it(tmp_path):
    precious = tmp_path / "volperf-tiny-c01.dat"
    precious.write_bytes(b"\0" * (8 << 20))
    spec = tiny_spec(
        tmp_path, sweep=[1], target={"type": "local", "dir": str(tmp_path), "allow_existing": True}
    )
    outcome = run(spec, tmp_path / "results")
    assert outcome.ok
    assert precious.exists()


@pytest.mark.parametrize(
    ("directory", "message"),
    [("missing", "no such directory"), ("file.txt", "not a directory")],
)
def test_bad_directories(tmp_path, directory, message):
    (tmp_path / "file.txt").write_text("x")
    with pytest.raises(TargetError, match=message):
        run(tiny_spec(tmp_path / directory), tmp_path / "results")


def test_not_enough_space_is_refused_before_anything_runs(tmp_path):
    spec = tiny_spec(tmp_path, workload={"size": "900T"})
    with pytest.raises(TargetError, match=r"not enough free space .* needs 1800\.00 TiB|needs"):
        run(spec, tmp_path / "results")
    assert not (tmp_path / "results" / "tiny" / "steps").exists()


@pytest.fixture
def small_tmpfs(tmp_path):
    mount_point = tmp_path / "small"
    mount_point.mkdir()
    subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=24m", "volperf-test", str(mount_point)], check=True
    )
    yield mount_point
    subprocess.run(["umount", "-l", str(mount_point)], check=True)


def test_disk_filling_up_mid_campaign_fails_the_step_and_keeps_the_rest(tmp_path, small_tmpfs):
    class NoisyNeighbour(LocalFioTarget):
        """Another tenant fills the file system after volperf checked the space."""

        def run_step(self, step, store, stop, tick):
            if step.concurrency == 2:
                filler = small_tmpfs / "neighbour.dat"
                free = os.statvfs(small_tmpfs).f_bavail * os.statvfs(small_tmpfs).f_frsize
                filler.write_bytes(b"x" * (free - (2 << 20)))
            return super().run_step(step, store, stop, tick)

    spec = tiny_spec(small_tmpfs, workload={"direct": False, "ioengine": "psync"})
    outcome = run(spec, tmp_path / "results", NoisyNeighbour)
    states = [r.summary["state"] for r in outcome.results]
    assert states == ["done", "failed"]
    error = outcome.results[1].summary["error"]
    assert "No space left on device" in error and "prefill" in error
    assert outcome.failed_steps == ["002-randrw-4k-c002-r1"]
    # the first step's results are intact, and volperf's files are cleaned up
    rows = list(csv.DictReader((outcome.store.root / "fio.csv").open()))
    assert [r["step"] for r in rows] == ["001-randrw-4k-c001-r1"]
    assert sorted(p.name for p in small_tmpfs.iterdir()) == ["neighbour.dat"]


@pytest.fixture
def loop_device(tmp_path):
    backing = tmp_path / "loop.img"
    with backing.open("wb") as handle:
        handle.truncate(32 << 20)
    device = subprocess.run(
        ["losetup", "--find", "--show", str(backing)], check=True, capture_output=True, text=True
    ).stdout.strip()
    yield Path(device)
    subprocess.run(["losetup", "--detach", device], check=True)


def test_a_device_given_explicitly_is_split_between_consumers(tmp_path, loop_device):
    spec = tiny_spec(
        loop_device, target={"type": "local", "dir": str(loop_device), "allow_device": True}
    )
    outcome = run(spec, tmp_path / "results")
    assert outcome.ok, [r.summary["error"] for r in outcome.results]
    job = (outcome.store.raw_dir("002-randrw-4k-c002-r1") / "fio.job").read_text()
    assert f"filename={loop_device}" in job and "offset=8388608" in job
    assert outcome.results[-1].summary["device"]["device"] == loop_device.name
    assert outcome.removed == []  # volperf made no files; the device stays as it is


def test_space_check_counts_fio_workloads_only_in_a_mixed_campaign(tmp_path):
    mixed = validate(
        {
            "name": "mixed",
            "target": {"type": "local", "dir": str(tmp_path)},
            "sweep": [1, 2],
            "workloads": [
                {"name": "f", "rw": "randread", "size": "2M"},
                {"name": "pg", "tool": "pgbench", "scale": 1},
            ],
        }
    )
    target = LocalFioTarget(mixed)
    target.prepare(mixed, CampaignStore(tmp_path / "results" / "mixed"))  # pgbench has no size
    assert target._needed_bytes() == 2 * 2**20 * 2  # 2M x 2 consumers
