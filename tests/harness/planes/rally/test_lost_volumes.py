"""What a stopped Cinder service lost of the volumes it held, found and removed
(planes/rally/lost_volumes.py):

- for real on the suite's OpenStack testbed: a Rally workload of
  CinderVolumes.create_and_extend_volume at two users, cinder-volume stopped at +6 s and
  started at +45 s, while client.cinder may only add an image to the pool's directory
  (its caps for the time before the stop: every create the service takes leaves what a
  create cut short by a stop leaves, an image in `rbd ls` with no header, made to happen
  rather than by chance). Each image of the volumes the stop caught that Cinder then
  forgot is found, removed and said (raw/faults.json, the step's warnings, the console,
  Rally's report), nothing noted is left, and an image of another owner in the same pool,
  named as Cinder names its own, is untouched;
- without a backend: a found image's line, from its record and back."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import uuid
from pathlib import Path

import yaml

from harness.core.store import CampaignStore
from harness.planes.rally.lost_volumes import (
    LEFT_FIELD,
    WARNING_CODE,
    CinderPools,
    Found,
    left_warnings,
)
from harness.planes.rally.runner import HTML_REPORT
from harness.records.phases import FAULTS_FILE
from harness.testbeds.ceph import CINDER_USER, POOL, CephTestbed
from harness.testbeds.openstack.testbed import OpenStackTestbed
from tests.harness.helpers import rally_report_workloads
from tests.harness.planes.rally.test_service_faults import SERVICE, _cinder_volume, _document

STOP_AT, START_AT = 6, 45
# what client.cinder may do while every create is to be cut short: read the pool and add
# an image to its directory, nothing more (librbd's next write, the image's id object, is
# refused: EPERM)
DIRECTORY_ONLY = (
    f"allow r pool={POOL}, allow class-read pool={POOL}, "
    f"allow class rbd dir_add_image pool={POOL} object_prefix rbd_directory"
)


def _caps(ceph: CephTestbed) -> dict[str, str]:
    [entity] = json.loads(ceph.run("ceph", "auth", "get", f"client.{CINDER_USER}", "-f", "json"))
    return dict(entity["caps"])


def _set_caps(ceph: CephTestbed, caps: dict[str, str]) -> None:
    pairs = [word for daemon, cap in sorted(caps.items()) for word in (daemon, cap)]
    ceph.run("ceph", "auth", "caps", f"client.{CINDER_USER}", *pairs)


def _images(ceph: CephTestbed) -> set[str]:
    return set(ceph.run("rbd", "ls", POOL).split())


def test_the_images_a_stopped_cinder_volume_lost_are_found_removed_and_said(
    openstack_testbed, tmp_path
):
    ceph = CephTestbed(OpenStackTestbed(openstack_testbed.state).ceph_state)
    other = f"volume-{uuid.uuid4()}"  # another owner's image, named as Cinder names its own
    ceph.run("rbd", "create", f"{POOL}/{other}", "--size", "4M")
    caps = _caps(ceph)
    faults = [
        {"action": "stop-service", "service": SERVICE, "at": STOP_AT},
        {"action": "start-service", "service": SERVICE, "at": START_AT},
    ]
    document = _document(openstack_testbed, "lost", faults)
    document["workloads"][0]["times"] = 12
    spec = tmp_path / "spec.yaml"
    spec.write_text(yaml.safe_dump(document))
    restored = threading.Event()

    def restore_once_stopped() -> None:
        """The caps back once the stop has taken cinder-volume (before its start)."""
        while not restored.wait(0.2):
            if _cinder_volume(openstack_testbed) is None:
                break
        _set_caps(ceph, caps)
        restored.set()

    _set_caps(ceph, {**caps, "osd": DIRECTORY_ONLY})
    watcher = threading.Thread(target=restore_once_stopped, daemon=True)
    try:
        watcher.start()
        run = subprocess.run(
            [sys.executable, "-m", "harness.cli", "run", str(spec), "--results", "results"],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=900,
        )
    finally:
        restored.set()
        watcher.join()
        _set_caps(ceph, caps)
    said = run.stdout + run.stderr
    campaign = tmp_path / "results" / "lost"
    [step] = json.loads((campaign / "summary.json").read_text())["steps"]
    raw = campaign / "steps" / step["step"] / "raw"
    left = json.loads((raw / FAULTS_FILE).read_text())[LEFT_FIELD]
    print(said[-3000:], json.dumps(left, indent=1))
    # every create before the stop was cut short: the images of the volumes the stop caught
    # that Cinder then forgot, each removed from the pool
    assert left, said[-3000:]
    assert all(entry["removed"] and entry["error"] is None for entry in left), left
    assert all(entry["image"] == f"{POOL}/volume-{entry['volume']}" for entry in left), left
    images = _images(ceph)
    assert not {f"volume-{entry['volume']}" for entry in left} & images
    # and said wherever the step's warnings go
    lines = [f"Cinder lost the create of volume {entry['volume']}" for entry in left]
    warned = [w["message"] for w in step["warnings"] if w["code"] == WARNING_CODE]
    assert len(warned) == len(left) and all(any(x in w for w in warned) for x in lines), warned
    assert all(w.endswith("was removed") for w in warned), warned
    console = " ".join(said.split())
    assert all(x in console for x in lines), console[-3000:]
    [shown] = rally_report_workloads(raw / HTML_REPORT)
    assert all(f"volperf warning: {x}" in shown["description"] for x in lines), shown
    # nothing noted left, another owner's image untouched, no image Cinder does not know
    assert CampaignStore(campaign).created() == {}
    assert other in images
    ceph.run("rbd", "rm", f"{POOL}/{other}")
    known = {
        f"volume-{v.id}"
        for v in openstack_testbed.connection().block_storage.volumes(all_projects=True)
    }
    assert {i for i in _images(ceph) if i.startswith("volume-")} <= known


def test_a_found_images_line_from_its_record_and_back():
    info = {"name": "s_rally_1", "status": "creating", "service": SERVICE}
    pools = CinderPools(Path("/etc/ceph/ceph.conf"), CINDER_USER, (POOL,))
    removed = Found("v1", info, POOL, removed=True)
    kept = Found(
        "v2",
        {**info, "status": "deleting"},
        POOL,
        error="EPERM",
        command=pools.remove_command(POOL, "volume-v2"),
    )
    record = {LEFT_FIELD: [removed.record(), kept.record()]}
    assert [w.message for w in left_warnings(json.loads(json.dumps(record)))] == [
        f"Cinder lost the create of volume v1 (s_rally_1) during the stop of {SERVICE}; its "
        f"RBD image {POOL}/volume-v1 was removed",
        f"Cinder lost the delete of volume v2 (s_rally_1) during the stop of {SERVICE}; its "
        f"RBD image {POOL}/volume-v2 is still there (EPERM): rbd --conf "
        f"/etc/ceph/ceph.conf --id {CINDER_USER} rm {POOL}/volume-v2",
    ]
    unchecked = left_warnings({LEFT_FIELD: [{"volume": None, "error": "HttpException: 503"}]})
    assert [w.code for w in unchecked] == [WARNING_CODE]
    assert "not checked (HttpException: 503): run `volperf cleanup`" in unchecked[0].message
