"""harness/testbeds/k8s/build.py: which Go builds the Kubernetes testbed, and what a user
hears when there is none; tools/go-toolchain.sh, which fetches one when needed."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from harness.host import gotool
from harness.testbeds import TestbedError
from harness.testbeds.k8s import build

REPO = Path(__file__).parents[4]


def _path_without_go() -> str:
    """This machine's PATH less every folder that holds a `go`."""
    folders = os.environ.get("PATH", "").split(os.pathsep)
    return os.pathsep.join(f for f in folders if not (Path(f) / "go").exists())


def _go_toolchain() -> subprocess.CompletedProcess[str]:
    """tools/go-toolchain.sh as tools/test.sh runs it, in this test's environment."""
    return subprocess.run(
        [str(REPO / "tools" / "go-toolchain.sh")],
        capture_output=True,
        text=True,
        timeout=600,
        env=dict(os.environ),
        check=False,
    )


@pytest.fixture
def no_go(monkeypatch, tmp_path):
    """No Go anywhere volperf looks: not on PATH, not in its cache, no VOLPERF_GO."""
    monkeypatch.setenv("PATH", _path_without_go())
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv("VOLPERF_GO", raising=False)
    return tmp_path


def test_no_go_anywhere_is_one_line_saying_how_to_get_one(no_go):
    with pytest.raises(TestbedError) as raised:
        build.go_binary()
    message = str(raised.value)
    assert "built with Go 1.23 or newer: no `go` on PATH" in message
    assert "tools/go-toolchain.sh fetches one" in message


def test_an_old_go_is_named_with_its_version(no_go, monkeypatch):
    old = no_go / "old-go"
    old.write_text("#!/bin/sh\necho go1.19.8\n")
    old.chmod(0o755)
    monkeypatch.setenv("VOLPERF_GO", str(old))
    with pytest.raises(TestbedError, match=r"found only .*old-go \(go1\.19\.8\)"):
        build.go_binary()


@pytest.mark.skipif(os.geteuid() != 0, reason="the Kubernetes testbed runs as root")
def test_testbed_up_without_go_says_so_and_starts_nothing(no_go):
    state = no_go / "state"
    result = subprocess.run(
        [sys.executable, "-m", "harness.cli", "testbed", "up", "k8s", "--state", str(state)],
        cwd=no_go,
        capture_output=True,
        text=True,
        timeout=120,
        env=dict(os.environ),
    )
    assert result.returncode == 1, result.stderr
    assert "Go 1.23 or newer" in result.stderr and "tools/go-toolchain.sh" in result.stderr
    assert "Traceback" not in result.stderr
    assert not state.exists()


def test_go_toolchain_fetches_a_go_that_the_build_then_finds(no_go):
    done = _go_toolchain()
    assert done.returncode == 0, done.stderr
    go = done.stdout.strip()
    assert go.startswith(str(no_go / "cache" / "volperf" / "go"))
    assert build.go_binary() == go
    assert gotool.go_minor(build.go_version()) >= gotool.MIN_GO_MINOR
    again = _go_toolchain()
    assert again.stdout.strip() == go and "fetching" not in again.stderr  # cached


def test_a_new_enough_go_on_path_is_used_as_it_is(no_go, monkeypatch):
    bin_dir = no_go / "bin"
    bin_dir.mkdir()
    (bin_dir / "go").write_text("#!/bin/sh\necho go1.24.2\n")
    (bin_dir / "go").chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    done = _go_toolchain()
    assert done.stdout.strip() == str(bin_dir / "go")
    assert build.go_binary() == str(bin_dir / "go")
    assert not (no_go / "cache").exists()  # nothing fetched
