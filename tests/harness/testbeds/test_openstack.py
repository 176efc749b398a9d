"""The OpenStack testbed brought up for real by the session fixture (tests/conftest.py):
every service answers, Cinder's volumes are RBD images on the Ceph testbed, `up` again
starts nothing new, and the client files carry the credentials only in 0600 files."""

from __future__ import annotations

import json
import os
import stat
import time
from pathlib import Path

from harness.planes.ceph import images
from harness.testbeds.openstack.testbed import CLOUD
from tests.harness.helpers import volperf


def _status(openstack_testbed) -> dict:
    done = volperf(
        "testbed",
        "status",
        "openstack",
        "--state",
        str(openstack_testbed.state),
        "--json",
        cwd=openstack_testbed.state.parent,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return json.loads(done.stdout)


def test_up_from_nothing_is_ready_and_says_how_to_use_it(openstack_testbed):
    report = _status(openstack_testbed)
    assert report["ready"] and report["services_down"] == []
    assert {d["name"] for d in report["daemons"] if d["pid"]} >= {
        "mariadb",
        "rabbitmq",
        "keystone",
        "nova-api",
        "cinder-volume",
        "cinder-backup",
        "heat-engine",
        "nova-compute",
        "neutron-api",
        "glance-api",
        "placement-api",
        "guest-runner",
    }
    assert "fake virt driver" in openstack_testbed.up_output
    assert "TEST STAND-IN" in openstack_testbed.up_output  # the guest runner says what it is
    log = (openstack_testbed.state / "log" / "guest-runner.out").read_text()
    assert "TEST STAND-IN" in log
    assert f"--os-cloud {CLOUD}" in openstack_testbed.up_output
    for path in (openstack_testbed.clouds_yaml, openstack_testbed.state / "openrc"):
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
    password = json.loads((openstack_testbed.state / "testbed.json").read_text())["passwords"]
    assert password["admin"] not in openstack_testbed.up_output


def test_up_again_starts_nothing_new(openstack_testbed):
    before = {d["name"]: d["pid"] for d in _status(openstack_testbed)["daemons"]}
    started = time.monotonic()
    again = volperf(
        "testbed",
        "up",
        "openstack",
        "--state",
        str(openstack_testbed.state),
        cwd=openstack_testbed.state.parent,
        timeout=600,
    )
    assert again.returncode == 0, again.stderr[-2000:]
    assert "starting" not in again.stderr + again.stdout
    assert {d["name"]: d["pid"] for d in _status(openstack_testbed)["daemons"]} == before
    assert time.monotonic() - started < 120


def test_a_cinder_volume_is_an_rbd_image_of_the_ceph_testbed(openstack_testbed, ceph_testbed):
    conn = openstack_testbed.connection()
    volume = conn.block_storage.create_volume(size=1, name="volperf-test-rbd")
    try:
        volume = conn.block_storage.wait_for_status(
            volume, "available", failures=["error"], wait=120
        )
        with ceph_testbed.access().pool_io() as ioctx:
            assert f"volume-{volume.id}" in images.existing(ioctx)
    finally:
        conn.block_storage.delete_volume(volume)
        conn.block_storage.wait_for_delete(volume, wait=120)
    with ceph_testbed.access().pool_io() as ioctx:
        assert f"volume-{volume.id}" not in images.existing(ioctx)


def test_no_quota_of_a_project_refuses_the_reference_scale(openstack_testbed):
    """40 VMs (40 volumes and servers) in a project, or 120 Rally users: the APIs' own
    answer for the admin project is "no limit" (Cinder's default was 10 volumes)."""
    conn = openstack_testbed.connection()
    project = conn.current_project_id
    volume = conn.get_volume_quotas(project)
    compute = conn.get_compute_quotas(project)
    assert (volume.volumes, volume.gigabytes, volume.snapshots) == (-1, -1, -1)
    assert (compute.instances, compute.cores, compute.ram) == (-1, -1, -1)


def test_cinder_has_two_rbd_backends_their_types_and_a_multiattach_type(openstack_testbed):
    storage = openstack_testbed.connection().block_storage
    pools = {pool.name for pool in storage.backend_pools()}
    assert pools == {"volperf-volume@ceph#ceph", "volperf-volume@ceph2#ceph2"}
    specs = {t.name: t.extra_specs for t in storage.types()}
    assert specs["ceph"] == specs["__DEFAULT__"] == {"volume_backend_name": "ceph"}
    assert specs["ceph2"] == {"volume_backend_name": "ceph2"}
    assert specs["multiattach"] == {"volume_backend_name": "ceph", "multiattach": "<is> True"}


def test_cinder_reads_its_keyring_from_an_etc_ceph_of_its_own(openstack_testbed):
    """os-brick reads the keyring from /etc/ceph: cinder-volume and cinder-backup see the
    testbed's etc/ceph there, in their own mount namespace; the host's is another dir."""
    own = openstack_testbed.state / "etc" / "ceph"
    assert (own / "ceph.client.cinder.keyring").resolve().exists()
    host = os.stat("/etc/ceph")
    assert (host.st_dev, host.st_ino) != (own.stat().st_dev, own.stat().st_ino)
    for name in ("cinder-volume", "cinder-backup"):
        pid = int((openstack_testbed.state / "run" / f"{name}.pid").read_text())
        seen = Path(f"/proc/{pid}/root/etc/ceph")
        assert (seen.stat().st_dev, seen.stat().st_ino) == (own.stat().st_dev, own.stat().st_ino)
        assert os.readlink(f"/proc/{pid}/ns/mnt") != os.readlink("/proc/self/ns/mnt"), name
