"""`volperf run heat` in real VMs: on an OpenStack testbed made with `--guests real`, Nova's
libvirt driver boots the guest image, Cinder's RBD volumes are attached by QEMU through
librbd, and heat_templates/cinder-fio's agent runs as the guest's own user_data, finds its
volume by its id as a block device of the guest's kernel and signals Heat over the guest's
own network. One step of 2 VMs, a reader and a writer."""

from __future__ import annotations

import csv
import json
import platform
import subprocess
import sys
import threading
from pathlib import Path

import pytest
import yaml

from harness.testbeds.openstack import libvirt_daemons, real_guests
from tests.harness.helpers import fio_json
from tests.harness.planes.heat.specs import heat_spec

NAME = "real-guests"


class QemuWatch:
    """The most QEMU processes of the testbed's guests seen at once while a run goes on."""

    def __init__(self, state: Path) -> None:
        self.state, self.most = state, 0
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._watch, daemon=True)

    def _watch(self) -> None:
        while not self.stop.wait(0.5):
            self.most = max(self.most, len(libvirt_daemons.guest_processes(self.state)))


@pytest.fixture(scope="module")
def campaign(tmp_path_factory, real_guests_testbed):
    work = tmp_path_factory.mktemp("real-guests-heat")
    spec = heat_spec(
        NAME,
        real_guests_testbed.clouds_yaml,
        [2],
        runtime=5,
        image=real_guests.IMAGE,
        flavor=real_guests.FLAVOR,
        network=real_guests.NETWORK,
        device_mode="device",
    )
    (work / "spec.yaml").write_text(yaml.safe_dump(spec))
    watch = QemuWatch(real_guests_testbed.state)
    watch.thread.start()
    try:
        run = subprocess.run(
            [sys.executable, "-m", "harness.cli", "run", "heat", "spec.yaml"]
            + ["--results", "results"],
            cwd=work,
            capture_output=True,
            text=True,
            timeout=1500,
        )
    finally:
        watch.stop.set()
        watch.thread.join()
    return work / "results" / NAME, run, watch.most


def test_the_testbed_says_its_guests_are_real(real_guests_testbed):
    assert "--guests real" not in real_guests_testbed.up_output  # said in words
    assert "Nova's libvirt driver boots real guests" in real_guests_testbed.up_output
    status = subprocess.run(
        [sys.executable, "-m", "harness.cli", "testbed", "status", "openstack", "--json"]
        + ["--state", str(real_guests_testbed.state)],
        capture_output=True,
        text=True,
        check=True,
    )
    report = json.loads(status.stdout)
    assert report["guests"] == "real"
    assert "Nova's libvirt driver boots real guests" in report["guests_words"]


def test_each_guests_own_fio_result_comes_back_through_heat_into_fio_csv(
    campaign, real_guests_testbed
):
    folder, run, most_qemu = campaign
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    assert most_qemu >= 2, "the VMs were not QEMU processes of the testbed's libvirtd"
    with (folder / "fio.csv").open() as handle:
        rows = list(csv.DictReader(handle))
    assert [(r["consumer"], r["rw"]) for r in rows] == [("c01", "randread"), ("c02", "randwrite")]
    summary = json.loads((folder / "summary.json").read_text())
    for row in rows:
        assert not row["error"]
        raw = folder / "steps" / row["step"] / "raw" / "heat" / f"volperf-{NAME}-001-{row['rw']}"
        job = fio_json(raw / f"fio-{row['consumer']}.json")["jobs"][0]
        direction = "read" if row["rw"] == "randread" else "write"
        assert float(row[f"{direction}_iops"]) == pytest.approx(job[direction]["iops"], rel=1e-6)
        assert job[direction]["io_bytes"] > 0
        # fio on a block device of the guest's kernel, not the stand-in's rbd engine
        assert job["job options"]["ioengine"] == "libaio"
        assert job["job options"]["filename"].startswith("/dev/vd")
        agent = (raw / f"logs-{row['consumer']}" / "agent.log").read_text()
        fields = dict(f.split("=", 1) for f in agent.split())
        assert fields["kernel"].endswith("-cloud-amd64")  # the guest image's Debian kernel
        assert fields["kernel"] != platform.release()
    (step,) = summary["steps"]
    guests = step["heat"]["guests"]
    assert set(guests) == {"c01", "c02"}
    if any(g["hypervisor"] == "none" for g in guests.values()):  # TCG: said everywhere
        assert "emulated-cpu" in {w["code"] for w in step["warnings"]}
        assert "their CPU is emulated" in run.stdout + run.stderr


def test_nothing_of_the_guests_is_left_once_the_stacks_are_gone(campaign, real_guests_testbed):
    conn = real_guests_testbed.connection()
    assert list(conn.orchestration.stacks()) == []
    assert list(conn.compute.servers(all_projects=True)) == []
    assert libvirt_daemons.guest_processes(real_guests_testbed.state) == []
