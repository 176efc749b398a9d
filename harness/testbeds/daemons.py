"""Daemons a testbed started, found by their pid files and stopped by them alone.

A pid is only trusted while the process's command line still names the testbed's own
configuration file, so a recycled pid or someone else's daemon is never signalled.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
from collections.abc import Iterable, Sequence
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
        """SIGTERM, then SIGKILL after ``timeout_s``; True if it was running."""
        pid = self.pid()
        if pid is None:
            return False
        self._signal(pid, signal.SIGTERM)
        deadline = time.monotonic() + timeout_s
        while _alive(pid):  # not self.pid(): some daemons remove their pid file early
            if time.monotonic() > deadline:
                self._signal(pid, signal.SIGKILL)
                deadline = time.monotonic() + timeout_s
            time.sleep(0.1)
        if self.group:
            self._signal(pid, signal.SIGKILL)  # workers the leader left behind
        return True

    def kill(self) -> bool:
        """SIGKILL at once, as a crash would; True if it was running."""
        pid = self.pid()
        if pid is None:
            return False
        self._signal(pid, signal.SIGKILL)
        while _alive(pid):
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
        total = 0
        for proc in Path("/proc").iterdir():
            if not proc.name.isdigit():
                continue
            with contextlib.suppress(OSError, IndexError, ValueError):
                fields = (proc / "stat").read_text().rsplit(")", 1)[1].split()
                if int(fields[2]) == pid or proc.name == str(pid):
                    total += int(fields[21]) * os.sysconf("SC_PAGE_SIZE") // 1024
        return total


def _alive(pid: int) -> bool:
    """Running, not a zombie waiting to be reaped (PID 1 of a container may not reap)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return False
    return fields[0] != "Z"


def group_running(group: int) -> bool:
    """Whether any process of the process group ``group`` runs (a zombie does not)."""
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError, IndexError, ValueError):
            fields = stat.read_text().rsplit(")", 1)[1].split()
            if fields[0] != "Z" and int(fields[2]) == group:
                return True
    return False


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
