"""Typed records derived from raw tool output, and their CSV layout.

``FIO_COLUMNS`` starts with the 21 columns of the Cinder+Ceph results document
(performance-docs, "Results of measuring performance of Cinder with Ceph backend"),
spelling included, so its users can load our fio.csv into the same spreadsheet; our own
columns follow. Latencies are milliseconds, bandwidths KiB/s, times ISO 8601 UTC.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Mapping
from dataclasses import asdict, astuple, dataclass, field, replace
from datetime import UTC, datetime

from harness.core.redact import redact_text
from harness.records.stalls import StallFigures
from harness.tools.fio.parse import Direction, FioJob

REFERENCE_COLUMNS = [
    "starttime",
    "stoptime",
    "jobname",
    "read_iops",
    "read_bandwidth",
    "read_complelatency_mean",
    "read_complelatency_min",
    "read_complelatency_max",
    "read_complelatency_95%ile",
    "read_complelatency_99%ile",
    "read_total_latency_avg",
    "read_bandwidth_avg",
    "write_iops",
    "write_bandwidth",
    "write_complelatency_mean",
    "write_complelatency_min",
    "write_complelatency_max",
    "write_complelatency_95%ile",
    "write_complelatency_99%ile",
    "write_total_latency_avg",
    "write_bandwidth_avg",
]
OWN_COLUMNS = [
    "step",
    "consumer",
    "concurrency",
    "role",
    "rw",
    "bs",
    "iodepth",
    "backend",
    "repeat",
    "error",
]
# each consumer over the step's common window (harness.records.window), from fio's logs
WINDOW_FIGURES = ["iops", "bandwidth", "clat_mean"]
WINDOW_COLUMNS = [f"window_{d}_{name}" for d in ("read", "write") for name in WINDOW_FIGURES]
# each consumer's stalls (harness.records.stalls): how many windows of a second or more
# it completed no I/O in, the longest, all of them; empty where fio logged no completions
STALL_COLUMNS = ["stalls", "stall_longest_s", "stall_total_s"]
FIO_COLUMNS = REFERENCE_COLUMNS + OWN_COLUMNS + WINDOW_COLUMNS + STALL_COLUMNS

CSV_FIGURES = [
    "iops",
    "bandwidth",
    "complelatency_mean",
    "complelatency_min",
    "complelatency_max",
    "complelatency_p95",
    "complelatency_p99",
    "total_latency_avg",
    "bandwidth_avg",
]
_NS_PER_MS = 1_000_000


@dataclass(frozen=True)
class DirectionFigures:
    """One direction of one consumer, in the units of the reference document."""

    iops: float
    bandwidth: float  # KiB/s
    complelatency_mean: float  # ms
    complelatency_min: float
    complelatency_max: float
    complelatency_p95: float | None
    complelatency_p99: float | None
    total_latency_avg: float
    bandwidth_avg: float | None  # KiB/s, mean of fio's bandwidth samples
    clat_bins_ns: dict[int, int] | None = field(default=None, repr=False)  # not in CSV

    @classmethod
    def from_direction(cls, d: Direction) -> DirectionFigures:
        def percentile(p: float) -> float | None:
            value = d.clat.percentiles_ns.get(p)
            return value / _NS_PER_MS if value is not None else None

        return cls(
            iops=d.iops,
            bandwidth=d.bw_kib,
            complelatency_mean=d.clat.mean_ns / _NS_PER_MS,
            complelatency_min=d.clat.min_ns / _NS_PER_MS,
            complelatency_max=d.clat.max_ns / _NS_PER_MS,
            complelatency_p95=percentile(95.0),
            complelatency_p99=percentile(99.0),
            total_latency_avg=d.lat.mean_ns / _NS_PER_MS,
            bandwidth_avg=d.bw_mean_kib,
            clat_bins_ns=d.clat.bins_ns,
        )

    def cells(self) -> list[float | None]:
        return [getattr(self, name) for name in CSV_FIGURES]


@dataclass(frozen=True)
class WindowFigures:
    """One direction of one consumer over the step's common window."""

    iops: float | None
    bandwidth: float | None  # KiB/s
    clat_mean: float | None  # ms

    def cells(self) -> list[float | None]:
        return [getattr(self, name) for name in WINDOW_FIGURES]


@dataclass(frozen=True)
class ConsumerContext:
    """What volperf knows about a consumer that fio's output does not say."""

    step: str
    consumer: str
    concurrency: int
    role: str  # reader, writer or mixed
    rw: str
    bs: str
    iodepth: int
    backend: str
    repeat: int


@dataclass(frozen=True)
class FioConsumerRecord:
    """One consumer (VM, pod or process) in one step: one row of fio.csv."""

    start_ms: int
    stop_ms: int
    jobname: str
    read: DirectionFigures | None
    write: DirectionFigures | None
    context: ConsumerContext
    error: str = ""
    window_estimated: bool = False  # fio < 3.36 has no job_start
    window_read: WindowFigures | None = None  # over the common window, when fio logged
    window_write: WindowFigures | None = None
    stalls: StallFigures | None = None  # None: fio logged no completions (older runs)

    @classmethod
    def from_job(cls, job: FioJob, context: ConsumerContext, fio_end_ms: int) -> FioConsumerRecord:
        runtime = job.runtime_ms or 0
        if job.start_ms is not None:
            start, stop, estimated = job.start_ms, job.start_ms + runtime, False
        else:
            # Older fio only stamps the output; its jobs ran for runtime up to that point.
            start, stop, estimated = fio_end_ms - runtime, fio_end_ms, True
        error = redact_text(f"fio error {job.error}: {job.error_message}") if job.error else ""
        return cls(
            start_ms=start,
            stop_ms=stop,
            jobname=job.jobname,
            read=DirectionFigures.from_direction(job.read) if job.read else None,
            write=DirectionFigures.from_direction(job.write) if job.write else None,
            context=context,
            error=error,
            window_estimated=estimated,
        )

    def row(self) -> list[object]:
        empty: list[float | None] = [0.0] * len(CSV_FIGURES)
        return [
            iso_time(self.start_ms),
            iso_time(self.stop_ms),
            self.jobname,
            *(self.read.cells() if self.read else empty),
            *(self.write.cells() if self.write else empty),
            *(asdict(self.context).values()),
            self.error,
            *(self.window_read.cells() if self.window_read else [None] * len(WINDOW_FIGURES)),
            *(self.window_write.cells() if self.window_write else [None] * len(WINDOW_FIGURES)),
            *(astuple(self.stalls) if self.stalls else [None] * len(STALL_COLUMNS)),
        ]


def from_row(row: Mapping[str, str], context: ConsumerContext) -> FioConsumerRecord:
    """A record back from its fio.csv row's reference columns, as a report keeps them
    (the data-plane scenario's table in Rally's report). The row writes zeros for a
    direction the consumer did not run, so a direction with only zeros has no figures;
    latency histograms are not in the row, so its merged percentiles cannot be had."""

    def figures(columns: list[str]) -> DirectionFigures | None:
        values = [float(row[c]) if row.get(c) else None for c in columns]
        if not any(values):
            return None
        return DirectionFigures(**dict(zip(CSV_FIGURES, values, strict=True)))

    width = len(CSV_FIGURES)
    return FioConsumerRecord(
        start_ms=from_iso_time(row["starttime"]),
        stop_ms=from_iso_time(row["stoptime"]),
        jobname=row["jobname"],
        read=figures(REFERENCE_COLUMNS[3 : 3 + width]),
        write=figures(REFERENCE_COLUMNS[3 + width : 3 + 2 * width]),
        context=context,
        error=row.get("error", ""),
    )


def iso_time(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, tz=UTC).isoformat(timespec="milliseconds")


def measured_start(record: FioConsumerRecord, first_interval_ms: int) -> FioConsumerRecord:
    """A fio < 3.36 job's record (no job_start: its start estimated from its output's stamp
    less its runtime) with its start measured: the earlier of that estimate and the start
    of its first logged interval, for its runtime. Neither comes before the real start,
    and each can come after it: fio stamps its output after closing the file or volume,
    and logs no interval in which nothing completed (a job stalled at its start)."""
    runtime = record.stop_ms - record.start_ms
    start = min(record.start_ms, first_interval_ms)
    return replace(record, start_ms=start, stop_ms=start + runtime, window_estimated=False)


def from_iso_time(stamp: str) -> int:
    return round(datetime.fromisoformat(stamp).timestamp() * 1000)


def csv_cell(value: object) -> object:
    if value is None:
        return ""
    if isinstance(value, float):
        return f"{value:.6f}".rstrip("0").rstrip(".") if value == value else ""
    return value


def fio_csv(records: Iterable[FioConsumerRecord]) -> str:
    """fio.csv: header plus one row per consumer per step.

    A direction the consumer did not run is 0, as in the reference document; a figure
    fio did not produce (a percentile not computed) is left empty, never 0.
    """
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(FIO_COLUMNS)
    for record in records:
        writer.writerow([csv_cell(v) for v in record.row()])
    return buffer.getvalue()
