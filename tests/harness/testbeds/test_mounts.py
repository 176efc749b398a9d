"""Mount points a testbed leaves, looked at without waiting on them: a real FUSE mount
whose daemon answered the kernel's INIT and nothing after (as ceph-fuse once its CephFS's
MDS was stopped: `volperf testbed down k8s` then waited in the kernel forever)."""

from __future__ import annotations

import contextlib
import ctypes
import os
import struct
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from harness.testbeds.mounts import answers, mounted, removed_within

FUSE_INIT = 26


@pytest.fixture
def silent_fuse(tmp_path: Path) -> Iterator[tuple[Path, int]]:
    """A FUSE file system on tmp_path/mnt that answers INIT and then nothing; its
    /dev/fuse descriptor (closing it is the daemon's end: the kernel fails what waits)."""
    point = tmp_path / "mnt"
    point.mkdir()
    fd = os.open("/dev/fuse", os.O_RDWR)
    libc = ctypes.CDLL("libc.so.6", use_errno=True)
    options = f"fd={fd},rootmode=40000,user_id=0,group_id=0".encode()
    if libc.mount(b"volperf-test", str(point).encode(), b"fuse.volperf-test", 0, options):
        os.close(fd)
        raise OSError(ctypes.get_errno(), f"mount of a FUSE file system on {point}")
    try:
        request = os.read(fd, 1 << 20)
        _, opcode, unique = struct.unpack_from("<IIQ", request)
        assert opcode == FUSE_INIT
        minor = struct.unpack_from("<II", request, 40)[1]
        # fuse_init_out: protocol 7.(at most 31), no flags, 4 KiB writes
        reply = struct.pack("<IIIIHHIIHHI28x", 7, min(minor, 31), 0, 0, 0, 0, 4096, 0, 0, 0, 0)
        os.write(fd, struct.pack("<IiQ", 16 + len(reply), 0, unique) + reply)
        yield point, fd
    finally:
        with contextlib.suppress(OSError):
            os.close(fd)
        subprocess.run(["umount", "-l", str(point)], check=False)


def test_a_mount_that_does_not_answer_is_named_in_time_and_ends_with_its_daemon(silent_fuse):
    point, fd = silent_fuse
    assert mounted(point)  # the mount table, not a look into the mount
    started = time.monotonic()
    assert not answers(point, timeout_s=2.0)
    assert time.monotonic() - started < 5
    assert mounted(point)
    os.close(fd)  # the daemon ends: its mount fails at once from now on
    started = time.monotonic()
    assert not answers(point, timeout_s=2.0)
    assert time.monotonic() - started < 1


def test_a_folder_answers_and_a_missing_one_does_not(tmp_path: Path):
    assert answers(tmp_path)
    assert not answers(tmp_path / "missing")
    assert not mounted(tmp_path)


def test_a_removal_that_the_mount_holds_ends_in_time(silent_fuse, tmp_path: Path):
    point, _ = silent_fuse
    started = time.monotonic()
    assert not removed_within(point / "volumes", timeout_s=2.0)
    assert time.monotonic() - started < 5
    tree = tmp_path / "tree"
    (tree / "a" / "b").mkdir(parents=True)
    (tree / "a" / "b" / "file").write_text("x")
    assert removed_within(tree, timeout_s=10.0)
    assert not tree.exists()
