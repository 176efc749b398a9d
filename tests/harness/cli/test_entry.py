"""The volperf process's exit (harness/cli/entry.py): the command's status, what it
printed, atexit's handlers and running threads, without the interpreter's teardown."""

from __future__ import annotations

import subprocess
import sys

import pytest

from harness.cli.entry import exit_status


def _run(code: str, *argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", code, *argv], capture_output=True, text=True, timeout=120
    )


def test_the_commands_status_and_output_come_out_whole():
    done = _run("from harness.cli.entry import run; run()", "--version")
    assert done.returncode == 0 and done.stdout.startswith("volperf, version"), done
    refused = _run("from harness.cli.entry import run; run()", "no-such-command")
    assert refused.returncode == 2 and "No such command 'no-such-command'" in refused.stderr


def test_atexit_handlers_run_and_threads_are_waited_for(tmp_path):
    """A client's temporary files go at exit (kubernetes' kube_config removes its
    certificates so) and a thread still writing finishes, as at a normal exit."""
    code = f"""
import atexit, threading, time
from pathlib import Path
atexit.register(lambda: Path({str(tmp_path / "atexit")!r}).write_text("ran"))
def late():
    time.sleep(0.5)
    Path({str(tmp_path / "thread")!r}).write_text("done")
threading.Thread(target=late).start()
from harness.cli.entry import run
run()
"""
    done = _run(code, "--version")
    assert done.returncode == 0, done
    assert (tmp_path / "atexit").read_text() == "ran"
    assert (tmp_path / "thread").read_text() == "done"


@pytest.mark.parametrize(("code", "status"), [(None, 0), (0, 0), (2, 2), ("refused", 1)])
def test_a_system_exits_code_is_the_process_status(code, status, capsys):
    assert exit_status(code) == status
    assert capsys.readouterr().err == ("refused\n" if code == "refused" else "")
