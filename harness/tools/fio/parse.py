"""Parse fio's JSON / json+ output into typed results.

Copes with what real runs leave behind: text before the JSON (job banners, "fio:
terminating on signal 2"), jobs that failed (``error``), directions that did no I/O,
group_reporting, the field names of fio 2.x (``clat`` in microseconds, no bins)
and fio 3.x (``clat_ns`` in nanoseconds, json+ ``bins``), and the output of fio's client
(``--client``: every server's jobs in ``client_stats``, each with the server's
``hostname``, beside an "All clients" sum that is not a job). A file that holds no usable
JSON raises FioParseError naming the file; nothing is guessed as zero.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness.tools.fio.histogram import PLAT_VAL, bucket_value

DIRECTIONS = ("read", "write")
CLIENT_JOBS = "client_stats"  # fio --client: the servers' jobs
CLIENT_SUM = "All clients"  # and their sum, which is no job
_JSON_START = re.compile(r"^\{\s*$|^\{\s*\"", re.MULTILINE)


class FioParseError(ValueError):
    """fio output that cannot be turned into results; the message names the source."""

    def __init__(self, source: str, reason: str):
        super().__init__(f"{source}: {reason}")
        self.source = source
        self.reason = reason


@dataclass(frozen=True)
class Latency:
    """One latency statistic of one direction, always in nanoseconds."""

    min_ns: float
    max_ns: float
    mean_ns: float
    percentiles_ns: dict[float, int] = field(default_factory=dict)
    bins_ns: dict[int, int] | None = None  # json+ only


@dataclass(frozen=True)
class Direction:
    """Results of one job in one direction (read or write)."""

    io_bytes: int
    total_ios: int
    iops: float
    bw_kib: float  # KiB/s over the direction's runtime, as fio reports "bw"
    bw_mean_kib: float | None  # mean of fio's bandwidth samples ("bw_mean")
    runtime_ms: int
    clat: Latency
    lat: Latency


@dataclass(frozen=True)
class SteadyStateResult:
    """fio's own steady-state detection of one job (steadystate=, ss_dur=): the
    criterion asked, whether it was met (fio then ended the job early), and the mean of
    the last ss_dur seconds it judged."""

    criterion: str  # as fio prints it, e.g. "iops_slope:0.100000%"
    attained: bool
    duration_s: int
    iops_mean: float
    bw_mean_kib: float


@dataclass(frozen=True)
class FioJob:
    jobname: str
    groupid: int
    error: int
    read: Direction | None
    write: Direction | None
    runtime_ms: int | None  # the longer direction's runtime
    start_ms: int | None  # job_start (fio >= 3.36), wall clock in ms since the epoch
    options: dict[str, str]
    steadystate: SteadyStateResult | None = None
    host: str = ""  # the fio server that ran it, as fio's client names it (client mode)

    @property
    def error_message(self) -> str:
        return os.strerror(self.error) if self.error else ""


@dataclass(frozen=True)
class FioOutput:
    source: str
    version: str
    major_version: int
    timestamp_ms: int
    jobs: tuple[FioJob, ...]
    global_options: dict[str, str]
    text_before: str  # anything fio printed before the JSON, kept for the report
    histograms: bool  # json+ bins present


def parse_file(path: Path) -> FioOutput:
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise FioParseError(str(path), f"cannot read: {exc.strerror}") from exc
    return parse_text(text, source=str(path))


def parse_text(text: str, source: str = "<fio output>") -> FioOutput:
    document, before = _extract_json(text, source)
    try:
        return _build_output(document, before, source)
    except (KeyError, TypeError, ValueError) as exc:
        if isinstance(exc, FioParseError):
            raise
        raise FioParseError(source, f"unexpected fio JSON layout: {exc!r}") from exc


def _extract_json(text: str, source: str) -> tuple[dict[str, Any], str]:
    if not text.strip():
        raise FioParseError(source, "empty output: fio printed nothing")
    match = _JSON_START.search(text)
    if match is None:
        first = text.strip().splitlines()[0][:200]
        raise FioParseError(source, f"no JSON object in fio output (first line: {first!r})")
    try:
        document, _ = json.JSONDecoder().raw_decode(text, match.start())
    except json.JSONDecodeError as exc:
        raise FioParseError(
            source,
            f"truncated or malformed JSON at line {exc.lineno} column {exc.colno}: {exc.msg}",
        ) from exc
    if not isinstance(document, dict) or not ("jobs" in document or CLIENT_JOBS in document):
        raise FioParseError(source, "JSON has no 'jobs' list: not fio output")
    return document, text[: match.start()]


def _build_output(document: dict[str, Any], before: str, source: str) -> FioOutput:
    version = str(document.get("fio version", "unknown"))
    major = major_version(version)
    timestamp_ms = int(document.get("timestamp_ms") or int(document.get("timestamp", 0)) * 1000)
    listed = document.get("jobs") or [
        job for job in document.get(CLIENT_JOBS, []) if job.get("jobname") != CLIENT_SUM
    ]
    jobs = tuple(_parse_job(job, major, source) for job in listed)
    if not jobs:
        raise FioParseError(source, "fio output lists no jobs")
    histograms = any(
        d is not None and d.clat.bins_ns is not None for j in jobs for d in (j.read, j.write)
    )
    return FioOutput(
        source=source,
        version=version,
        major_version=major,
        timestamp_ms=timestamp_ms,
        jobs=jobs,
        global_options={k: str(v) for k, v in document.get("global options", {}).items()},
        text_before=before,
        histograms=histograms,
    )


def major_version(version: str) -> int:
    match = re.search(r"(\d+)\.\d+", version)
    return int(match.group(1)) if match else 3


def _parse_job(job: dict[str, Any], major: int, source: str) -> FioJob:
    if "mixed" in job:
        raise FioParseError(
            source,
            f"job {job.get('jobname')!r} uses unified_rw_reporting; volperf needs "
            "read and write reported separately",
        )
    read, write = (_parse_direction(job.get(name), major) for name in DIRECTIONS)
    # The longest direction is the job's run window; job_runtime is summed over the
    # jobs of a group under group_reporting, so it only stands in when no I/O was done.
    runtimes = [d.runtime_ms for d in (read, write) if d is not None]
    runtime = max(runtimes) if runtimes else job.get("job_runtime")
    return FioJob(
        jobname=str(job["jobname"]),
        groupid=int(job.get("groupid", 0)),
        error=int(job.get("error", 0)),
        read=read,
        write=write,
        runtime_ms=int(runtime) if runtime is not None else None,
        start_ms=int(job["job_start"]) if job.get("job_start") else None,
        options={k: str(v) for k, v in job.get("job options", {}).items()},
        steadystate=_parse_steadystate(job.get("steadystate")),
        host=str(job.get("hostname", "")),
    )


def _parse_steadystate(data: dict[str, Any] | None) -> SteadyStateResult | None:
    if not data:
        return None
    means = data.get("data") or {}
    return SteadyStateResult(
        criterion=str(data["ss"]),
        attained=bool(int(data["attained"])),
        duration_s=int(data["duration"]),
        iops_mean=float(means.get("iops_mean", 0)),
        bw_mean_kib=float(means.get("bw_mean", 0)) / 1024,  # fio gives bytes/s here
    )


def _parse_direction(data: dict[str, Any] | None, major: int) -> Direction | None:
    if not data or int(data.get("total_ios", 0)) == 0 and int(data.get("io_bytes", 0)) == 0:
        return None
    return Direction(
        io_bytes=int(data["io_bytes"]),
        total_ios=int(data.get("total_ios", 0)),
        iops=float(data["iops"]),
        bw_kib=float(data["bw"]),
        bw_mean_kib=float(data["bw_mean"]) if "bw_mean" in data else None,
        runtime_ms=int(data["runtime"]),
        clat=_parse_latency(data, "clat"),
        lat=_parse_latency(data, "lat"),
    )


def _parse_latency(data: dict[str, Any], name: str) -> Latency:
    if f"{name}_ns" in data:
        block, scale = data[f"{name}_ns"], 1
    elif name in data:  # fio 2.x: microseconds
        block, scale = data[name], 1000
    else:
        raise KeyError(f"{name}_ns")
    percentiles = {
        float(key): int(value) * scale
        for key, value in (block.get("percentile") or {}).items()
        if float(key) > 0  # fio pads unused percentile slots with "0.00": 0
    }
    bins = block.get("bins")
    bins_ns = _bins_ns(bins, scale) if bins is not None else None
    return Latency(
        min_ns=float(block["min"]) * scale,
        max_ns=float(block["max"]) * scale,
        mean_ns=float(block["mean"]) * scale,
        percentiles_ns=percentiles,
        bins_ns=bins_ns,
    )


def _bins_ns(bins: dict[str, Any], scale: int) -> dict[int, int]:
    """json+ bins keyed by bucket value (fio >= 2.21) or by bucket index (fio 2.x)."""
    if "FIO_IO_U_PLAT_NR" in bins:  # index-keyed, with the layout alongside
        groups = int(bins["FIO_IO_U_PLAT_NR"]) // PLAT_VAL
        return {
            bucket_value(int(k), groups) * scale: int(v)
            for k, v in bins.items()
            if k.isdigit() and int(v)
        }
    return {int(k) * scale: int(v) for k, v in bins.items() if int(v)}
