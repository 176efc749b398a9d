"""phases.sh when a phase fails on a full file system that others free again before its
free space is read (consumers beside it end their iterations and remove their files): the
error quotes the tool's line that says a write failed, even where its last two lines do
not show it (real git clone: "unable to write file", then advice), and where that line
gives no reason (git's, GNU tar's short write) says what a full file system does, so that
the sweep's no-space rule ends where the space ran out. Real git, tar and sh on a 24 MiB
ext4 of its own (root: a loop device)."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from harness.records.sweep_stop import no_space
from harness.tools.apps import command
from tests.harness.helpers import small_ext4

pytestmark = pytest.mark.functional

PHASES = Path(command.__file__).parent / "phases.sh"


@pytest.fixture
def disk(tmp_path: Path) -> Iterator[Path]:
    with small_ext4(tmp_path) as mount:
        yield mount


def _fill(disk: Path, leave_kib: int) -> Path:
    """A file taking all of the disk's room but ``leave_kib`` (root's reserved blocks
    included: root writes there); its path."""
    filler = disk / "filler"
    stats = os.statvfs(disk)
    free_kib = stats.f_bfree * stats.f_frsize // 1024
    subprocess.run(["fallocate", "-l", f"{free_kib - leave_kib}K", str(filler)], check=True)
    return filler


def _failed_phase(disk: Path, script: str) -> str:
    """phases.sh's error line for one phase running ``script`` (sh) in WORKDIR ``disk``."""
    run = subprocess.run(
        ["sh", "-c", f'. "{PHASES}"; begin "{disk}/work"; phase 1 step sh -c \'{script}\''],
        capture_output=True,
        text=True,
        cwd=disk,
    )
    [error] = [line for line in run.stdout.splitlines() if line.startswith("volperf-app error")]
    return error


def _repository(tmp_path: Path) -> Path:
    """A repository whose checkout needs about 4 MiB."""
    origin = tmp_path / "origin"
    subprocess.run(["git", "init", "-q", "-b", "main", str(origin)], check=True)
    for number in range(40):
        (origin / f"file-{number:02d}").write_bytes(bytes([number]) * 100_000)
    subprocess.run(["git", "-C", str(origin), "add", "."], check=True)
    subprocess.run(
        [
            "git",
            "-C",
            str(origin),
            "-c",
            "user.name=v",
            "-c",
            "user.email=v@x",
            "commit",
            "-qm",
            "x",
        ],
        check=True,
    )
    return origin


def test_gits_failed_write_is_quoted_though_its_last_lines_are_advice(disk, tmp_path):
    origin = _repository(tmp_path)
    filler = _fill(disk, leave_kib=1500)  # the objects fit, the checkout does not
    error = _failed_phase(
        disk, f'git clone -q "file://{origin}" clone; code=$?; rm -f "{filler}"; exit $code'
    )
    # git says no reason ("error: unable to write file f20"), and ends with its advice
    assert "retry with 'git restore --source=HEAD :/'" in error, error
    assert "; error: unable to write file file-" in error
    assert error.endswith(" KiB free since)") and "out of space (0 KiB free)" not in error
    assert "a write failed with no reason given, as when its file system runs out" in error
    assert no_space([error]) == error


def test_tars_failed_write_says_the_file_system_ran_out(disk, tmp_path):
    source = tmp_path / "source"
    source.mkdir()
    (source / "data").write_bytes(b"x" * 4_000_000)
    filler = _fill(disk, leave_kib=1000)
    error = _failed_phase(
        disk, f'tar -cf out.tar -C "{source}" data; code=$?; rm -f "{filler}"; exit $code'
    )
    # GNU tar says ENOSPC when a write wrote nothing, not when it wrote part of a record
    if "No space left on device" not in error:
        assert "Wrote only" in error, error
        assert "a write failed with no reason given, as when its file system runs out" in error
    assert no_space([error]) == error


def test_a_phase_failing_otherwise_says_nothing_of_space(disk):
    error = _failed_phase(disk, "echo broken >&2; exit 3")
    assert error == "volperf-app error iteration=1 phase=step: broken"
    assert no_space([error]) is None
