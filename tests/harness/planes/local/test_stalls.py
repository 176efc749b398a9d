"""Stalls found where I/O really stopped: a file system of its own on a loop device,
frozen (fsfreeze) for 1, 3 and 10 s while fio writes to it, each freeze's real start and
length noted; then a step nobody froze."""

from __future__ import annotations

import csv
import json
import subprocess
import threading
import time
from datetime import datetime
from pathlib import Path

import pytest

from harness.campaign.run import run_campaign
from harness.planes.local.fio_target import LocalFioTarget
from tests.harness.helpers import small_ext4, tiny_spec

# quiet: a second without a completed I/O must be the freeze's, not another test's load
pytestmark = [pytest.mark.functional, pytest.mark.quiet]
FREEZES_S = (1, 3, 10)


def _freeze(mount: Path, job: Path, noted: list[tuple[float, float]], done: threading.Event):
    """Once fio's job is written, three freezes with a thaw of 3 s before each."""
    while not job.exists() and not done.is_set():
        time.sleep(0.05)
    for seconds in FREEZES_S:
        if done.wait(3):
            return
        subprocess.run(["fsfreeze", "-f", str(mount)], check=True)
        began = time.time()
        try:
            time.sleep(seconds)
        finally:
            subprocess.run(["fsfreeze", "-u", str(mount)], check=True)
        noted.append((began, time.time() - began))


def test_each_freeze_is_a_stall_within_a_second_of_when_and_how_long(tmp_path):
    results = tmp_path / "results"
    with small_ext4(tmp_path, "64M") as mount:
        frozen = {"name": "frozen", "rw": "randwrite", "bs": "4k", "iodepth": 4, "size": "16M"}
        frozen |= {"runtime": 24, "prefill": False}
        clean = {**frozen, "name": "clean", "runtime": 4}
        spec = tiny_spec(mount, name="stalls", sweep=[1], workloads=[frozen, clean])
        job = results / "stalls" / "steps" / "001-frozen-c001-r1" / "raw" / "fio.job"
        noted: list[tuple[float, float]] = []
        done = threading.Event()
        freezer = threading.Thread(target=_freeze, args=(mount, job, noted, done))
        freezer.start()
        try:
            assert run_campaign(spec, results, LocalFioTarget).ok
        finally:
            done.set()
            freezer.join()
    assert [round(s) for _, s in noted] == list(FREEZES_S)
    root = results / "stalls"
    frozen_step, clean_step = json.loads((root / "summary.json").read_text())["steps"]
    found = [e for e in csv.DictReader((root / "events.csv").open()) if e["event"] == "stall"]
    assert [e["step"] for e in found] == [frozen_step["step"]] * 3, found
    for (began, seconds), event in zip(noted, found, strict=True):
        start = datetime.fromisoformat(event["start"]).timestamp()
        assert start == pytest.approx(began, abs=1.0), (event, began)
        assert float(event["seconds"]) == pytest.approx(seconds, abs=1.0), (event, seconds)
    stalls = frozen_step["stalls"]
    assert (stalls["consumers_stalled"], stalls["count"]) == (1, 3)
    assert stalls["longest_s"] == pytest.approx(10, abs=1.0)
    assert stalls["total_s"] == pytest.approx(sum(s for _, s in noted), abs=1.5)
    assert stalls["within_s"] == 0.05  # from completions logged every 100 ms
    (warning,) = [w for w in frozen_step["warnings"] if w["code"] == "stalled"]
    assert "1 of 1 consumers completed no I/O for 1 s or more (3 stalls" in warning["message"]
    rows = {r["step"]: r for r in csv.DictReader((root / "fio.csv").open())}
    assert rows[frozen_step["step"]]["stalls"] == "3"
    assert float(rows[frozen_step["step"]]["stall_longest_s"]) == stalls["longest_s"]
    # the step nobody froze: its stalls were looked for, and there are none
    assert clean_step["stalls"]["count"] == 0 and rows[clean_step["step"]]["stalls"] == "0"
    assert not [w for w in clean_step["warnings"] if w["code"] == "stalled"]
