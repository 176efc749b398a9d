"""The disk whose I/O the testbed makes cgroup v1 count: the whole disk under a path, and
none for a file system on no disk (the counting is then simply not set up)."""

from __future__ import annotations

import os
from pathlib import Path

from harness.testbeds.k8s.testbed import count_block_io, disk_of


def test_the_disk_of_a_path_on_a_disk_is_its_whole_disk(tmp_path):
    disk = disk_of(tmp_path)
    assert disk is not None
    assert not (Path("/sys/dev/block", disk) / "partition").exists()
    dev = os.stat(tmp_path).st_dev
    assert Path(f"/sys/dev/block/{os.major(dev)}:{os.minor(dev)}").exists()


def test_a_path_on_no_disk_has_none_and_counting_is_left_alone():
    assert disk_of(Path("/proc/self")) is None
    assert count_block_io(Path("/proc/self")) is None
