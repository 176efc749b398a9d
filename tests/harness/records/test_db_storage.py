from __future__ import annotations

from pathlib import Path

from harness.records.db_storage import READ_SHARE, reads_negligible, storage_use
from harness.records.device_check import DeviceWindow, cgroup_window, device_window

BLKIO = Path(__file__).parents[1] / "tools" / "fixtures" / "blkio"  # real pod output

MIB = 2**20
POOL = {"memory_bytes": 128 * MIB, "memory": "innodb_buffer_pool_size 128 MiB"}


def window(reads_per_s: float) -> DeviceWindow:
    return DeviceWindow("vda", 10.0, reads_per_s, 5.0, reads_per_s * 16 / 1024, 0.1)


def test_reads_negligible():
    assert reads_negligible(0.0, 2000.0)
    assert reads_negligible(READ_SHARE * 2000 - 0.1, 2000.0)
    assert not reads_negligible(READ_SHARE * 2000, 2000.0)
    assert not reads_negligible(None, 2000.0) and not reads_negligible(0.0, None)
    assert not reads_negligible(0.0, 0.0)  # nothing served: nothing to judge


def test_data_that_fits_in_memory_is_memory_not_storage():
    datasets = {"c01": {"data_bytes": 18 * MIB, **POOL}, "c02": {"data_bytes": 20 * MIB, **POOL}}
    use = storage_use(datasets, window(300.0), 2000.0, "queries")
    assert use.memory_not_storage and use.data_bytes == 20 * MIB  # the largest consumer
    assert use.why == (
        "each consumer's data (20 MiB) fits in the memory its database may keep it in "
        "(128 MiB: innodb_buffer_pool_size 128 MiB)"
    )
    assert use.device == "vda" and use.device_read_iops == 300.0


def test_negligible_reads_are_memory_not_storage_even_with_a_large_dataset():
    use = storage_use({"c01": {"data_bytes": 512 * MIB, **POOL}}, window(2.0), 2000.0, "queries")
    assert use.memory_not_storage
    assert (
        use.why == "the device vda read 2.0 times/s while the clients were served 2,000 queries/s"
    )


def test_data_beyond_memory_read_from_the_device_is_storage():
    use = storage_use({"c01": {"data_bytes": 512 * MIB, **POOL}}, window(300.0), 2000.0, "queries")
    assert not use.memory_not_storage and use.why == ""
    assert use.device_read_mib_s == 300.0 * 16 / 1024 / 1024


def test_without_samples_only_the_sizes_judge():
    use = storage_use({"c01": {"data_bytes": 512 * MIB, **POOL}}, None, 2000.0, "queries")
    assert not use.memory_not_storage and use.device_read_iops is None and use.device == ""
    # a write-only workload serves no reads: the device's reads are not judged
    use = storage_use({"c01": {"data_bytes": 512 * MIB, **POOL}}, window(0.0), None, "")
    assert not use.memory_not_storage


def sample(t: float, reads: int, sectors: int) -> dict:
    disk = {"device": "vda", "reads": reads, "read_sectors": sectors, "writes": 0}
    return {"t": t, "disk": disk | {"write_sectors": 0}}


def test_device_window_interpolates_at_both_ends():
    samples = [sample(0.0, 0, 0), sample(1.0, 100, 800), sample(3.0, 500, 4000)]
    found = device_window(samples, (0.5, 2.0))
    assert found is not None and found.device == "vda" and found.seconds == 1.5
    # 50 reads at 0.5 s, 300 at 2.0 s: 250 reads in 1.5 s
    assert found.read_iops == 250 / 1.5
    assert found.read_kib_s == (2400 - 400) * 512 / 1024 / 1.5
    assert device_window(samples[:1], (0.5, 2.0)) is None
    assert device_window(samples, (2.0, 2.0)) is None


def _reading(name: str) -> str:
    return (BLKIO / name).read_text()


def test_cgroup_window_sums_the_pods_counters_over_the_run():
    pair = {"before": _reading("v1-before.txt"), "after": _reading("v1-after.txt")}
    found, why = cgroup_window({"c01": pair, "c02": pair}, (100.0, 110.0))
    assert why == "" and found is not None
    assert found.device == "vda (the database containers' cgroup v1 blkio.throttle counters)"
    assert (found.read_iops, found.write_iops) == (2 * 322 / 10, 2 * 40 / 10)
    assert found.read_kib_s == 2 * 21037056 / 1024 / 10


def test_cgroup_window_unknown_when_the_kernel_did_not_count_or_a_reading_is_missing():
    inactive = {"before": _reading("v1-before.txt"), "after": _reading("v1-inactive.txt")}
    found, why = cgroup_window({"c01": inactive}, (0.0, 10.0))
    assert found is None and "the kernel is not counting" in why
    found, why = cgroup_window({"c01": {"after": _reading("v1-after.txt")}}, (0.0, 10.0))
    assert found is None and why == "c01: its container's counters were not read twice"
    broken = {"before": "", "after": _reading("v1-after.txt")}
    found, why = cgroup_window({"c02": broken}, (0.0, 10.0))
    assert found is None and why.startswith("c02: the disk under the data directory")
