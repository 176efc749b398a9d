"""Remove what a campaign created, from its created.json, even after a crash.

Servers go first (a process is only killed if its command line still names the data
directory it was started on, so a recycled pid is left alone), then files and
directories volperf made. A user's file or a device region stays; only the note goes.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
from pathlib import Path

from harness.process import command_line
from harness.store import CampaignStore


def _kill_server(pid: int, marker: str) -> bool:
    if marker and marker in command_line(pid):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pid, signal.SIGKILL)
        return True
    return False


def remove_created(store: CampaignStore) -> list[str]:
    removed: list[str] = []
    created = store.created()
    processes = {k: v for k, v in created.items() if v.get("kind") == "process"}
    for resource, details in processes.items():
        if _kill_server(int(details["pid"]), str(details.get("marker", ""))):
            removed.append(f"{resource} ({details.get('marker')})")
        store.forget_created(resource)
    for resource, details in created.items():
        kind = details.get("kind")
        if kind == "process":
            continue
        if details.get("ours", False):
            if kind == "file":
                Path(resource).unlink(missing_ok=True)
                removed.append(resource)
            elif kind == "directory":
                shutil.rmtree(resource, ignore_errors=True)
                removed.append(resource)
        store.forget_created(resource)
    return removed
