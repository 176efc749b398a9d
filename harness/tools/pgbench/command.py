"""pgbench command lines: the timed init (-i) at a scale factor, and the measured run
with --progress reports kept raw."""

from __future__ import annotations

from harness.core.spec import PgbenchWorkload
from harness.host.databases.postgresql import PGBENCH_DATABASE

DATABASE = PGBENCH_DATABASE
# Bytes on disk per scale unit (100,000 accounts rows and their index), rounded down from
# what scale 4 took on PostgreSQL 15 (15.8 MiB each beyond the empty database).
SCALE_BYTES = 15 * 2**20


def init(workload: PgbenchWorkload, connection: list[str]) -> list[str]:
    return [*connection, "-i", f"--scale={workload.scale}", DATABASE]


def run(workload: PgbenchWorkload, connection: list[str], clients: int) -> list[str]:
    jobs = min(workload.jobs or clients, clients)
    return [
        *connection,
        f"--client={clients}",
        f"--jobs={jobs}",
        f"--time={workload.runtime}",
        f"--progress={workload.report_interval}",
        f"--protocol={workload.protocol}",
        DATABASE,
    ]
