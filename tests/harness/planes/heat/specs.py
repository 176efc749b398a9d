"""The spec of a `volperf run heat` campaign on the OpenStack testbed, as the Heat tests
and the suite's campaigns at once (tests/harness/planes/openstack_campaigns.py) write it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

WORKLOAD = {
    "name": "randrw-4k",
    "rw": ["randread", "randwrite"],
    "bs": "4k",
    "iodepth": 16,
    "size": "64M",
    "runtime": 5,
    "prefill": True,
}


def heat_spec(
    name: str, clouds_yaml: Path, sweep: list[int], runtime: int = 5, **heat: Any
) -> dict[str, Any]:
    return {
        "name": name,
        "target": {
            "type": "openstack",
            "cloud": "volperf-testbed",
            "clouds_yaml": str(clouds_yaml),
            "heat": {"image": "tiny", "flavor": "tiny", "device_mode": "rbd", **heat},
        },
        "workloads": [{**WORKLOAD, "runtime": runtime}],
        "sweep": sweep,
    }
