"""The Cinder lifecycle workloads of control-plane.yaml (its `lifecycle` preset: the
rally-openstack scenarios and volperf's multiattach and retype) run by `volperf run rally`
on the OpenStack testbed at concurrency 2, while a watcher reads the cloud through the
admin API and lists the testbed's RBD pools: every workload succeeds, rally.csv equals
Rally's statistics, a multiattach volume is seen on 2 servers at once, a retyped volume is
seen moving from type ceph in pool volumes to type ceph2 in pool volumes2, and nothing is
left behind."""

from __future__ import annotations

import json
import subprocess
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import yaml

from harness.planes.rally.records import load_export, workloads
from harness.planes.rally.target import TASKS_DIR
from harness.testbeds.ceph import POOL, POOLS, SECOND_POOL
from harness.testbeds.openstack.catalog import IMAGE_NAME
from tests.harness.helpers import volperf
from tests.harness.planes.rally.expected import check_rally_csv

PRESET = yaml.safe_load((TASKS_DIR / "presets" / "lifecycle.yaml").read_text())
POLL_S = 0.2


def _rbd(conf: Path, *argv: str) -> str:
    done = subprocess.run(
        ["rbd", "-c", str(conf), *argv], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def _listed(conf: Path, pool: str) -> list[str]:
    return json.loads(_rbd(conf, "ls", pool, "--format", "json"))


@dataclass
class CloudWatch:
    """What the admin API and the RBD pools showed of each volume while the task ran."""

    conn: Any
    ceph_conf: Path
    most_attached: int = 0  # the most servers one volume was attached to at once
    seen: dict[str, set[tuple[str, str, str]]] = field(default_factory=dict)  # type, host, pool
    stop: threading.Event = field(default_factory=threading.Event)

    def _images(self) -> dict[str, str]:
        pools = (POOL, SECOND_POOL)
        return {image: pool for pool in pools for image in _listed(self.ceph_conf, pool)}

    def watch(self) -> None:
        while not self.stop.wait(POLL_S):
            images = self._images()
            for volume in self.conn.block_storage.volumes(all_projects=True, details=True):
                servers = {a["server_id"] for a in volume.attachments or []}
                self.most_attached = max(self.most_attached, len(servers))
                pool = images.get(f"volume-{volume.id}", "")
                self.seen.setdefault(volume.id, set()).add(
                    (volume.volume_type or "", volume.host or "", pool)
                )


@pytest.fixture(scope="module")
def lifecycle(tmp_path_factory, openstack_testbed, ceph_testbed):
    work = tmp_path_factory.mktemp("lifecycle")
    spec = {
        "name": "lifecycle",
        "target": {
            "type": "openstack",
            "cloud": "volperf-testbed",
            "clouds_yaml": str(openstack_testbed.clouds_yaml),
        },
        "workloads": [
            {
                "name": "lifecycle",
                "tool": "rally",
                "task": "control-plane",
                "times_per_user": 1,
                "args": {"scenarios": PRESET["scenarios"]},
            }
        ],
        "sweep": [2],
    }
    (work / "spec.yaml").write_text(yaml.safe_dump(spec))
    watch = CloudWatch(openstack_testbed.connection(), ceph_testbed.conf)
    watcher = threading.Thread(target=watch.watch, daemon=True)
    watcher.start()
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("VOLPERF_STATE", str(work / "state"))
        run = volperf("run", "rally", "spec.yaml", "--results", "results", cwd=work, timeout=1800)
    watch.stop.set()
    watcher.join()
    return work / "results" / "lifecycle", run, watch


def test_every_lifecycle_workload_succeeds_and_rally_csv_equals_rallys_statistics(lifecycle):
    campaign, run, _ = lifecycle
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    [step] = sorted((campaign / "steps").iterdir())
    document = load_export(step / "raw" / "rally.json")
    done = {next(iter(w["scenario"])): w for _, w in workloads(document)}
    assert len(done) == len(PRESET["scenarios"]) == 12
    assert {"VolPerf.multiattach_volume", "VolPerf.retype_volume"} <= set(done)
    for scenario, workload in done.items():
        runner = next(iter(workload["runner"].values()))
        assert (runner["times"], runner["concurrency"]) == (2, 2), scenario
        assert workload["pass_sla"], scenario
        assert [i["error"] for i in workload["data"]] == [[], []], scenario
    assert check_rally_csv(campaign) > 12 * 2


def test_multiattach_puts_one_volume_on_two_servers_at_once(lifecycle):
    campaign, _, watch = lifecycle
    assert watch.most_attached == 2
    [step] = sorted((campaign / "steps").iterdir())
    [workload] = [
        w
        for _, w in workloads(load_export(step / "raw" / "rally.json"))
        if "VolPerf.multiattach_volume" in w["scenario"]
    ]
    for iteration in workload["data"]:
        names = [a["name"] for a in iteration["atomic_actions"]]
        assert names.count("nova.attach_volume") == names.count("nova.detach_volume") == 2


def test_retype_moves_the_volume_to_the_other_type_and_pool(lifecycle):
    _, _, watch = lifecycle
    moved = [
        states
        for states in watch.seen.values()
        if ("ceph", "volperf-volume@ceph#ceph", POOL) in states
        and ("ceph2", "volperf-volume@ceph2#ceph2", SECOND_POOL) in states
    ]
    assert len(moved) >= 1, watch.seen


def test_nothing_is_left_in_the_cloud_but_cinders_own_clone_parents(
    lifecycle, openstack_testbed, ceph_testbed
):
    """Cinder 29's RBD driver keeps a deleted volume that has a clone as
    volume-ID.deleted, and removes it with the clone only when the clone's delete takes
    the slow path: a fast delete of the clone returns before it cleans the parent (seen
    in cinder/volume/drivers/rbd.py `_delete_volume`). So each clone iteration leaves
    its parent, with the clone's protected snapshot and no child. This checks that those
    are all that is left, then removes them from this session's Ceph testbed."""
    conf = ceph_testbed.conf
    left = {pool: _listed(conf, pool) for pool in POOLS}
    parents = left.pop(POOL)
    assert all(images == [] for images in left.values()), left
    assert len(parents) == 2 and all(p.endswith(".deleted") for p in parents), parents
    for parent in parents:
        [snap] = json.loads(_rbd(conf, "snap", "ls", f"{POOL}/{parent}", "--format", "json"))
        assert snap["name"].endswith(".clone_snap")
        image = f"{POOL}/{parent}@{snap['name']}"
        assert json.loads(_rbd(conf, "children", image, "--format", "json")) == []
        _rbd(conf, "snap", "unprotect", image)
        _rbd(conf, "snap", "rm", image)
        _rbd(conf, "rm", f"{POOL}/{parent}")
    conn = openstack_testbed.connection()
    storage = conn.block_storage
    assert list(conn.compute.servers(all_projects=True)) == []
    assert list(storage.volumes(all_projects=True)) == []
    assert list(storage.snapshots(all_projects=True)) == []
    assert list(storage.backups(all_projects=True)) == []
    assert [image.name for image in conn.image.images()] == [IMAGE_NAME]
    assert not [p.name for p in conn.identity.projects() if "rally" in p.name]
