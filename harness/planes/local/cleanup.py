"""`volperf cleanup` on this machine: servers a campaign started (a process is only killed
if its command line still names the data directory it was started on, so a recycled pid is
left alone), then the files and directories volperf made. A user's file or a device region
stays; only the note goes."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
from pathlib import Path

from harness.core.store import CampaignStore
from harness.host.process import command_line

KINDS = ("process", "file", "directory")


def _kill_server(pid: int, marker: str) -> bool:
    if marker and marker in command_line(pid):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pid, signal.SIGKILL)
        return True
    return False


def remove_noted(store: CampaignStore, notes: dict[str, dict]) -> list[str]:
    removed: list[str] = []
    for resource, details in notes.items():
        if details.get("kind") == "process":
            if _kill_server(int(details["pid"]), str(details.get("marker", ""))):
                removed.append(f"{resource} ({details.get('marker')})")
            store.forget_created(resource)
    for resource, details in notes.items():
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
