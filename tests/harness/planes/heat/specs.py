"""The spec of a `volperf run heat` campaign on the OpenStack testbed, as the Heat tests
and the suite's campaigns at once (tests/harness/planes/openstack_campaigns.py) write it,
and a volume type with QoS limits for them."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
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


@contextmanager
def limited_type(conn, name: str, specs: dict[str, str]) -> Iterator[None]:
    """A volume type on the testbed's first backend with front-end QoS specs, as an
    operator makes one (openstack volume qos create/associate), removed afterwards."""
    volume_type = conn.block_storage.create_type(
        name=name, extra_specs={"volume_backend_name": "ceph"}
    )
    specs_made = conn.block_storage.create_qos_spec(name=name, consumer="front-end", **specs)
    try:
        conn.block_storage.associate_qos_spec(specs_made, volume_type.id)
        yield
    finally:
        conn.block_storage.disassociate_qos_spec(specs_made, volume_type.id)
        conn.block_storage.delete_qos_spec(specs_made)
        conn.block_storage.delete_type(volume_type)
