"""Run benchmark tools as child processes that can always be stopped.

Every child runs in its own session so a terminal's Ctrl-C reaches volperf first, which
then asks the children to stop (fio finishes its JSON on SIGINT), escalating to SIGKILL
after a grace period. If volperf itself dies, the kernel sends each child SIGTERM
(PR_SET_PDEATHSIG), so no tool outlives the campaign that started it.
"""

from __future__ import annotations

import atexit
import contextlib
import ctypes
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

from harness.core.redact import redact_text

KILL_GRACE_S = 15.0
_PR_SET_PDEATHSIG = 1


def die_with_parent() -> None:
    # without glibc the timeout and the signal forwarding still apply
    with contextlib.suppress(OSError):
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)


@dataclass(frozen=True)
class Command:
    argv: Sequence[str]
    stdout: Path
    stderr: Path
    cwd: Path | None = None
    env: Mapping[str, str] | None = None
    warm: WarmProcess | None = None  # started ahead: it runs this command if it still can


WARM_FLAG = "--warm"


class WarmProcess:
    """``python -m MODULE --warm``, started ahead of its command: it does its imports while
    volperf does something else, then waits on its stdin for one JSON line, the argv its
    command has after ``python -m MODULE`` and the files its output goes to
    (``warm_request`` reads it, in the module). A process nobody hands a command to is
    stopped by ``close``, or dies with volperf (PR_SET_PDEATHSIG)."""

    def __init__(self, module: str):
        self.head = [sys.executable, "-m", module]
        self.process: subprocess.Popen[bytes] | None = subprocess.Popen(
            [*self.head, WARM_FLAG],
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
            preexec_fn=die_with_parent,
        )

    def take(self, command: Command) -> subprocess.Popen[bytes] | None:
        """The process, running ``command`` now; None when it cannot (gone, or not
        started for that module, or the command wants its own cwd or environment)."""
        process, self.process = self.process, None
        if process is None or process.stdin is None:
            return None
        fits = list(command.argv[: len(self.head)]) == self.head
        if not fits or command.cwd is not None or command.env is not None:
            _stop(process)
            return None
        request = {
            "argv": list(command.argv[len(self.head) :]),
            "stdout": str(command.stdout),
            "stderr": str(command.stderr),
        }
        try:
            process.stdin.write(json.dumps(request).encode() + b"\n")
            process.stdin.close()
        except OSError:  # it died while it loaded: a process of its own instead
            _stop(process)
            return None
        return process

    def close(self) -> None:
        process, self.process = self.process, None
        if process is not None:
            _stop(process)


def _stop(process: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(OSError):
        if process.stdin is not None:
            process.stdin.close()
    process.kill()
    process.wait()


def kill_group(process: subprocess.Popen[bytes]) -> None:
    """SIGKILL to the process group ``process`` leads (started with start_new_session):
    the process, if it still runs, and what it forked that is still in its group."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)
    if process.returncode is None:
        process.kill()


def exit_without_teardown(status: int) -> NoReturn:
    """Leave as a normal exit does (threads still running waited for, atexit's handlers
    run: a client's temporary files go, logging is flushed), then without freeing the
    modules one by one: with a cloud's clients or Rally loaded that took 0.2 to 0.6 s and
    wrote nothing (every file volperf writes is closed before it gets here)."""
    current = threading.current_thread()
    for thread in threading.enumerate():
        if thread is not current and not thread.daemon:
            thread.join()
    atexit._run_exitfuncs()  # logging's shutdown is one (registered by logging itself)
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):  # a reader gone: as at a normal exit
            stream.flush()
    os._exit(status)


def warm_request() -> list[str] | None:
    """In a process ``WarmProcess`` started: waits for its command, points its stdout and
    stderr at the command's files, and returns its argv (None: stopped unused)."""
    line = sys.stdin.readline()
    if not line.strip():
        return None
    request = json.loads(line)
    sys.stdout.flush()
    sys.stderr.flush()
    for fd, path in ((1, request["stdout"]), (2, request["stderr"])):
        opened = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        os.dup2(opened, fd)
        os.close(opened)
    return list(request["argv"])


@dataclass(frozen=True)
class ProcessResult:
    returncode: int
    duration_s: float
    timed_out: bool
    interrupted: bool
    start_s: float  # wall clock
    end_s: float


def run_processes(
    commands: Sequence[Command],
    timeout_s: float,
    stop: threading.Event,
    on_tick: Callable[[float], None] | None = None,
    stop_signal: int = signal.SIGINT,
    kill_grace_s: float = KILL_GRACE_S,
) -> list[ProcessResult]:
    """Run the commands at once; output goes to their files untouched. All of them are
    asked to stop when ``stop`` is set or ``timeout_s`` has passed, and killed if still
    running ``kill_grace_s`` later. Each leads a process group of its own: killed, its
    whole group is, and so is what is left of the group of one that ended after it was
    asked to stop (a tool's forked workers, as Rally's runner has, would run on)."""
    start = time.time()
    processes: list[subprocess.Popen[bytes]] = []
    with contextlib.ExitStack() as files:
        for command in commands:
            warm = command.warm.take(command) if command.warm is not None else None
            if warm is not None:
                processes.append(warm)
                continue
            out = files.enter_context(command.stdout.open("wb"))
            err = files.enter_context(command.stderr.open("wb"))
            processes.append(
                subprocess.Popen(
                    list(command.argv),
                    stdout=out,
                    stderr=err,
                    stdin=subprocess.DEVNULL,
                    cwd=command.cwd,
                    env=dict(command.env) if command.env is not None else None,
                    start_new_session=True,
                    preexec_fn=die_with_parent,
                )
            )
        ends: list[float | None] = [None] * len(processes)
        timed_out = interrupted = False
        asked_to_stop_at: float | None = None
        while any(end is None for end in ends):
            time.sleep(0.05 if time.time() - start < 1 else 0.25)
            for i, process in enumerate(processes):
                if ends[i] is None and process.poll() is not None:
                    ends[i] = time.time()
                    if asked_to_stop_at is not None:
                        kill_group(process)
            elapsed = time.time() - start
            if on_tick is not None:
                on_tick(elapsed)
            running = [p for p, end in zip(processes, ends, strict=True) if end is None]
            if asked_to_stop_at is None and running and (stop.is_set() or elapsed > timeout_s):
                timed_out, interrupted = not stop.is_set(), stop.is_set()
                for process in running:
                    process.send_signal(stop_signal)
                asked_to_stop_at = time.time()
            elif asked_to_stop_at is not None and time.time() - asked_to_stop_at > kill_grace_s:
                for process in running:
                    kill_group(process)
    return [
        ProcessResult(p.returncode, end - start, timed_out, interrupted, start, end)
        for p, end in zip(processes, ends, strict=True)
        if end is not None
    ]


def command_line(pid: int) -> str:
    """A process's command line, arguments joined by spaces; "" if it is gone."""
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


def pids_naming(*parts: str) -> list[int]:
    """The processes whose command line holds every one of ``parts`` (never this one)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and int(entry.name) != os.getpid():
            line = command_line(int(entry.name))
            if line and all(part in line for part in parts):
                found.append(int(entry.name))
    return found


ERROR_PREFIXES = ("FATAL", "ERROR", "pgbench: error")


LINE_CHARS = 240  # sysbench quotes whole INSERT statements in its errors


def error_lines(*paths: Path) -> list[str]:
    """The lines in which a tool said what went wrong (sysbench's FATAL, pgbench's error)."""
    return [line for line in _lines(paths) if line.startswith(ERROR_PREFIXES)]


def read_output(path: Path) -> str:
    """A tool's output file as text; "" if it was never written."""
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


def _lines(paths: tuple[Path, ...]) -> list[str]:
    return [line for path in paths for line in read_output(path).splitlines()]


def _short(line: str) -> str:
    line = line.strip()
    return line if len(line) <= LINE_CHARS else line[:LINE_CHARS] + " …"


def what_it_said(*paths: Path, lines: int = 3) -> str:
    """The last error lines a tool printed, else its last lines, from its output files."""
    said = error_lines(*paths) or [line for line in _lines(paths) if line.strip()]
    return " / ".join(_short(line) for line in said[-lines:])


_ERROR_LINE = re.compile(r"\[ERROR\]|\bFATAL\b|\bERROR:|\berror:|PANIC", re.IGNORECASE)


def log_tail(path: Path, lines: int = 3) -> str:
    """A program's own error lines in its log (else its last lines), redacted, on one line
    for a message to the user."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""
    kept = [line.strip() for line in text.splitlines() if line.strip()]
    errors = [line for line in kept if _ERROR_LINE.search(line)]
    return redact_text(" / ".join((errors or kept)[-lines:]))


class BuildTimeout(RuntimeError):
    """A build step that went on past its own limit."""


def run_build(
    argv: Sequence[str],
    what: str,
    say: Callable[[str], None],
    timeout_s: float,
    every_s: float = 60.0,
    **popen: Any,
) -> subprocess.CompletedProcess[str]:
    """A long build step (a Go build, a debootstrap, a pip install) run to its end: says
    every ``every_s`` that ``what`` is still going, and kills it after ``timeout_s``
    (BuildTimeout). Keyword arguments go to Popen (output files, cwd, env)."""
    started = time.monotonic()
    with subprocess.Popen(list(argv), text=True, **popen) as process:
        while True:
            remaining = timeout_s - (time.monotonic() - started)
            try:
                out, err = process.communicate(timeout=max(min(every_s, remaining), 0.01))
            except subprocess.TimeoutExpired:
                elapsed = time.monotonic() - started
                if elapsed >= timeout_s:
                    process.kill()
                    process.communicate()
                    limit = f"{timeout_s / 60:.0f} min" if timeout_s >= 60 else f"{timeout_s:.0f} s"
                    raise BuildTimeout(f"{what} did not finish within {limit}") from None
                say(f"  {what}: still running after {elapsed / 60:.0f} min")
            else:
                return subprocess.CompletedProcess(list(argv), process.returncode, out, err)
