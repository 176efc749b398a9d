"""harness/tools/nats/build.py: nats-server and nats built from the Go module proxy (once,
then from their cache), at the versions go.mod pins."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from harness.tools.nats.build import CLIENT, SERVER, ensure_nats

pytestmark = pytest.mark.functional


def _version(program: str, scratch: Path) -> str:
    # nats makes its plugins folder under XDG_DATA_HOME, else in the passwd entry's home
    environment = {**os.environ, "XDG_DATA_HOME": str(scratch), "XDG_CONFIG_HOME": str(scratch)}
    done = subprocess.run(
        [program, "--version"], capture_output=True, text=True, check=True, env=environment
    )
    return (done.stdout + done.stderr).strip()


def test_the_server_and_the_bench_client_are_built_once_at_their_pins(tmp_path):
    folder = ensure_nats(print)
    assert _version(str(folder / SERVER), tmp_path) == "nats-server: v2.15.2"
    assert _version(str(folder / CLIENT), tmp_path) == "v0.5.0"
    again: list[str] = []
    assert ensure_nats(again.append) == folder and again == []  # from the cache
