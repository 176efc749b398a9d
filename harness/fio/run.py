"""Run fio as a child process that can always be stopped.

fio runs in its own session so a terminal's Ctrl-C reaches volperf first, which then
asks fio to stop with SIGINT (fio finishes its JSON), escalating to SIGKILL after a
grace period. If volperf itself dies, the kernel sends fio SIGTERM (PR_SET_PDEATHSIG), so
no fio outlives the campaign that started it.
"""

from __future__ import annotations

import contextlib
import ctypes
import signal
import subprocess
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

KILL_GRACE_S = 15.0
_PR_SET_PDEATHSIG = 1


def _die_with_parent() -> None:
    # without glibc the timeout and the signal forwarding still apply
    with contextlib.suppress(OSError):
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)


@dataclass(frozen=True)
class FioProcessResult:
    returncode: int
    duration_s: float
    timed_out: bool
    interrupted: bool
    start_s: float  # wall clock
    end_s: float


def fio_version(fio: str = "fio") -> str:
    try:
        out = subprocess.run([fio, "--version"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise FileNotFoundError(f"cannot run {fio!r}: {exc}") from exc
    return out.stdout.strip()


def run_fio(
    jobfile: Path,
    stdout_path: Path,
    stderr_path: Path,
    timeout_s: float,
    stop: threading.Event,
    fio: str = "fio",
    on_tick: Callable[[float], None] | None = None,
) -> FioProcessResult:
    """Run ``fio --output-format=json+ JOBFILE``; stdout and stderr go to files untouched."""
    command = [fio, "--output-format=json+", str(jobfile)]
    start = time.time()
    with stdout_path.open("wb") as out, stderr_path.open("wb") as err:
        process = subprocess.Popen(  # noqa: S603 - fixed argv, no shell
            command,
            stdout=out,
            stderr=err,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
            preexec_fn=_die_with_parent,  # noqa: PLW1509 - no threads touched in the child
        )
        timed_out = interrupted = False
        asked_to_stop_at: float | None = None
        while True:
            try:
                returncode = process.wait(timeout=0.25)
                break
            except subprocess.TimeoutExpired:
                pass
            elapsed = time.time() - start
            if on_tick is not None:
                on_tick(elapsed)
            if asked_to_stop_at is None and (stop.is_set() or elapsed > timeout_s):
                timed_out = not stop.is_set()
                interrupted = stop.is_set()
                process.send_signal(signal.SIGINT)
                asked_to_stop_at = time.time()
            elif asked_to_stop_at is not None and time.time() - asked_to_stop_at > KILL_GRACE_S:
                process.kill()
    end = time.time()
    return FioProcessResult(returncode, end - start, timed_out, interrupted, start, end)
