"""The OpenStack testbed the Rally and Heat scale benchmarks share: a Ceph testbed and an
OpenStack one on it, state in pytest's temporary directory, brought up once per session
and purged at the end (kept, logs and all, when the OpenStack bring-up failed)."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks.scale.measure import volperf

CEPH_MON_PORT = "20700"  # off the defaults and the suite's, like the k8s benchmark's 23600
OPENSTACK_BASE_PORT = "24300"


@pytest.fixture(scope="session")
def openstack_cloud(tmp_path_factory: pytest.TempPathFactory):
    """The testbed's clouds.yaml (its cloud: harness.testbeds.openstack.testbed.CLOUD)."""
    work = tmp_path_factory.mktemp("scale-openstack")
    ceph, openstack = work / "ceph", work / "openstack"
    volperf("testbed", "up", "ceph", "--state", str(ceph), "--mon-port", CEPH_MON_PORT)
    purge = []
    try:
        volperf(
            "testbed",
            "up",
            "openstack",
            "--state",
            str(openstack),
            "--ceph-state",
            str(ceph),
            "--base-port",
            OPENSTACK_BASE_PORT,
            timeout=3600,
        )
        purge = ["--purge"]
        yield Path(openstack / "clouds.yaml")
    finally:
        volperf("testbed", "down", "openstack", "--state", str(openstack), *purge)
        volperf("testbed", "down", "ceph", "--state", str(ceph), *purge)
