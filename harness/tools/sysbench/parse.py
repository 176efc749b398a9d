"""Parse sysbench 1.0 text output: the final summary and the --report-interval lines.

sysbench has no machine-readable summary in 1.0, so the labels it prints are matched
one by one; a figure sysbench did not print stays None rather than becoming zero.
FATAL lines are kept verbatim so a failed step can quote them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

_NUMBER = r"([0-9]+(?:\.[0-9]+)?)"
_OLTP_INTERVAL = re.compile(
    rf"^\[ *{_NUMBER}s \] thds: (\d+) tps: {_NUMBER} qps: {_NUMBER} "
    rf"\(r/w/o: {_NUMBER}/{_NUMBER}/{_NUMBER}\) lat \(ms,\d+%\): {_NUMBER} "
    rf"err/s: {_NUMBER} reconn/s: {_NUMBER}"
)
_FILEIO_INTERVAL = re.compile(
    rf"^\[ *{_NUMBER}s \] reads: {_NUMBER} MiB/s writes: {_NUMBER} MiB/s "
    rf"fsyncs: {_NUMBER}/s latency \(ms,\d+%\): {_NUMBER}"
)
# label as printed -> field of SysbenchSummary; "(N per sec.)" gives the rate
_COUNTS = {
    "transactions": "tps",
    "queries": "qps",
    "ignored errors": "errors_per_s",
    "reconnects": "reconnects_per_s",
}
_VALUES = {
    "reads/s": "reads_per_s",
    "writes/s": "writes_per_s",
    "fsyncs/s": "fsyncs_per_s",
    "read, MiB/s": "read_mib_s",
    "written, MiB/s": "written_mib_s",
    "total number of events": "events",
    "min": "latency_min_ms",
    "avg": "latency_avg_ms",
    "max": "latency_max_ms",
    "95th percentile": "latency_p95_ms",
}


class SysbenchParseError(ValueError):
    """Output that holds no sysbench result; the message says what was missing."""


@dataclass(frozen=True)
class SysbenchInterval:
    time_s: float
    tps: float | None = None
    qps: float | None = None
    latency_p95_ms: float | None = None
    errors_per_s: float | None = None
    reconnects_per_s: float | None = None
    read_mib_s: float | None = None
    written_mib_s: float | None = None
    fsyncs_per_s: float | None = None


@dataclass
class SysbenchSummary:
    total_time_s: float | None = None
    events: float | None = None
    tps: float | None = None
    qps: float | None = None
    errors_per_s: float | None = None
    reconnects_per_s: float | None = None
    reads_per_s: float | None = None
    writes_per_s: float | None = None
    fsyncs_per_s: float | None = None
    read_mib_s: float | None = None
    written_mib_s: float | None = None
    latency_min_ms: float | None = None
    latency_avg_ms: float | None = None
    latency_max_ms: float | None = None
    latency_p95_ms: float | None = None


@dataclass
class SysbenchOutput:
    version: str
    threads: int | None
    intervals: list[SysbenchInterval]
    summary: SysbenchSummary | None  # None when sysbench ended before its summary
    fatal: list[str] = field(default_factory=list)


def parse_text(text: str, source: str = "<sysbench output>") -> SysbenchOutput:
    version = re.search(r"^sysbench (\S+)", text, re.MULTILINE)
    if version is None:
        raise SysbenchParseError(f"{source}: no 'sysbench <version>' banner: not sysbench output")
    threads = re.search(r"^Number of threads: (\d+)", text, re.MULTILINE)
    intervals = [_interval(line) for line in text.splitlines() if line.startswith("[")]
    fatal = [line for line in text.splitlines() if line.startswith("FATAL:")]
    return SysbenchOutput(
        version=version.group(1),
        threads=int(threads.group(1)) if threads else None,
        intervals=[i for i in intervals if i is not None],
        summary=_summary(text) if "General statistics:" in text else None,
        fatal=fatal,
    )


def parse_file(path: Path) -> SysbenchOutput:
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise SysbenchParseError(f"{path}: cannot read: {exc.strerror}") from exc
    return parse_text(text, str(path))


def report_tps(path: Path) -> list[float | None]:
    """The TPS of each 1-second report a running client has printed so far (none when its
    output is not there yet)."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return []
    found = (_interval(line) for line in text.splitlines() if line.startswith("["))
    return [i.tps for i in found if i is not None]


def _interval(line: str) -> SysbenchInterval | None:
    if m := _OLTP_INTERVAL.match(line):
        t, _threads, tps, qps, _r, _w, _o, lat, err, reconn = m.groups()
        return SysbenchInterval(
            float(t),
            tps=float(tps),
            qps=float(qps),
            latency_p95_ms=float(lat),
            errors_per_s=float(err),
            reconnects_per_s=float(reconn),
        )
    if m := _FILEIO_INTERVAL.match(line):
        t, reads, writes, fsyncs, lat = m.groups()
        return SysbenchInterval(
            float(t),
            read_mib_s=float(reads),
            written_mib_s=float(writes),
            fsyncs_per_s=float(fsyncs),
            latency_p95_ms=float(lat),
        )
    return None


def _summary(text: str) -> SysbenchSummary:
    summary = SysbenchSummary()
    for line in text.splitlines():
        label, sep, rest = line.strip().partition(":")
        if not sep:
            continue
        rest = rest.strip()
        if label in _COUNTS and (m := re.search(rf"\({_NUMBER} per sec\.\)", rest)):
            setattr(summary, _COUNTS[label], float(m.group(1)))
        elif label in _VALUES and (m := re.match(_NUMBER, rest)):
            setattr(summary, _VALUES[label], float(m.group(1)))
        elif label == "total time" and (m := re.match(rf"{_NUMBER}s", rest)):
            summary.total_time_s = float(m.group(1))
    return summary
