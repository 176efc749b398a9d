"""Daemons a testbed started, found by their pid files and stopped by them alone.

A pid is only trusted while the process's command line still names the testbed's own
configuration file, so a recycled pid or someone else's daemon is never signalled.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
from dataclasses import dataclass
from pathlib import Path

from harness.process import command_line


@dataclass(frozen=True)
class Daemon:
    name: str  # mon.a, mgr.x, osd.0
    pid_file: Path
    marker: str  # text its command line must contain (the testbed's config path)

    def pid(self) -> int | None:
        """The daemon's pid if it is running as ours, else None."""
        try:
            pid = int(self.pid_file.read_text().strip())
        except (OSError, ValueError):
            return None
        if self.marker in command_line(pid):
            return pid
        return None

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
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGTERM)
        deadline = time.monotonic() + timeout_s
        while self.pid() == pid and _alive(pid):
            if time.monotonic() > deadline:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
                deadline = time.monotonic() + timeout_s
            time.sleep(0.1)
        return True


def _alive(pid: int) -> bool:
    """Running, not a zombie waiting to be reaped (PID 1 of a container may not reap)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return False
    return fields[0] != "Z"
