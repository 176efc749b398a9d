"""Daemons a testbed started, found by their pid files and stopped by them alone.

A pid is only trusted while the process's command line still names the testbed's own
configuration file, so a recycled pid or someone else's daemon is never signalled.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from harness.host.process import command_line

EXEC_RETRIES = 25  # half a second


@dataclass(frozen=True)
class Daemon:
    name: str  # mon.a, mgr.x, osd.0
    pid_file: Path
    marker: str  # text its command line must contain (the testbed's config path)
    group: bool = False  # a session leader: signals go to its whole process group

    def pid(self) -> int | None:
        """The daemon's pid if it is running as ours, else None."""
        try:
            pid = int(self.pid_file.read_text().strip())
        except (OSError, ValueError):
            return None
        line = command_line(pid)
        for _ in range(EXEC_RETRIES):  # a process that has just exec'd can show an empty
            if line or not _alive(pid):  # command line for a moment: ask again
                break
            time.sleep(0.02)
            line = command_line(pid)
        return pid if self.marker in line else None

    def memory_kib(self) -> dict[str, int]:
        """Resident memory now and at its peak (VmRSS, VmHWM), in KiB."""
        pid = self.pid()
        if pid is None:
            return {}
        values: dict[str, int] = {}
        with contextlib.suppress(OSError):
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                key, _, value = line.partition(":")
                if key in ("VmRSS", "VmHWM"):
                    values[key] = int(value.split()[0])
        return values

    def stop(self, timeout_s: float = 30.0) -> bool:
        """SIGTERM, then SIGKILL after ``timeout_s``; True if it was running. It waits for
        the process it signalled, known by its start time too: once that process has
        ended, its pid may come round again, to another process or a thread of one (a
        signal to a thread's id reaches its whole process), which is never signalled."""
        pid = self.pid()
        if pid is None:
            return False
        born = _start_time(pid)
        self._signal(pid, signal.SIGTERM)
        deadline = time.monotonic() + timeout_s
        while _alive(pid, born):  # not self.pid(): some daemons remove their pid file early
            if time.monotonic() > deadline:
                self._signal(pid, signal.SIGKILL)
                deadline = time.monotonic() + timeout_s
            time.sleep(0.1)
        if self.group and _start_time(pid) in (None, born):
            # workers the leader left behind: the group keeps its id while it has any, so
            # no new process can have taken it unless the pid came round to one
            self._signal(pid, signal.SIGKILL)
        return True

    def kill(self) -> bool:
        """SIGKILL at once, as a crash would; True if it was running."""
        pid = self.pid()
        if pid is None:
            return False
        born = _start_time(pid)
        self._signal(pid, signal.SIGKILL)
        while _alive(pid, born):
            time.sleep(0.05)
        return True

    def _signal(self, pid: int, signum: int) -> None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            if self.group:
                os.killpg(pid, signum)
            else:
                os.kill(pid, signum)

    def group_rss_kib(self) -> int:
        """Resident memory of the daemon and every process of its group (workers), KiB."""
        pid = self.pid()
        if pid is None:
            return 0
        pages = sum(
            int(fields[RSS])
            for other, fields in _processes()
            if int(fields[PGRP]) == pid or other == pid
        )
        return pages * os.sysconf("SC_PAGE_SIZE") // 1024


# fields of /proc/PID/stat after the command's name, as _stat gives them (proc(5) numbers
# them from 1 with the pid and the name first)
STATE, PGRP, START_TIME, RSS = 0, 2, 19, 21


def _stat(pid: int) -> list[str] | None:
    """The fields of /proc/PID/stat after the command's name (state first), None if gone."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None


def _processes() -> Iterator[tuple[int, list[str]]]:
    """Every process now, with its stat fields."""
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit() and (fields := _stat(int(proc.name))) is not None:
            yield int(proc.name), fields


def _start_time(pid: int) -> str | None:
    """When the process (or thread) with that id started, in clock ticks after boot."""
    fields = _stat(pid)
    return None if fields is None else fields[START_TIME]


def _alive(pid: int, born: str | None = None) -> bool:
    """Running, not a zombie waiting to be reaped (PID 1 of a container may not reap);
    with ``born``, the same process that started then, not another that took its pid."""
    fields = _stat(pid)
    if fields is None or fields[STATE] == "Z":
        return False
    return born is None or fields[START_TIME] == born


def group_running(group: int) -> bool:
    """Whether any process of the process group ``group`` runs (a zombie does not)."""
    return any(fields[STATE] != "Z" and int(fields[PGRP]) == group for _, fields in _processes())


def running(daemons: Iterable[Daemon]) -> set[str]:
    """Names of the daemons running now."""
    return {d.name for d in daemons if d.pid() is not None}


def stop_started(daemons: Sequence[Daemon], before: set[str]) -> list[str]:
    """Stop the daemons running now that were not running ``before`` (what a failed
    bring-up started), the last in ``daemons`` first; their names."""
    stopped = []
    for daemon in reversed(daemons):
        if daemon.name not in before and daemon.stop():
            stopped.append(daemon.name)
    return stopped
