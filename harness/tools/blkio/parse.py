"""A container's block I/O counters as counters_line() printed them: the reads and
writes its cgroup issued to the disk under the directory, from cgroup v2's io.stat
("MAJ:MIN rbytes=.. wbytes=.. rios=.. wios=.. ...", one line per disk that saw I/O) or
cgroup v1's blkio.throttle.io_service_bytes and io_serviced ("MAJ:MIN Read N" ...).

cgroup v1 counts there only once a throttle rule has been set on the disk (in any
cgroup, until the next boot): before, its files hold nothing but "Total 0", as they do
for a cgroup that has done no I/O yet. Such a reading is zero and not ``seen``: a caller
that expected I/O knows the counters did not count (cgroup v2 always counts)."""

from __future__ import annotations

from dataclasses import dataclass

from harness.tools.blkio.command import HEADER


class CountersUnavailable(ValueError):
    """The output holds no counters that can be trusted, and says why."""


@dataclass(frozen=True)
class BlockCounters:
    disk: str  # MAJ:MIN
    name: str  # the kernel's name of the disk (vda), when it was readable
    source: str  # which counters, in words
    read_ios: int
    write_ios: int
    read_bytes: int
    write_bytes: int
    seen: bool = True  # the counters listed a disk: they are counting

    def minus(self, earlier: BlockCounters) -> BlockCounters:
        """What was counted since ``earlier``."""
        return BlockCounters(
            self.disk,
            self.name,
            self.source,
            self.read_ios - earlier.read_ios,
            self.write_ios - earlier.write_ios,
            self.read_bytes - earlier.read_bytes,
            self.write_bytes - earlier.write_bytes,
            self.seen,
        )


def _sections(text: str) -> dict[str, list[str]]:
    sections: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in text.splitlines():
        if line.startswith(HEADER):
            current = sections.setdefault(line[len(HEADER) :].strip(), [])
        elif current is not None and line.strip():
            current.append(line.strip())
    return sections


def _v2(lines: list[str], disk: str) -> tuple[int, int, int, int]:
    for line in lines:
        device, *fields = line.split()
        if device == disk:
            values = dict(f.split("=", 1) for f in fields if "=" in f)
            try:
                rios, wios, rbytes, wbytes = (
                    int(values[k]) for k in ("rios", "wios", "rbytes", "wbytes")
                )
            except (KeyError, ValueError):
                raise CountersUnavailable(f"io.stat: unreadable line {line!r}") from None
            return rios, wios, rbytes, wbytes
    return 0, 0, 0, 0  # io.stat lists a disk once the cgroup did I/O to it


def _v1(lines: list[str], disk: str, file: str) -> tuple[int, int] | None:
    """Reads and writes of the disk in a blkio.throttle file; None if it lists no disk."""
    counted = {}
    for line in lines:
        parts = line.split()
        if len(parts) == 3 and parts[1] in ("Read", "Write"):
            try:
                counted[(parts[0], parts[1])] = int(parts[2])
            except ValueError:
                raise CountersUnavailable(f"{file}: unreadable line {line!r}") from None
    if not counted:
        return None
    return counted.get((disk, "Read"), 0), counted.get((disk, "Write"), 0)


def parse_counters(text: str) -> BlockCounters:
    sections = _sections(text)
    disk_header = next((h for h in sections if h.startswith("disk")), None)
    disk = disk_header.split()[1] if disk_header and len(disk_header.split()) > 1 else ""
    if not disk:
        raise CountersUnavailable("the disk under the data directory was not found")
    if disk.split(":")[0] == "0":  # the kernel's anonymous devices: no disk of their own
        raise CountersUnavailable(
            f"the data directory is on device {disk}, not a block device (a network, FUSE "
            "or memory file system): its I/O does not pass the container's block counters"
        )
    uevent = dict(line.split("=", 1) for line in sections[disk_header or ""] if "=" in line)
    name = uevent.get("DEVNAME", "")
    if "io.stat" in sections:
        rios, wios, rbytes, wbytes = _v2(sections["io.stat"], disk)
        return BlockCounters(disk, name, "cgroup v2 io.stat", rios, wios, rbytes, wbytes)
    ios, size = "blkio.throttle.io_serviced", "blkio.throttle.io_service_bytes"
    if ios not in sections or size not in sections:
        raise CountersUnavailable("no cgroup block I/O counters (io.stat or blkio.throttle)")
    source = "cgroup v1 blkio.throttle"
    counts, sizes = _v1(sections[ios], disk, ios), _v1(sections[size], disk, size)
    if counts is None or sizes is None:
        return BlockCounters(disk, name, source, 0, 0, 0, 0, seen=False)
    return BlockCounters(disk, name, source, *counts, *sizes)
