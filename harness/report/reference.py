"""Reference campaigns: published figures with their source, in the shape of our steps.

figures.yaml rows: [consumers, read_iops_avg, write_iops_avg, read_p95_mean_ms,
write_p95_mean_ms, read_iops_sum, write_iops_sum]. A latency at the ceiling of the fio
version that produced it is a bound and is turned into one, as for measured campaigns.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from harness.records import stats
from harness.tools.fio.histogram import top_bucket_ns
from harness.tools.fio.parse import major_version


def _direction(
    consumers: int, iops_avg: float, iops_sum: float, p95: float, ceiling_ms: float
) -> dict[str, Any]:
    ceilings = {}
    if stats.at_ceiling(p95, ceiling_ms):
        ceilings["p95_consumer_mean"] = (
            f"at fio's top histogram bucket ({ceiling_ms:g} ms): at least that, not measured"
        )
    return {
        "consumers": consumers,
        "iops_avg": iops_avg,
        "iops_sum": iops_sum,
        "bandwidth_avg": iops_avg * 4,
        "bandwidth_sum": iops_sum * 4,  # 4k blocks, KiB/s
        "clat_mean_avg": None,
        "clat_max": None,
        "p95_merged": None,
        "p99_merged": None,
        "p95_consumer_mean": None if ceilings else p95,
        "p99_consumer_mean": None,
        "ceilings": ceilings,
    }


def reference_steps(root: Path, reference: dict[str, Any], spec: dict[str, Any]) -> list[dict]:
    rows = yaml.safe_load((root / "figures.yaml").read_text(encoding="utf-8"))
    ceiling_ms = top_bucket_ns(major_version(reference.get("fio_version", "fio-3"))) / 1e6
    workload = spec["workloads"][0]
    steps = []
    for index, (n, r_avg, w_avg, r_p95, w_p95, r_sum, w_sum) in enumerate(rows, start=1):
        read = _direction(n // 2, r_avg, r_sum, r_p95, ceiling_ms)
        write = _direction(n - n // 2, w_avg, w_sum, w_p95, ceiling_ms)
        warnings = [
            {"code": "ceiling", "message": f"{d} p95_consumer_mean: {why}"}
            for d, data in (("read", read), ("write", write))
            for why in data["ceilings"].values()
        ]
        steps.append(
            {
                "step": f"{index:03d}-{workload['name']}-c{n:03d}-r1",
                "workload": workload["name"],
                "concurrency": n,
                "repeat": 1,
                "state": "done",
                "runtime_s": workload["runtime"],
                "readers": n // 2,
                "writers": n - n // 2,
                "read": read,
                "write": write,
                "warnings": warnings,
            }
        )
    return steps
