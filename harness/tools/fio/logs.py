"""fio's own per-interval logs (write_iops_log, write_bw_log, write_lat_log with
log_avg_msec): one line per interval and direction, "time, value, direction, block size,
offset" (fio 3; fio 2 writes the first four), the time in milliseconds since the job
started or, with log_unix_epoch, since the epoch. Values: I/Os per second (iops), KiB/s
(bw), nanoseconds (lat, clat, slat in fio 3; microseconds in fio 2). Histogram logs
(write_hist_log with log_hist_msec): "time, direction, block size, count of bucket 0,
…" with the I/Os completed in the interval in each of fio's latency buckets, written at
the first completion after each interval: their times are when I/Os completed."""

from __future__ import annotations

import glob
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

from harness.tools.fio.histogram import PLAT_VAL, bucket_value
from harness.tools.fio.render import LOG_AVG_MS, STALL_LOG_MS, STALL_LOG_SUFFIX

DIRECTIONS = {0: "read", 1: "write", 2: "trim"}


class FioLogError(ValueError):
    """A log line fio would not write; says which."""


@dataclass(frozen=True)
class LogPoint:
    time_ms: int
    value: float
    direction: str


def parse_log(text: str, name: str = "log") -> list[LogPoint]:
    points = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        fields = [f.strip() for f in line.split(",")]
        try:
            time_ms, value, direction = int(fields[0]), float(fields[1]), int(fields[2])
        except (IndexError, ValueError):
            raise FioLogError(f"{name}:{number}: not a fio log line: {line[:80]!r}") from None
        if direction not in DIRECTIONS:
            raise FioLogError(f"{name}:{number}: unknown direction {direction}")
        points.append(LogPoint(time_ms, value, DIRECTIONS[direction]))
    return points


@dataclass(frozen=True)
class HistPoint:
    time_ms: int
    direction: str
    bins: dict[int, int]  # bucket value (fio's unit: ns in fio 3) -> I/Os in the interval


def parse_hist_log(text: str, name: str = "log") -> list[HistPoint]:
    """A histogram log written with fio's default coarseness (every bucket kept)."""
    points = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        fields = [f.strip() for f in line.split(",")]
        try:
            time_ms, direction, counts = int(fields[0]), int(fields[1]), list(map(int, fields[3:]))
        except (IndexError, ValueError):
            raise FioLogError(f"{name}:{number}: not a fio histogram line: {line[:80]!r}") from None
        if direction not in DIRECTIONS:
            raise FioLogError(f"{name}:{number}: unknown direction {direction}")
        if not counts or len(counts) % PLAT_VAL:
            raise FioLogError(
                f"{name}:{number}: {len(counts)} buckets, not whole groups of {PLAT_VAL} "
                "(a log_hist_coarseness other than 0?)"
            )
        groups = len(counts) // PLAT_VAL
        bins = {bucket_value(i, groups): c for i, c in enumerate(counts) if c}
        points.append(HistPoint(time_ms, DIRECTIONS[direction], bins))
    return points


def parse_completion_marks(text: str, name: str = "log") -> list[int]:
    """The times of a histogram log's lines, in any coarseness: moments at which the job
    completed I/O (fio writes a line only at a completion)."""
    times = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        head = line.split(",", 1)[0].strip()
        if not head.isdigit():
            raise FioLogError(f"{name}:{number}: not a fio histogram line: {line[:80]!r}")
        times.append(int(head))
    return times


Series = list[tuple[int, float]]


def series(points: list[LogPoint], direction: str) -> Series:
    """One direction's (time_ms, value), in time order."""
    return sorted((p.time_ms, p.value) for p in points if p.direction == direction)


# before this, a log's times are since its job started (fio without log_unix_epoch)
EPOCH_MS_FROM = 10**12  # 2001-09-09


@dataclass(frozen=True)
class JobLogs:
    """One consumer's logs, direction -> (time_ms, value) series of each kind: IOPS, KiB/s
    and mean completion latency (fio's own unit); its sub-jobs (numjobs) combined
    interval by interval (IOPS and bandwidth summed, latency averaged)."""

    jobname: str
    iops: dict[str, Series]
    bw: dict[str, Series]
    clat: dict[str, Series]
    # direction -> (time_ms, completion latency histogram of the interval), if written
    clat_hist: dict[str, list[tuple[int, dict[int, int]]]] = field(default_factory=dict)
    # moments at which it completed I/O (any direction, sub-jobs together), in time
    # order, from a histogram log written every completion_log_ms; none: not logged
    completions: list[int] = field(default_factory=list)
    completion_log_ms: int | None = None


def since_epoch(logs: JobLogs) -> bool:
    """True when the log's times are wall-clock (log_unix_epoch), comparable across
    consumers; false for times since each job started."""
    return all(
        t >= EPOCH_MS_FROM
        for kind in (logs.iops, logs.bw, logs.clat)
        for points in kind.values()
        for t, _ in points
    )


def _combine(parts: list[Series], summed: bool) -> Series:
    """Sub-jobs' series interval by interval, as long as the shortest; each interval
    stamped with its latest sub-job's time."""
    if len(parts) == 1:
        return parts[0]
    combined = []
    for points in zip(*parts, strict=False):
        total = sum(v for _, v in points)
        combined.append((max(t for t, _ in points), total if summed else total / len(points)))
    return combined


class LogPlace(NamedTuple):
    """Where a consumer's logs are: their folder, the job name fio wrote them under, and
    the fio server that sent them, whose name fio's client appends to each file's name
    (``c01_iops.1.log.HOST``)."""

    directory: Path
    jobname: str
    host: str = ""


def read_job_logs(
    directory: Path, jobname: str, consumer: str | None = None, host: str = ""
) -> JobLogs | None:
    """The logs fio wrote as DIRECTORY/<jobname>_<kind>.<job number>.log (with ``.HOST``
    after it when fio's client received them from that server), named after ``consumer``
    (default: the job name), or None when it wrote none (an older run, a consumer that
    never started)."""
    tail = f".log.{glob.escape(host)}" if host else ".log"
    kinds: dict[str, dict[str, Series]] = {}
    for kind in ("iops", "bw", "clat"):
        files = sorted(directory.glob(f"{glob.escape(jobname)}_{kind}.*{tail}"))
        parsed = [parse_log(f.read_text(encoding="utf-8"), f.name) for f in files]
        kinds[kind] = {
            direction: _combine(parts, summed=kind != "clat")
            for direction in DIRECTIONS.values()
            if (parts := [s for points in parsed if (s := series(points, direction))])
        }
    if not any(kinds.values()):
        return None
    if not kinds["iops"]:  # volperf's jobs write all three: the others without it were cut
        raise FioLogError(f"{jobname}: fio's IOPS log is missing beside its other logs")
    histograms: dict[str, list[tuple[int, dict[int, int]]]] = {}
    for path in sorted(directory.glob(f"{glob.escape(jobname)}_clat_hist.*{tail}")):
        for point in parse_hist_log(path.read_text(encoding="utf-8"), path.name):
            histograms.setdefault(point.direction, []).append((point.time_ms, point.bins))
    for points in histograms.values():
        points.sort(key=lambda p: p[0])  # sub-jobs' intervals interleaved in time
    marks: list[int] = []
    for path in sorted(
        directory.glob(f"{glob.escape(jobname)}{STALL_LOG_SUFFIX}_clat_hist.*{tail}")
    ):
        marks += parse_completion_marks(path.read_text(encoding="utf-8"), path.name)
    every: int | None = STALL_LOG_MS if marks else None
    if not marks and histograms:
        marks, every = [t for points in histograms.values() for t, _ in points], LOG_AVG_MS
    return JobLogs(
        consumer or jobname,
        kinds["iops"],
        kinds["bw"],
        kinds["clat"],
        histograms,
        sorted(set(marks)),
        every,
    )


def read_places(places: Mapping[str, LogPlace]) -> list[JobLogs]:
    """The logs of each consumer (by its job name) whose fio wrote readable ones; the
    others are left out."""
    found = []
    for name, place in places.items():
        try:
            logs = read_job_logs(place.directory, place.jobname, name, place.host)
        except (FioLogError, OSError):
            continue
        if logs is not None:
            found.append(logs)
    return found
