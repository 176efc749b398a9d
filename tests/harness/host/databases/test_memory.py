from __future__ import annotations

from harness.host.databases.memory import (
    DatabaseMemory,
    database_memory,
    fileio_memory,
    mariadb_memory,
    postgresql_memory,
    setting_bytes,
)

HOST = 16 * 2**30
MIB = 2**20


def test_setting_bytes():
    assert setting_bytes("128M") == setting_bytes("128MB") == 128 * MIB
    assert setting_bytes(134217728) == 128 * MIB
    assert setting_bytes("16384", 8192) == 128 * MIB  # PostgreSQL's unitless 8 kB pages
    assert setting_bytes("1GiB") == 2**30


def test_mariadb_with_o_direct_keeps_data_in_its_buffer_pool_only():
    assert mariadb_memory({}, HOST) == DatabaseMemory(
        128 * MIB, "innodb_buffer_pool_size 128 MiB (O_DIRECT: no page cache)"
    )
    assert mariadb_memory({"innodb_buffer_pool_size": "8M"}, HOST).bytes == 8 * MIB
    buffered = mariadb_memory({"innodb_flush_method": "fsync"}, HOST)
    assert buffered.bytes == 128 * MIB + HOST and "FSYNC" in buffered.what


def test_postgresql_reads_through_the_page_cache():
    memory = postgresql_memory({}, HOST)
    assert memory.bytes == 128 * MIB + HOST and "page cache" in memory.what
    assert postgresql_memory({"shared_buffers": 2048}, HOST).bytes == 16 * MIB + HOST


def test_fileio_with_o_direct_has_no_cache():
    assert fileio_memory(["direct"], HOST).bytes == 0
    assert fileio_memory([], HOST).bytes == HOST


def test_database_memory_by_engine():
    assert database_memory("mariadb", {}, HOST, []).bytes == 128 * MIB
    assert database_memory("postgresql", {}, HOST, []).bytes == 128 * MIB + HOST
    assert database_memory(None, {}, HOST, ["direct"]).bytes == 0
