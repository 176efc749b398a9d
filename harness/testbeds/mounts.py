"""Mount points a testbed or an image build left under its own folder."""

from __future__ import annotations

import subprocess
from pathlib import Path


def unmount_under(folder: Path) -> int:
    """Lazily unmount every mount point under folder, deepest first."""
    prefix = str(folder.resolve()) + "/"
    points = []
    for line in Path("/proc/self/mountinfo").read_text().splitlines():
        point = line.split()[4].replace("\\040", " ")
        if point.startswith(prefix):
            points.append(point)
    for point in sorted(set(points), key=len, reverse=True):
        subprocess.run(["umount", "-l", point], capture_output=True, check=False)
    return len(set(points))


def mounted(point: Path) -> bool:
    """Whether something is mounted on ``point``."""
    wanted = str(point.resolve())
    lines = Path("/proc/self/mountinfo").read_text().splitlines()
    return any(line.split()[4].replace("\\040", " ") == wanted for line in lines)
