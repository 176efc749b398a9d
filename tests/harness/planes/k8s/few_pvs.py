"""A StorageClass with too few PVs: local PVs on folders of this host (the testbed's own
local-static PVs, reclaim policy Retain: a PV a step used stays Released), so a sweep of
steps runs out of volumes at a count the test chooses. Removed, PVs and all, after."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from pathlib import Path

from harness.testbeds.k8s import configs

FEW_CLASS = "volperf-test-few"


@contextlib.contextmanager
def few_pvs_class(kubeconfig: str, work: Path, pvs: int) -> Iterator[str]:
    from kubernetes import client, config

    api = config.new_client_from_config(config_file=kubeconfig)
    core, storage = client.CoreV1Api(api), client.StorageV1Api(api)
    node = core.list_node().items[0].metadata.name
    storage.create_storage_class(
        {
            "metadata": {"name": FEW_CLASS},
            "provisioner": "kubernetes.io/no-provisioner",
            "volumeBindingMode": "WaitForFirstConsumer",
            "reclaimPolicy": "Retain",
        }
    )
    names = [f"{FEW_CLASS}-{i}" for i in range(1, pvs + 1)]
    try:
        for name in names:
            folder = work / name
            folder.mkdir(parents=True)
            pv = configs.local_pv(name, folder, FEW_CLASS, "1Gi", node=node)
            core.create_persistent_volume(pv)
        deadline = time.monotonic() + 60
        while any(core.read_persistent_volume(n).status.phase != "Available" for n in names):
            assert time.monotonic() < deadline, "the test's PVs never became Available"
            time.sleep(0.5)
        yield FEW_CLASS
    finally:
        for name in names:
            with contextlib.suppress(client.exceptions.ApiException):  # never made: 404
                core.delete_persistent_volume(name)
        storage.delete_storage_class(FEW_CLASS)
