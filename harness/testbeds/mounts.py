"""Mount points a testbed or an image build left under its own folder."""

from __future__ import annotations

import subprocess
from pathlib import Path

# a mount that answers no stat in this long is taken as not answering (a healthy CephFS
# answers one in milliseconds, one on a busy 2-core machine within a second)
ANSWER_S = 10.0


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
    """Whether something is mounted on ``point`` (its parent's real path and its name: a
    look at the mount point itself would wait on a file system that does not answer)."""
    wanted = str(point.parent.resolve() / point.name)
    lines = Path("/proc/self/mountinfo").read_text().splitlines()
    return any(line.split()[4].replace("\\040", " ") == wanted for line in lines)


def answers(point: Path, timeout_s: float = ANSWER_S) -> bool:
    """Whether the file system mounted on ``point`` answers a stat within ``timeout_s``.
    The look is a child's: a FUSE mount whose daemon took the request and never answers
    (ceph-fuse once its CephFS's MDS was stopped) holds the looker in the kernel, beyond
    SIGKILL, until that daemon ends; the child is left to be reaped then."""
    return _ends_within(["stat", "-t", str(point)], timeout_s)


def removed_within(path: Path, timeout_s: float) -> bool:
    """Whether ``path`` (a tree on such a mount) is removed within ``timeout_s``: a mount
    that answers a stat may still hold a removal for ever (a CephFS whose data waits on a
    PG that serves nothing). The removal is a child's, as in ``answers``."""
    return _ends_within(["rm", "-rf", "--one-file-system", str(path)], timeout_s)


def _ends_within(argv: list[str], timeout_s: float) -> bool:
    child = subprocess.Popen(
        argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL
    )
    try:
        return child.wait(timeout=timeout_s) == 0
    except subprocess.TimeoutExpired:
        child.kill()
        return False
