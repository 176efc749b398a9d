"""Running tools as stoppable children (harness/host/process.py), with real processes."""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
from pathlib import Path

from harness.host.process import LINE_CHARS, Command, WarmProcess, run_processes, what_it_said
from tests.harness.helpers import process_state

WARM = "tests.harness.host.warm_module"


def test_processes_run_at_once_and_a_timeout_stops_them(tmp_path):
    commands = [
        Command(
            ["sh", "-c", f"echo {i}; sleep {i * 30}"], tmp_path / f"{i}.out", tmp_path / f"{i}.err"
        )
        for i in (0, 1)
    ]
    # sh waits for its sleep, which the signal does not reach: killed after the grace
    results = run_processes(commands, timeout_s=1, stop=threading.Event(), kill_grace_s=1)
    assert (tmp_path / "0.out").read_text() == "0\n"  # 1's echo may come after its timeout
    assert results[0].returncode == 0
    assert results[1].timed_out and results[1].returncode == -signal.SIGKILL
    assert results[1].duration_s < 10


def _gone(pid: int, within_s: float = 5.0) -> bool:
    """The process has ended (gone, or a zombie its new parent has yet to reap)."""
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        if process_state(pid) in (None, "Z", "X"):
            return True
        time.sleep(0.05)
    return False


def _forking(tmp_path: Path, name: str, script: str) -> Command:
    """sh running ``script`` after forking a sleep into its process group (its pid in
    NAME.child)."""
    child = tmp_path / f"{name}.child"
    argv = ["sh", "-c", f"sleep 300 & echo $! > {child}; {script}"]
    return Command(argv, tmp_path / f"{name}.out", tmp_path / f"{name}.err")


def _child(tmp_path: Path, name: str) -> int:
    deadline = time.monotonic() + 5
    while not (tmp_path / f"{name}.child").exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    return int((tmp_path / f"{name}.child").read_text())


def test_a_stopped_command_leaves_no_process_of_its_group_behind(tmp_path):
    """A tool asked to stop that ignores it is killed with what it forked (Rally's runner
    and its workers); one that stops leaving a fork running has the fork killed."""
    stop = threading.Event()
    commands = [
        _forking(tmp_path, "deaf", "trap '' INT; wait"),  # ignores SIGINT: killed after the grace
        _forking(
            tmp_path, "quits", "wait"
        ),  # SIGINT ends sh; its sleep, in the background, lives on
    ]
    threading.Timer(1.0, stop.set).start()
    results = run_processes(commands, timeout_s=60, stop=stop, kill_grace_s=1)
    assert all(r.interrupted for r in results)
    assert results[0].returncode == -signal.SIGKILL and results[0].duration_s < 10
    assert results[1].returncode == -signal.SIGINT
    assert _gone(_child(tmp_path, "deaf")) and _gone(_child(tmp_path, "quits"))


def test_a_command_that_ends_by_itself_keeps_what_it_started(tmp_path):
    """Only a command asked to stop has its group killed: one that ends on its own may
    leave a process it meant to (a server it started)."""
    command = _forking(tmp_path, "starter", "exit 0")
    [result] = run_processes([command], timeout_s=60, stop=threading.Event())
    child = _child(tmp_path, "starter")
    try:
        assert result.returncode == 0 and not result.interrupted
        assert not _gone(child, within_s=0.5)
    finally:
        os.kill(child, signal.SIGKILL)


def test_what_it_said_prefers_error_lines_and_shortens_them(tmp_path):
    out = tmp_path / "c01.out"
    out.write_text("Threads started!\nFATAL: error 1114 (table is full) " + "x" * 500 + "\ndone\n")
    said = what_it_said(out)
    assert said.startswith("FATAL: error 1114 (table is full)")
    assert len(said) <= LINE_CHARS + 2
    quiet = tmp_path / "quiet.err"
    quiet.write_text("one\ntwo\n")
    assert what_it_said(quiet) == "one / two"


def _warm_command(tmp_path, *argv: str, **options) -> Command:
    out, err = tmp_path / "warm.out", tmp_path / "warm.err"
    return Command([sys.executable, "-m", WARM, *argv], out, err, **options)


def test_a_process_started_ahead_runs_the_command_handed_to_it(tmp_path):
    warm = WarmProcess(WARM)
    assert warm.process is not None
    pid = warm.process.pid
    [result] = run_processes([_warm_command(tmp_path, "3", "x", warm=warm)], 60, threading.Event())
    assert result.returncode == 3
    # the same process (started before its command), its output in the command's files
    assert (tmp_path / "warm.out").read_text() == f"pid {pid} argv 3 x\n"
    assert (tmp_path / "warm.err").read_text() == "on stderr\n"
    assert warm.process is None  # handed over: once


def test_a_command_it_cannot_run_gets_a_process_of_its_own_and_the_warm_one_stops(tmp_path):
    warm = WarmProcess(WARM)
    started = warm.process
    assert started is not None
    other = Command(["sh", "-c", "echo $$"], tmp_path / "sh.out", tmp_path / "sh.err", warm=warm)
    [result] = run_processes([other], 60, threading.Event())
    assert result.returncode == 0 and int((tmp_path / "sh.out").read_text()) != started.pid
    assert started.poll() is not None  # stopped, not left waiting
    # its own environment: not the warm one's
    warm = WarmProcess(WARM)
    started = warm.process
    assert started is not None
    command = _warm_command(tmp_path, "0", env={"PATH": "/usr/bin:/bin"}, warm=warm)
    [result] = run_processes([command], 60, threading.Event())
    assert result.returncode == 0 and str(started.pid) not in (tmp_path / "warm.out").read_text()
    assert started.poll() is not None


def test_a_warm_process_that_died_or_was_never_used_leaves_nothing(tmp_path):
    warm = WarmProcess(WARM)
    started = warm.process
    assert started is not None
    started.kill()
    started.wait()
    [result] = run_processes([_warm_command(tmp_path, "0", warm=warm)], 60, threading.Event())
    assert result.returncode == 0  # a process of its own ran it
    assert f"pid {started.pid} " not in (tmp_path / "warm.out").read_text()
    unused = WarmProcess(WARM)
    process = unused.process
    assert process is not None
    unused.close()
    assert process.poll() is not None and unused.process is None
