"""A testbed's daemons are stopped by their pid files, and only the process that was
started: SIGTERM, SIGKILL after the timeout to one that ignores it, and never a signal
to a process or thread that took the pid once the daemon had ended (checked for real in
a pid namespace of its own, where the next pid can be chosen); a group daemon's memory is
its whole group's, and its group runs until it is stopped."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from harness.testbeds.daemons import Daemon, group_running

# a daemon of the testbed in WORK: its command line names WORK; it ignores SIGTERM if told,
# and says when its handler is set (WORK/handler-set)
DAEMON = """
import pathlib, signal, sys, time
if sys.argv[2] == "stubborn":
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
pathlib.Path(sys.argv[1], "handler-set").touch()
time.sleep(300)
"""


def _daemon(work: Path, how: str = "plain") -> tuple[subprocess.Popen[bytes], Daemon]:
    process = subprocess.Popen([sys.executable, "-c", DAEMON, str(work), how])
    pid_file = work / "daemon.pid"
    pid_file.write_text(f"{process.pid}\n")
    daemon = Daemon("daemon", pid_file, str(work))
    deadline = time.monotonic() + 10
    while daemon.pid() is None and time.monotonic() < deadline:  # until its exec shows
        time.sleep(0.02)
    return process, daemon


def test_a_stopped_daemon_ends_on_sigterm(tmp_path):
    process, daemon = _daemon(tmp_path)
    assert daemon.pid() == process.pid
    assert daemon.stop(timeout_s=20)
    assert process.wait(timeout=5) == -15
    assert daemon.pid() is None and not daemon.stop()


def test_one_that_ignores_sigterm_is_killed_after_the_timeout(tmp_path):
    process, daemon = _daemon(tmp_path, "stubborn")
    deadline = time.monotonic() + 30  # a busy machine's Python can take seconds to start
    while not (tmp_path / "handler-set").exists() and time.monotonic() < deadline:
        time.sleep(0.02)  # not a fixed sleep: 0.3 s was not enough in a run of 2026-12-07
    started = time.monotonic()
    assert daemon.stop(timeout_s=1)
    assert process.wait(timeout=5) == -9
    assert time.monotonic() - started >= 1


def test_someone_elses_process_under_the_pid_file_is_not_ours(tmp_path):
    other = subprocess.Popen(["sleep", "30"])
    try:
        (tmp_path / "daemon.pid").write_text(f"{other.pid}\n")
        daemon = Daemon("daemon", tmp_path / "daemon.pid", str(tmp_path))
        assert daemon.pid() is None and not daemon.stop() and not daemon.kill()
        assert other.poll() is None
    finally:
        other.kill()
        other.wait()


# In a pid namespace of its own (this script is its PID 1, reaping orphans): the daemon, a
# grandchild, ends on SIGTERM; the moment it is gone, this process starts a thread with
# the daemon's pid (ns_last_pid). A signal to that id would kill this whole process.
REUSED = """
import os, signal, subprocess, sys, threading, time
from pathlib import Path
from harness.testbeds.daemons import Daemon

signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # PID 1: the orphaned daemon is reaped
work = Path(sys.argv[1])
how = sys.argv[2]
pid_file = work / "daemon.pid"
subprocess.run(
    ["sh", "-c", f"{sys.executable} {work / 'daemon.py'} {work} plain & echo $! > {pid_file}"]
)
daemon = Daemon("daemon", pid_file, str(work))
while daemon.pid() is None:
    time.sleep(0.01)
pid = daemon.pid()
time.sleep(0.2)  # the thread below starts some clock ticks after the daemon did
taken = threading.Event()

def hold():
    if threading.get_native_id() == pid:
        taken.set()
        time.sleep(120)

def take_the_pid():
    while os.path.exists(f"/proc/{pid}"):
        time.sleep(0.001)
    for _ in range(200):  # the pid may be free a moment after /proc stops showing it
        Path("/proc/sys/kernel/ns_last_pid").write_text(f"{pid - 1}")
        holder = threading.Thread(target=hold, daemon=True)
        holder.start()
        if taken.wait(0.005):
            return
        holder.join()

threading.Thread(target=take_the_pid, daemon=True).start()
if how == "stop":
    daemon.stop(timeout_s=1.5)
else:
    daemon.kill()
taken.wait(10)
print("tid", [int(t) for t in os.listdir(f"/proc/{os.getpid()}/task")].count(pid), flush=True)
time.sleep(2)  # a SIGKILL sent after the timeout has landed by now
print("still running", flush=True)
"""


def _after_the_pid_came_round(tmp_path: Path, how: str) -> subprocess.CompletedProcess[str]:
    """The script's output; it ends within 30 s unless a wait for the daemon lasts as long
    as the thread that took its pid (120 s)."""
    (tmp_path / "daemon.py").write_text(DAEMON)
    return subprocess.run(
        ["unshare", "--pid", "--fork", "--mount-proc", sys.executable, "-c", REUSED]
        + [str(tmp_path), how],
        capture_output=True,
        text=True,
        timeout=30,
        cwd=Path(__file__).parents[3],
    )


@pytest.mark.parametrize("how", ["stop", "kill"])
def test_a_thread_that_took_the_pid_of_an_ended_daemon_is_not_signalled(tmp_path, how):
    done = _after_the_pid_came_round(tmp_path, how)
    assert done.stdout.split("\n")[:2] == ["tid 1", "still running"], (done, done.stderr)
    assert done.returncode == 0, done.stderr


def test_a_group_daemon_s_memory_and_whether_its_group_runs(tmp_path):
    leader = subprocess.Popen(
        ["sh", "-c", f"sleep 300 & {sys.executable} -c 'import time; time.sleep(300)' {tmp_path}"],
        start_new_session=True,
    )
    (tmp_path / "daemon.pid").write_text(f"{leader.pid}\n")
    daemon = Daemon("daemon", tmp_path / "daemon.pid", str(tmp_path), group=True)
    deadline = time.monotonic() + 10
    while daemon.group_rss_kib() < 5000 and time.monotonic() < deadline:  # python's RSS
        time.sleep(0.05)
    assert daemon.group_rss_kib() >= 5000 and group_running(leader.pid)
    assert daemon.stop(timeout_s=20)
    leader.wait(timeout=5)
    deadline = time.monotonic() + 10  # the workers' SIGKILL is sent, not waited for
    while group_running(leader.pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not group_running(leader.pid) and daemon.group_rss_kib() == 0
