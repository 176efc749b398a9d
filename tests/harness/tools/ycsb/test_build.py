"""harness/tools/ycsb/build.py: volperf-ycsb built from the Go module proxy (once, then
from its cache), its usage error, and what a user hears without a Go toolchain."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from harness.tools.ycsb.build import NAME, YcsbBuildError, ensure_ycsb

pytestmark = pytest.mark.functional


def test_the_client_is_built_once_and_names_a_bad_command():
    said: list[str] = []
    binary = ensure_ycsb(said.append)
    assert binary.name == NAME and os.access(binary, os.X_OK)
    again: list[str] = []
    assert ensure_ycsb(again.append) == binary and again == []  # from the cache
    done = subprocess.run([str(binary), "scan"], capture_output=True, text=True, check=False)
    assert done.returncode == 2
    assert done.stderr.startswith("volperf-ycsb: usage: volperf-ycsb load|run")


def test_without_go_the_error_says_where_to_get_one(monkeypatch, tmp_path: Path):
    folders = os.environ.get("PATH", "").split(os.pathsep)
    monkeypatch.setenv("PATH", os.pathsep.join(f for f in folders if not (Path(f) / "go").exists()))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.delenv("VOLPERF_GO", raising=False)
    with pytest.raises(YcsbBuildError, match=r"YCSB client .* Go 1\.23 or newer: no `go` on PATH"):
        ensure_ycsb(print)
