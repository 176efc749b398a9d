from __future__ import annotations

from harness.host.databases.memory import (
    DatabaseMemory,
    PageCache,
    database_memory,
    fileio_memory,
    host_page_cache,
    mariadb_memory,
    postgresql_memory,
    setting_bytes,
)

MIB = 2**20
HOST = 16 * 2**30
CACHE = host_page_cache(HOST)


def test_setting_bytes():
    assert setting_bytes("128M") == setting_bytes("128MB") == 128 * MIB
    assert setting_bytes(134217728) == 128 * MIB
    assert setting_bytes("16384", 8192) == 128 * MIB  # PostgreSQL's unitless 8 kB pages
    assert setting_bytes("1GiB") == 2**30


def test_mariadb_with_o_direct_keeps_data_in_its_buffer_pool_only():
    assert mariadb_memory({}, CACHE) == DatabaseMemory(
        128 * MIB, "innodb_buffer_pool_size 128 MiB (O_DIRECT: no page cache)"
    )
    assert mariadb_memory({"innodb_buffer_pool_size": "8M"}, CACHE).bytes == 8 * MIB
    buffered = mariadb_memory({"innodb_flush_method": "fsync"}, CACHE)
    assert buffered.bytes == 128 * MIB + HOST and "FSYNC" in buffered.what


def test_postgresql_reads_through_the_page_cache():
    memory = postgresql_memory({}, CACHE)
    assert memory.bytes == 128 * MIB + HOST and "page cache" in memory.what
    assert postgresql_memory({"shared_buffers": 2048}, CACHE).bytes == 16 * MIB + HOST


def test_fileio_with_o_direct_has_no_cache():
    assert fileio_memory(["direct"], CACHE).bytes == 0
    assert fileio_memory([], CACHE).bytes == HOST


def test_database_memory_by_engine():
    assert database_memory("mariadb", {}, CACHE, []).bytes == 128 * MIB
    assert database_memory("postgresql", {}, CACHE, []).bytes == 128 * MIB + HOST
    assert database_memory(None, {}, CACHE, ["direct"]).bytes == 0


def test_a_page_cache_in_a_containers_limit_is_named_as_such():
    limit = PageCache(
        2**30, "the page cache within the container's memory limit (1Gi)", holds_buffers=True
    )
    memory = postgresql_memory({}, limit)
    assert memory.bytes == 2**30  # shared_buffers are within the limit too
    assert memory.what.endswith(
        "within the container's memory limit (1Gi) (PostgreSQL reads through it)"
    )
    assert host_page_cache(HOST).what == "the host's 16,384 MiB of page cache"
    buffered = mariadb_memory({"innodb_flush_method": "fsync"}, limit)
    assert buffered.bytes == 2**30
    assert mariadb_memory({"innodb_buffer_pool_size": "2G"}, limit).bytes == 2 * 2**30
