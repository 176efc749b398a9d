"""fio's latency histogram layout (stat.h), used to know its measurement ceiling.

fio keeps completion latencies in FIO_IO_U_PLAT_GROUP_NR groups of 2**PLAT_BITS
buckets; anything slower than the range lands in the top bucket, so a percentile equal
to the top bucket's value is a lower bound, not a measurement.
"""

from __future__ import annotations

PLAT_BITS = 6
PLAT_VAL = 1 << PLAT_BITS
GROUPS_FIO2 = 19  # fio 2.x: buckets in microseconds
GROUPS_FIO3 = 29  # fio 3.x: buckets in nanoseconds


def bucket_value(index: int, groups: int) -> int:
    """fio's plat_idx_to_val(): the representative value of bucket ``index``."""
    if not 0 <= index < groups * PLAT_VAL:
        raise ValueError(f"bucket index {index} outside 0..{groups * PLAT_VAL - 1}")
    if index < (PLAT_VAL << 1):
        return index
    error_bits = (index >> PLAT_BITS) - 1
    base = 1 << (error_bits + PLAT_BITS)
    k = index % PLAT_VAL
    return int(base + (k + 0.5) * (1 << error_bits))


def top_bucket_ns(major_version: int) -> int:
    """Value of the top latency bucket in nanoseconds for a fio major version."""
    if major_version >= 3:
        return bucket_value(GROUPS_FIO3 * PLAT_VAL - 1, GROUPS_FIO3)
    return bucket_value(GROUPS_FIO2 * PLAT_VAL - 1, GROUPS_FIO2) * 1000
