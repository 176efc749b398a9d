"""Storage or memory on the k8s testbed: a MariaDB pod with a tiny buffer pool and a
memory limit, its dataset sized at 4x that memory (dataset: 4x-memory): the data
measured in the pod is at least 4x the pool, the server's own cgroup counters saw the
device read while the clients ran (no "memory, not storage" warning), and those reads
are within what the host's /proc/diskstats counted for the disk over the whole campaign.
The fitting case (a small dataset in a large pool: the warning) is the k8s_scenarios'
small scale (tests/k8s_scenarios/test_scenarios.py)."""

from __future__ import annotations

import json
from pathlib import Path

from harness.campaign.run import run_campaign
from harness.core.spec import validate
from harness.host.hoststats import device_for_path, parse_diskstats
from harness.planes.k8s.target import KubernetesTarget

POOL = 8 * 2**20


def _host_reads(device) -> int:
    return parse_diskstats(Path("/proc/diskstats").read_text(), device).reads


def test_a_dataset_sized_past_the_pool_reads_the_device(k8s_testbed, tmp_path):
    spec = validate(
        {
            "name": "spills",
            "target": {
                "type": "k8s",
                "kubeconfig": str(k8s_testbed.kubeconfig),
                "storage_class": "local-path",
                "image_pull_policy": "Never",
                "db_memory_limit": "512Mi",
            },
            "databases": {"mariadb": {"options": {"innodb_buffer_pool_size": "8M"}}},
            "workloads": [
                {
                    "name": "oltp",
                    "tool": "sysbench-oltp",
                    "test": "read_only",
                    "tables": 2,
                    "dataset": "4x-memory",
                    "threads": [2],
                    "runtime": 5,
                }
            ],
            "sweep": [1],
        }
    )
    disk = device_for_path(k8s_testbed.state)  # where local-path keeps the volumes
    before = _host_reads(disk)
    outcome = run_campaign(spec, tmp_path, KubernetesTarget)
    host_reads = _host_reads(disk) - before
    [result] = outcome.results
    assert result.summary["state"] == "done", result.summary.get("error")
    raw = outcome.store.root / "steps" / result.summary["step"] / "raw"
    [dataset] = json.loads((raw / "dataset.json").read_text()).values()
    assert dataset["memory_bytes"] == POOL and "O_DIRECT" in dataset["memory"]
    assert dataset["data_bytes"] >= 4 * POOL  # du in the server's container
    use = result.summary["storage"]
    assert not use["memory_not_storage"]
    assert "memory-not-storage" not in {w["code"] for w in result.summary["warnings"]}
    qps = result.summary["db"]["qps_total"]
    assert use["device_read_iops"] > 0.01 * qps
    [run] = json.loads((raw / "process.json").read_text()).values()
    # the server's own reads over the run: part of what the disk read over the campaign
    assert 0 < use["device_read_iops"] * (run["end_s"] - run["start_s"]) <= host_reads
