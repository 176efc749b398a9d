"""sysbench command lines for the fileio and OLTP tests, built from a workload.

The same options go to prepare, run and cleanup so the files or tables the run finds
are the ones prepare made. Reports every ``report_interval`` seconds and the 95th
percentile are always asked for: the intervals are kept raw and io-pause reads them.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from harness.core.spec import FileioWorkload, IoPauseWorkload, MigrationWorkload, OltpWorkload

RECONNECT_SCRIPT = "reconnect.lua"
# Bytes on disk per row of a sysbench OLTP table, data and secondary index, rounded down
# from what 2 tables x 200,000 rows took (MariaDB 10.11: 272, PostgreSQL 15: 255 beyond
# the empty database) so that a dataset sized with them is never smaller than asked.
ROW_BYTES = {"mariadb": 250, "postgresql": 250}


def _on(value: bool) -> str:
    return "on" if value else "off"


def fileio(
    workload: FileioWorkload, threads: int, phase: str, sysbench: str = "sysbench"
) -> list[str]:
    """Run in the consumer's own directory: sysbench makes its test_file.N there."""
    command = [
        sysbench,
        "fileio",
        f"--file-total-size={workload.file_total_size}",
        f"--file-num={workload.file_num}",
        f"--file-block-size={workload.file_block_size}",
        f"--file-extra-flags={','.join(workload.file_extra_flags)}",
    ]
    if phase == "run":
        command += [
            f"--file-test-mode={workload.test}",
            f"--file-io-mode={workload.file_io_mode}",
            f"--file-fsync-freq={workload.file_fsync_freq}",
            f"--file-fsync-all={_on(workload.file_fsync_all)}",
            f"--file-fsync-end={_on(workload.file_fsync_end)}",
            f"--file-fsync-mode={workload.file_fsync_mode}",
            f"--file-rw-ratio={workload.file_rw_ratio}",
            *_run_options(threads, workload.runtime, workload.report_interval),
        ]
    return [*command, phase]


def _run_options(threads: int, runtime: int, report_interval: int) -> list[str]:
    return [
        f"--threads={threads}",
        f"--time={runtime}",
        f"--report-interval={report_interval}",
        "--percentile=95",
    ]


def oltp(
    workload: OltpWorkload | IoPauseWorkload | MigrationWorkload,
    connection: list[str],
    threads: int,
    phase: str,
    sysbench: str = "sysbench",
) -> list[str]:
    """``connection`` is the server's --db-driver/socket options. The run of an io-pause
    or migration workload goes through reconnect.lua (see there) and lasts until volperf
    stops it."""
    endless = workload.endless
    test = f"oltp_{workload.test}"
    script = test
    if endless and phase == "run":
        script = str(reconnect_script())
    command = [
        sysbench,
        script,
        *connection,
        f"--tables={workload.tables}",
        f"--table-size={workload.table_size}",
    ]
    if phase == "run":
        runtime = 0 if endless else workload.runtime
        command += _run_options(threads, runtime, workload.report_interval)
    else:
        command.append(f"--threads={min(threads, workload.tables)}")
    return [*command, phase]


def reconnect_script() -> Path:
    return Path(str(resources.files("harness.tools.sysbench").joinpath(RECONNECT_SCRIPT)))
