"""A node's load sampled once a second, as raw text: the lines of /proc that matter, in
sections, every line stamped with the time it was written (RFC 3339, as
`kubectl logs --timestamps` prints a container's log).

The same text comes from two places: on Kubernetes a sampler pod on each node runs
``SAMPLER_SCRIPT`` (busybox sh, reading the host's /proc with the host's network) and
the kubelet stamps its log; on a host, ``snapshot_lines`` reads /proc itself. One parser
(``parse_snapshots``) reads both; records/node_load.py turns samples into figures."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from harness.host.hoststats import (
    DiskStats,
    NetCounters,
    parse_all_diskstats,
    parse_cpu,
    parse_meminfo,
    parse_net_dev,
)

NODES_DIR = "nodes"  # raw/nodes/<node>.log: a step's samples of each node
HOST_NODE = "host"  # the node name of the host volperf runs on
BEGIN, END = "## sample", "## end"
SECTIONS = ("stat", "meminfo", "diskstats", "net", "block")
MEMINFO_KEYS = ("MemTotal", "MemAvailable", "Cached", "Dirty", "Writeback")

# busybox sh: sleep in the background so that SIGTERM ends the loop at once; devices that
# never did I/O left out (a node has dozens of idle loop devices)
SAMPLER_SCRIPT = f"""trap 'exit 0' TERM INT
while :; do
  echo '{BEGIN}'
  echo '## stat'; grep '^cpu ' /proc/stat
  echo '## meminfo'; grep -E '^({"|".join(MEMINFO_KEYS)}):' /proc/meminfo
  echo '## diskstats'; awk '$4 + $8 > 0' /proc/diskstats
  echo '## net'; tail -n +3 /proc/net/dev
  echo '## block'; echo $(ls /sys/block)
  echo '{END}'
  sleep 1 & wait $!
done
"""

_STAMP = re.compile(r"^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d+))?(Z|[+-]\d\d:\d\d) ?(.*)$")


@dataclass(frozen=True)
class NodeSample:
    t: float  # epoch seconds: when the disk counters were read
    cpu: tuple[int, int] | None  # (busy, total) jiffies of all CPUs
    mem_kib: dict[str, int] = field(default_factory=dict)
    disks: dict[str, DiskStats] = field(default_factory=dict)
    net: dict[str, NetCounters] = field(default_factory=dict)
    whole_disks: frozenset[str] = frozenset()  # /sys/block: devices, not partitions


def stamp(epoch: float) -> str:
    """RFC 3339 with nanoseconds in UTC, as the kubelet stamps log lines."""
    whole = int(epoch)
    moment = datetime.fromtimestamp(whole, UTC).strftime("%Y-%m-%dT%H:%M:%S")
    return f"{moment}.{round((epoch - whole) * 1e9):09d}Z"


def epoch_of(text: str) -> tuple[float, str] | None:
    """(epoch seconds, the rest of the line) of a stamped line; None if not stamped."""
    match = _STAMP.match(text)
    if match is None:
        return None
    moment, fraction, zone, rest = match.groups()
    when = datetime.fromisoformat(moment + ("+00:00" if zone == "Z" else zone))
    return when.timestamp() + (float(f"0.{fraction}") if fraction else 0.0), rest


def snapshot_lines(now: float, proc: Path = Path("/proc"), sys: Path = Path("/sys")) -> str:
    """One sample of this host, stamped ``now``, as the sampler pod would print it."""
    stat = [line for line in (proc / "stat").read_text().splitlines() if line.startswith("cpu ")]
    meminfo = [
        line
        for line in (proc / "meminfo").read_text().splitlines()
        if line.split(":")[0] in MEMINFO_KEYS
    ]
    diskstats = [
        line
        for line in (proc / "diskstats").read_text().splitlines()
        if len(line.split()) > 7 and int(line.split()[3]) + int(line.split()[7]) > 0
    ]
    net = (proc / "net" / "dev").read_text().splitlines()[2:]
    block = " ".join(sorted(p.name for p in (sys / "block").iterdir()))
    lines = [BEGIN, "## stat", *stat, "## meminfo", *meminfo, "## diskstats", *diskstats]
    lines += ["## net", *net, "## block", block, END]
    prefix = stamp(now)
    return "".join(f"{prefix} {line}\n" for line in lines)


def parse_snapshots(lines: Iterable[str]) -> list[NodeSample]:
    """The complete samples of a sampler's stamped output, oldest first; a sample cut
    short (the log read while it was written, a crash) is left out."""
    samples = []
    section: str | None = None
    parts: dict[str, list[str]] = {}
    when: float | None = None
    for raw_line in lines:
        stamped = epoch_of(raw_line.rstrip("\n"))
        if stamped is None:
            continue
        t, line = stamped
        if line == BEGIN:
            parts, section, when = {name: [] for name in SECTIONS}, None, t
        elif line == END and when is not None:
            samples.append(_sample(when, parts))
            when = None
        elif line.startswith("## ") and line[3:] in SECTIONS and when is not None:
            section = line[3:]
            if section == "diskstats":
                when = t
        elif section is not None and when is not None:
            parts[section].append(line)
    return samples


def _sample(t: float, parts: dict[str, list[str]]) -> NodeSample:
    try:
        cpu: tuple[int, int] | None = parse_cpu("\n".join(parts["stat"]))
    except ValueError:
        cpu = None
    return NodeSample(
        t,
        cpu,
        parse_meminfo("\n".join(parts["meminfo"])),
        parse_all_diskstats("\n".join(parts["diskstats"])),
        parse_net_dev("\n".join(parts["net"])),
        frozenset(" ".join(parts["block"]).split()),
    )


def read_snapshots(path: Path) -> list[NodeSample]:
    try:
        with path.open(encoding="utf-8", errors="replace") as handle:
            return parse_snapshots(handle)
    except OSError:
        return []
