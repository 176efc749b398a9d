"""Loop devices on files volperf made (util-linux's losetup): attached with direct I/O so
the device's writes reach the file's disk rather than stay in the page cache twice, and
found again by their backing file to be detached."""

from __future__ import annotations

import json
import subprocess
from dataclasses import dataclass
from pathlib import Path

LOOP_CONTROL = Path("/dev/loop-control")


class LoopError(RuntimeError):
    """losetup refused; its message is quoted."""


@dataclass(frozen=True)
class LoopDevice:
    device: str  # /dev/loopN
    backing_file: str  # as the kernel names it ("... (deleted)" once the file is gone)


def available() -> bool:
    """Whether this kernel hands out loop devices (the loop module is there)."""
    return LOOP_CONTROL.exists()


def _losetup(*args: str) -> str:
    try:
        done = subprocess.run(
            ["losetup", *args], capture_output=True, text=True, timeout=60, check=False
        )
    except FileNotFoundError as missing:
        raise LoopError("losetup is not installed (util-linux)") from missing
    if done.returncode != 0:
        raise LoopError(f"losetup {' '.join(args)}: {done.stderr.strip()}")
    return done.stdout


def attach(backing: Path) -> str:
    """A free loop device on ``backing``; its path."""
    return _losetup("--find", "--show", "--direct-io=on", str(backing)).strip()


def attached() -> list[LoopDevice]:
    listed = _losetup("--list", "--json").strip()
    if not listed:  # no loop device in use: losetup prints nothing
        return []
    return [
        LoopDevice(entry["name"], entry.get("back-file") or "")
        for entry in json.loads(listed)["loopdevices"]
    ]


def backed_under(root: Path) -> list[LoopDevice]:
    """The loop devices whose backing file is under ``root``."""
    prefix = str(root).rstrip("/") + "/"
    return [loop for loop in attached() if loop.backing_file.startswith(prefix)]


def detach(device: str) -> None:
    _losetup("--detach", device)


def detach_under(root: Path) -> int:
    """Detach every loop device backed by a file under ``root``; how many."""
    loops = backed_under(root) if available() else []
    for loop in loops:
        detach(loop.device)
    return len(loops)
