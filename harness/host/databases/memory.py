"""How much memory a database may keep its data in, from its server options and the
page cache it can read through (the host's memory; on Kubernetes the container's memory
limit, or its node's memory): what a dataset must outgrow before a benchmark measures
storage.

MariaDB (10.6 and later) writes and reads InnoDB data with O_DIRECT by default: only its
buffer pool caches data. PostgreSQL reads through the page cache: its shared_buffers and
the host's memory do. sysbench fileio with O_DIRECT files has no cache at all.
"""

from __future__ import annotations

from dataclasses import dataclass

from harness.core.units import size_bytes

MARIADB_POOL_DEFAULT = "128M"
MARIADB_FLUSH_DEFAULT = "O_DIRECT"
POSTGRESQL_SHARED_BUFFERS_DEFAULT = "128MB"
POSTGRESQL_PAGE_BYTES = 8192  # a unitless shared_buffers counts 8 kB pages


@dataclass(frozen=True)
class DatabaseMemory:
    bytes: int
    what: str  # which memory, in words


@dataclass(frozen=True)
class PageCache:
    """The page cache a database's reads can be served from."""

    bytes: int
    what: str  # e.g. "the host's 23,000 MiB of page cache"
    # the server's own buffers are within it too (a container's memory limit holds both)
    holds_buffers: bool = False

    def beside(self, buffers: int) -> int:
        """The memory of a server's buffers and this cache together."""
        return max(buffers, self.bytes) if self.holds_buffers else buffers + self.bytes


def _mib(value: int) -> str:
    return f"{value / 2**20:,.0f} MiB"


def setting_bytes(value: str | int, unit_bytes: int = 1) -> int:
    """A server's size setting in bytes: '128M', '128MB', '1GiB', or a number of units."""
    text = str(value).strip()
    return int(text) * unit_bytes if text.isdigit() else size_bytes(text)


def host_page_cache(host_bytes: int) -> PageCache:
    return PageCache(host_bytes, f"the host's {_mib(host_bytes)} of page cache")


def mariadb_memory(options: dict[str, str | int], cache: PageCache) -> DatabaseMemory:
    pool = setting_bytes(options.get("innodb_buffer_pool_size", MARIADB_POOL_DEFAULT))
    flush = str(options.get("innodb_flush_method", MARIADB_FLUSH_DEFAULT)).upper()
    if "O_DIRECT" in flush:
        return DatabaseMemory(
            pool, f"innodb_buffer_pool_size {_mib(pool)} (O_DIRECT: no page cache)"
        )
    return DatabaseMemory(
        cache.beside(pool),
        f"innodb_buffer_pool_size {_mib(pool)} + {cache.what} (innodb_flush_method {flush})",
    )


def postgresql_memory(options: dict[str, str | int], cache: PageCache) -> DatabaseMemory:
    shared = options.get("shared_buffers", POSTGRESQL_SHARED_BUFFERS_DEFAULT)
    buffers = setting_bytes(shared, POSTGRESQL_PAGE_BYTES)
    return DatabaseMemory(
        cache.beside(buffers),
        f"shared_buffers {_mib(buffers)} + {cache.what} (PostgreSQL reads through it)",
    )


def fileio_memory(extra_flags: list[str], cache: PageCache) -> DatabaseMemory:
    if "direct" in extra_flags:
        return DatabaseMemory(0, "none (O_DIRECT files)")
    return DatabaseMemory(cache.bytes, cache.what)


def database_memory(
    engine: str | None, options: dict[str, str | int], cache: PageCache, extra_flags: list[str]
) -> DatabaseMemory:
    """The memory one consumer's data can be served from: ``engine`` None is fileio."""
    if engine == "mariadb":
        return mariadb_memory(options, cache)
    if engine == "postgresql":
        return postgresql_memory(options, cache)
    return fileio_memory(extra_flags, cache)
