"""The shell line that prints, from inside a container, the disk under a directory and
the container's cgroup block I/O counters: cgroup v2's io.stat, or cgroup v1's
blkio.throttle files. Printed raw, each file under a header line naming it (only the
files that exist), and parsed by parse.py."""

from __future__ import annotations

HEADER = "== "
FILES = {
    "io.stat": "/sys/fs/cgroup/io.stat",
    "blkio.throttle.io_service_bytes": "/sys/fs/cgroup/blkio/blkio.throttle.io_service_bytes",
    "blkio.throttle.io_serviced": "/sys/fs/cgroup/blkio/blkio.throttle.io_serviced",
}


def counters_line(directory: str) -> str:
    """A POSIX shell line (sh, awk, cat) printing the whole disk that holds ``directory``
    (a partition's disk: the cgroup counts I/O per disk) and the counters."""
    disk = (
        f"d=$(awk '$5 == \"{directory}\" {{print $3}}' /proc/self/mountinfo | tail -n 1); "
        'if [ -e "/sys/dev/block/$d/partition" ]; then d=$(cat "/sys/dev/block/$d/../dev"); fi; '
        f'echo "{HEADER}disk $d"; cat "/sys/dev/block/$d/uevent" 2>/dev/null; '
    )
    files = " ".join(
        f'if [ -r {path} ]; then echo "{HEADER}{name}"; cat {path}; fi;'
        for name, path in FILES.items()
    )
    return disk + files + " true"
