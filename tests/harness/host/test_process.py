"""Running tools as stoppable children (harness/host/process.py), with real processes."""

from __future__ import annotations

import signal
import threading

from harness.host.process import LINE_CHARS, Command, run_processes, what_it_said


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


def test_what_it_said_prefers_error_lines_and_shortens_them(tmp_path):
    out = tmp_path / "c01.out"
    out.write_text("Threads started!\nFATAL: error 1114 (table is full) " + "x" * 500 + "\ndone\n")
    said = what_it_said(out)
    assert said.startswith("FATAL: error 1114 (table is full)")
    assert len(said) <= LINE_CHARS + 2
    quiet = tmp_path / "quiet.err"
    quiet.write_text("one\ntwo\n")
    assert what_it_said(quiet) == "one / two"
