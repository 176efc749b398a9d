"""sysbench fileio: each consumer is one sysbench on its own set of files."""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from pydantic import Field

from harness.core.workloads.base import Size, Tool
from harness.core.workloads.columns import consumers, db, threads
from harness.core.workloads.database import ThreadCounts, _DbWorkload
from harness.core.workloads.words import db_step_line, join, runtime_seconds, thread_counts


class FileioWorkload(_DbWorkload):
    """sysbench fileio: each consumer is one sysbench on its own set of files."""

    size_field: ClassVar[str] = "file_total_size"  # what a profile's --size sets
    tool: Literal["sysbench-fileio"] = Field(description="sysbench-fileio")
    test: Literal["rndrd", "rndwr", "rndrw", "seqrd", "seqwr"] = Field(
        description="sysbench's file-test-mode: random or sequential read, write, or random mixed"
    )
    threads: ThreadCounts = Field(
        [1], description="sysbench threads of each consumer, one step per count"
    )
    runtime: int = Field(60, ge=1, description="seconds of measured run")
    file_total_size: Size = Field("1G", description="size of each consumer's files in all")
    file_num: int = Field(16, ge=1, le=100000, description="files per consumer")
    file_block_size: Size = Field("16k", description="block size of every I/O")
    file_io_mode: Literal["sync", "async", "mmap"] = Field(
        "sync", description="sysbench's file-io-mode"
    )
    file_extra_flags: list[Literal["direct", "dsync", "sync"]] = Field(
        ["direct"],
        description="flags the files are opened with; direct (O_DIRECT) keeps the page cache "
        "from answering for the disk",
    )
    file_fsync_freq: int = Field(100, ge=0, description="fsync every N requests, 0: never")
    file_fsync_all: bool = Field(False, description="fsync after every write")
    file_fsync_end: bool = Field(True, description="fsync at the end of the run")
    file_fsync_mode: Literal["fsync", "fdatasync"] = Field(
        "fsync", description="the call the syncs use"
    )
    file_rw_ratio: float = Field(1.5, gt=0, description="reads per write for rndrw")


_SYSBENCH_TESTS = {
    "rndrd": "random reads",
    "rndwr": "random writes",
    "rndrw": "random reads and writes",
    "seqrd": "sequential reads",
    "seqwr": "sequential writes",
}


def step_line(w: dict[str, Any], threads: int | None) -> str:
    return db_step_line(w, threads, runtime_seconds(w))


def describe(w: dict[str, Any]) -> str:
    flags = w.get("file_extra_flags") or []
    fsync = (
        f"fsync every {w.get('file_fsync_freq')} requests"
        if w.get("file_fsync_freq")
        else "no periodic fsync"
    )
    return join(
        [
            f"sysbench fileio {w.get('test')} ({_SYSBENCH_TESTS.get(w.get('test', ''), '')}): "
            f"each consumer one sysbench on {w.get('file_num')} files of "
            f"{w.get('file_total_size')} in all, block {w.get('file_block_size')}",
            thread_counts(w),
            f"{w.get('file_io_mode')} I/O" + (f" with {', '.join(flags)}" if flags else ""),
            fsync + ("; fsync after every write" if w.get("file_fsync_all") else ""),
            f"for {w.get('runtime')} s",
        ]
    )


COLUMNS = (
    consumers(),
    threads(),
    db("reads_per_s_total"),
    db("writes_per_s_total"),
    db("fsyncs_per_s_total"),
    db("read_mib_s_total", 1),
    db("written_mib_s_total", 1),
    db("latency_p95_ms_highest", 3),
    db("load_time_s_max", 1),
)


TOOL = Tool(
    "sysbench-fileio",
    FileioWorkload,
    "database",
    frozenset({"local", "k8s"}),
    describe,
    runtime_seconds,
    step_line,
    columns=COLUMNS,
)
