from __future__ import annotations

import pytest

from harness.tools.fio.histogram import GROUPS_FIO3, PLAT_VAL, bucket_value, top_bucket_ns
from harness.tools.fio.parse import parse_file


def test_top_bucket_of_fio2_is_the_reference_documents_ceiling():
    # The Cinder+Ceph document reports write p95 = 16711.68 ms at 40 VMs: fio 2.2's top.
    assert top_bucket_ns(2) == 16_711_680_000


def test_top_bucket_of_fio3():
    assert top_bucket_ns(3) == 17_112_760_320


def test_small_indexes_are_exact():
    assert [bucket_value(i, GROUPS_FIO3) for i in (0, 1, 127)] == [0, 1, 127]


def test_index_out_of_range():
    with pytest.raises(ValueError):
        bucket_value(GROUPS_FIO3 * PLAT_VAL, GROUPS_FIO3)


def test_every_bin_fio_wrote_is_a_bucket_value(fio_fixture):
    values = {bucket_value(i, GROUPS_FIO3) for i in range(GROUPS_FIO3 * PLAT_VAL)}
    output = parse_file(fio_fixture("fio-3.33-jsonplus-reader-writer.out"))
    bins = output.jobs[0].read.clat.bins_ns
    assert bins and set(bins) <= values
