"""Run fio as a child process that can always be stopped (see harness.host.process): on
Ctrl-C or a timeout fio gets SIGINT and finishes its JSON before it exits."""

from __future__ import annotations

import subprocess
import threading
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from harness.host.process import Command, ProcessResult, run_processes


def fio_version(fio: str = "fio") -> str:
    try:
        out = subprocess.run([fio, "--version"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise FileNotFoundError(f"cannot run {fio!r}: {exc}") from exc
    return out.stdout.strip()


Servers = Sequence[tuple[str, Path]]  # fio --server addresses (ADDRESS,PORT) and job files


def fio_argv(fio: str, jobs: Path | Servers) -> list[str]:
    """``fio --output-format=json+ JOBFILE``, or fio's client with a job file per server:
    ``fio --output-format=json+ --client=S1 JOB1 --client=S2 JOB2 …``."""
    argv = [fio, "--output-format=json+"]
    if isinstance(jobs, Path):
        return [*argv, str(jobs)]
    for server, jobfile in jobs:
        argv += [f"--client={server}", str(jobfile)]
    return argv


def run_fio(
    jobs: Path | Servers,
    stdout_path: Path,
    stderr_path: Path,
    timeout_s: float,
    stop: threading.Event,
    fio: str = "fio",
    on_tick: Callable[[float], None] | None = None,
    env: Mapping[str, str] | None = None,
) -> ProcessResult:
    """Run fio on a job file here, or each job file on its ``fio --server`` at once
    through one fio client (its JSON lists every server's jobs in client_stats); stdout
    and stderr go to files untouched."""
    command = Command(fio_argv(fio, jobs), stdout_path, stderr_path, env=env)
    return run_processes([command], timeout_s, stop, on_tick)[0]
