"""The database clients (harness/tools/db_clients.py): ``dataset: Nx-memory`` turned into
sysbench's table size and pgbench's scale."""

from __future__ import annotations

from harness.core.spec import FileioWorkload, OltpWorkload, PgbenchWorkload
from harness.host.databases.memory import DatabaseMemory
from harness.tools.db_clients import client_of
from harness.tools.pgbench.command import SCALE_BYTES
from harness.tools.sysbench.command import ROW_BYTES

POOL = DatabaseMemory(128 * 2**20, "innodb_buffer_pool_size 128 MiB")


def sized(workload, memory: DatabaseMemory):
    return client_of(workload).sized(workload, memory.bytes)


def test_sysbench_tables_grow_to_the_asked_multiple_of_memory():
    workload = OltpWorkload(name="o", tool="sysbench-oltp", tables=4, dataset="2x-memory")
    rows = sized(workload, POOL).table_size
    assert rows * 4 * ROW_BYTES["mariadb"] >= 2 * POOL.bytes
    assert (rows - 1) * 4 * ROW_BYTES["mariadb"] < 2 * POOL.bytes
    assert sized(workload, POOL).tables == 4 and sized(workload, POOL).dataset == "2x-memory"


def test_pgbench_scale_grows_to_the_asked_multiple_of_memory():
    workload = PgbenchWorkload(name="p", tool="pgbench", dataset="1.5x-memory")
    scale = sized(workload, POOL).scale
    assert scale * SCALE_BYTES >= 1.5 * POOL.bytes > (scale - 1) * SCALE_BYTES


def test_workloads_without_dataset_are_left_as_they_are():
    plain = OltpWorkload(name="o", tool="sysbench-oltp", table_size=123)
    assert sized(plain, POOL) is plain
    files = FileioWorkload(name="f", tool="sysbench-fileio", test="rndrd")
    assert sized(files, POOL) is files
    # no memory to outgrow (O_DIRECT files): at least one row or one scale unit
    empty = DatabaseMemory(0, "none")
    assert (
        sized(OltpWorkload(name="o", tool="sysbench-oltp", dataset="2x-memory"), empty).table_size
        == 1
    )
