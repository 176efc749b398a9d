"""Fixtures for tests that start real database servers (imported by conftest files)."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest


def make_reachable(directory: Path) -> Path:
    """pytest's temporary directories are private to root; the servers' service users
    (mysql, postgres) must traverse them to reach their data, so parents get o+x."""
    directory.mkdir(parents=True, exist_ok=True)
    for path in [directory, *directory.parents]:
        if path == Path("/"):
            break
        mode = path.stat().st_mode & 0o7777
        if not mode & 0o001:
            os.chmod(path, mode | 0o011)
    return directory


@pytest.fixture
def reachable_dir(tmp_path: Path) -> Path:
    return make_reachable(tmp_path / "storage")


@pytest.fixture
def socket_root() -> Iterator[Path]:
    """Short (a socket path has 107 bytes) and reachable by the service users."""
    root = Path(tempfile.mkdtemp(prefix="volperf-test-"))
    root.chmod(0o755)
    yield root
    shutil.rmtree(root, ignore_errors=True)
