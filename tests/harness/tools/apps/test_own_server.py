"""redis.sh and broker.sh when their own server does not start: the run's first phase
fails quoting the server's last words, and the scripts' scratch files are removed. The
server here is a stand-in that exits at once (a real one that cannot start does the same:
a bad setting, a port taken); the scripts and their shell are real."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from harness.tools.apps import command

pytestmark = pytest.mark.functional

APPS = Path(command.__file__).parent


def _failing_server(folder: Path, name: str) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    program = folder / name
    program.write_text(f'#!/bin/sh\necho "{name}: cannot open its store" >&2\nexit 1\n')
    program.chmod(0o755)


@pytest.mark.parametrize("tool", ["redis", "broker"])
def test_a_server_that_does_not_start_fails_the_first_phase_saying_why(tool, tmp_path):
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    fake = tmp_path / "bin"
    server = "redis-server" if tool == "redis" else "nats-server"
    _failing_server(fake, server)
    params = tmp_path / "params"
    if tool == "redis":
        generate = [str(params), "a", "10", "10", "10"]
        run = [str(params), str(tmp_path / "work"), "1", "volperf-ycsb", "always", "1"]
    else:
        generate = [str(params), "10", "10"]
        run = [str(params), str(tmp_path / "work"), "1", str(fake), "always", "1"]
    subprocess.run(["sh", str(APPS / f"{tool}.sh"), "generate", *generate], check=True)
    environment = {**os.environ, "PATH": f"{fake}:{os.environ['PATH']}", "TMPDIR": str(scratch)}
    done = subprocess.run(
        ["sh", str(APPS / f"{tool}.sh"), "run", *run],
        capture_output=True,
        text=True,
        env=environment,
        timeout=60,
        check=False,
    )
    first = "load" if tool == "redis" else "publish"
    assert done.returncode == 2
    assert done.stdout == (
        f"volperf-app error iteration=1 phase={first}: {server} did not start: "
        f"{server}: cannot open its store\n"
    )
    assert list(scratch.iterdir()) == []


def test_a_broker_run_leaves_nothing_behind_but_its_work_folder(tmp_path):
    from harness.tools.nats.build import ensure_nats

    nats = ensure_nats(print)
    # nats finds the user's folders from the passwd entry, or from these when they are set
    scratch, home = tmp_path / "scratch", tmp_path / "home"
    scratch.mkdir()
    home.mkdir()
    params = tmp_path / "params"
    generate = ["sh", str(APPS / "broker.sh"), "generate", str(params), "200", "64"]
    subprocess.run(generate, check=True)
    environment = {
        **os.environ,
        "TMPDIR": str(scratch),
        "XDG_CONFIG_HOME": str(home),
        "XDG_DATA_HOME": str(home),
    }
    run = [str(params), str(tmp_path / "work"), "1", str(nats), "default", "1"]
    done = subprocess.run(
        ["sh", str(APPS / "broker.sh"), "run", *run],
        capture_output=True,
        text=True,
        env=environment,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.endswith("volperf-app done iterations=1\n")
    assert list(scratch.iterdir()) == [] and list(home.iterdir()) == []  # nats's own files too
    assert [p.name for p in (tmp_path / "work").iterdir()] == ["broker"]  # the stream's store
