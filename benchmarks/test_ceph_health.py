"""What health sampling costs on a real Ceph (the testbed, brought up here): one sample on
an open librados connection against one `ceph -s -f json` process, and fio's IOPS on RBD
images with the sampler running every second against without it, side by side."""

from __future__ import annotations

import json
import resource
import statistics
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from harness.planes.ceph.access import CephAccess, mon_command
from harness.planes.ceph.health_sampler import CephHealthSampler
from harness.testbeds.ceph import CephTestbed, Ports

ROUNDS = 6
RUNTIME_S = 5


@pytest.fixture(scope="module")
def testbed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[CephTestbed]:
    bed = CephTestbed(tmp_path_factory.mktemp("ceph") / "state", ports=Ports.from_mon_port(20900))
    bed.up(say=lambda line: None)
    yield bed
    bed.down(purge=True, say=lambda line: None)


def test_sample_cost_librados_against_ceph_cli(benchmark, testbed: CephTestbed):
    access = CephAccess(testbed.conf, "admin", "volumes")
    with access.cluster() as cluster:
        benchmark(mon_command, cluster, "status")
        cpu = time.process_time()
        for _ in range(50):
            mon_command(cluster, "status")
        librados_ms = (time.process_time() - cpu) / 50 * 1000
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    for _ in range(5):
        subprocess.run(
            ["ceph", "-c", str(testbed.conf), "-s", "-f", "json"], check=True, capture_output=True
        )
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cli_ms = (after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime) / 5 * 1000
    benchmark.extra_info.update(
        librados_cpu_ms=librados_ms, ceph_cli_cpu_ms=cli_ms, cli_over_librados=cli_ms / librados_ms
    )
    print(
        f"\nCPU per health sample: librados {librados_ms:.2f} ms, `ceph -s` {cli_ms:.0f} ms "
        f"({cli_ms / librados_ms:.0f}x)"
    )


def _fio_iops(testbed: CephTestbed, job: Path) -> float:
    out = subprocess.run(
        ["fio", "--output-format=json", str(job)],
        check=True,
        capture_output=True,
        text=True,
        env={"CEPH_CONF": str(testbed.conf)},
        timeout=RUNTIME_S + 120,
    )
    return sum(j["write"]["iops"] for j in json.loads(out.stdout)["jobs"])


def test_fio_on_rbd_with_and_without_sampling(benchmark, testbed: CephTestbed, tmp_path):
    subprocess.run(
        ["rbd", "-c", str(testbed.conf), "create", "--size", "256M", "volumes/bench"], check=True
    )
    job = tmp_path / "job.fio"
    job.write_text(
        f"[w]\nioengine=rbd\nclientname=admin\npool=volumes\nrbdname=bench\n"
        f"rw=randwrite\nbs=4k\niodepth=32\nsize=256M\nruntime={RUNTIME_S}\n"
        "time_based=1\n"
    )
    access = CephAccess(testbed.conf, "admin", "volumes")
    plain, sampled = [], []

    def pair() -> None:  # one round: without, then with the sampler
        plain.append(_fio_iops(testbed, job))
        with CephHealthSampler(tmp_path / f"h{len(sampled)}.jsonl", access, interval_s=1):
            sampled.append(_fio_iops(testbed, job))

    benchmark.pedantic(pair, rounds=ROUNDS, iterations=1)
    ratio = statistics.median(sampled) / statistics.median(plain)
    benchmark.extra_info.update(plain_iops=plain, sampled_iops=sampled, ratio=ratio)
    print(
        f"\nfio randwrite on RBD: {statistics.median(plain):.0f} IOPS without sampling, "
        f"{statistics.median(sampled):.0f} with a sample every second (ratio {ratio:.3f})"
    )
