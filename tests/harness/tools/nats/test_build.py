"""harness/tools/nats/build.py: nats-server and nats built from the Go module proxy (once,
then from their cache), at the versions go.mod pins."""

from __future__ import annotations

import subprocess

import pytest

from harness.tools.nats.build import CLIENT, SERVER, ensure_nats

pytestmark = pytest.mark.functional


def _version(program: str) -> str:
    done = subprocess.run([program, "--version"], capture_output=True, text=True, check=True)
    return (done.stdout + done.stderr).strip()


def test_the_server_and_the_bench_client_are_built_once_at_their_pins():
    folder = ensure_nats(print)
    assert _version(str(folder / SERVER)) == "nats-server: v2.15.2"
    assert _version(str(folder / CLIENT)) == "v0.5.0"
    again: list[str] = []
    assert ensure_nats(again.append) == folder and again == []  # from the cache
