"""fio's own per-interval logs (write_iops_log, write_bw_log, write_lat_log with
log_avg_msec): one line per interval and direction, "time, value, direction, block size,
offset" (fio 3; fio 2 writes the first four), the time in milliseconds since the job
started or, with log_unix_epoch, since the epoch. Values: I/Os per second (iops), KiB/s
(bw), nanoseconds (lat, clat, slat in fio 3; microseconds in fio 2)."""

from __future__ import annotations

from dataclasses import dataclass

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


def series(points: list[LogPoint], direction: str) -> list[tuple[int, float]]:
    """One direction's (time_ms, value), in time order."""
    return sorted((p.time_ms, p.value) for p in points if p.direction == direction)
