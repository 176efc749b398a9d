"""The guest runner stops an agent as libvirt stops a guest: SIGTERM, and SIGKILL only
after a grace. Real fio on an RBD image of the session's Ceph testbed lets go of the image
at once (no watcher left, the image deletable, fio's report written), where fio killed
outright would leave its watch to hold the image for 30 s; an agent that ignores SIGTERM
is killed when the grace is over."""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

from harness.testbeds.openstack.guest_runner import Agent, GuestRunner, group_alive
from tests.harness.helpers import fio_json, rbd

IMAGE = "volperf-guest-runner-test"


def _watchers(conf: Path) -> list[dict]:
    return json.loads(rbd(conf, "status", f"volumes/{IMAGE}", "--format", "json"))["watchers"]


def _agent(folder: Path, script: str, env: dict[str, str] | None = None) -> Agent:
    folder.mkdir()
    process = subprocess.Popen(
        ["/bin/sh", "-c", script],
        cwd=folder,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=(folder / "agent.log").open("wb"),
        start_new_session=True,
    )
    return Agent("server-id", "vm-0", process, folder)


def test_a_stopped_agents_fio_lets_go_of_its_rbd_image_at_once(ceph_testbed, tmp_path):
    conf = ceph_testbed.conf
    rbd(conf, "create", f"volumes/{IMAGE}", "--size", "64M")
    fio = (
        f"fio --name=vm --ioengine=rbd --clientname=admin --pool=volumes --rbdname={IMAGE} "
        "--rw=randwrite --bs=4k --iodepth=4 --runtime=120 --time_based "
        "--output-format=json --output=fio.json"
    )
    agent = _agent(tmp_path / "agent", fio, {**os.environ, "CEPH_CONF": str(conf)})
    try:
        deadline = time.monotonic() + 60
        while not _watchers(conf):  # fio has the image open
            assert agent.process.poll() is None, (tmp_path / "agent" / "agent.log").read_text()
            assert time.monotonic() < deadline, "fio never opened the image"
            time.sleep(0.2)
        GuestRunner.stop_agent(agent)
        assert _watchers(conf) == []
        assert agent.process.returncode != 0  # the shell died of SIGTERM
        report = fio_json(tmp_path / "agent" / "fio.json")  # after "terminating on signal"
        assert [job["jobname"] for job in report["jobs"]] == ["vm"]  # fio ended and reported
    finally:
        GuestRunner.stop_agent(agent, grace_s=0)
        rbd(conf, "rm", f"volumes/{IMAGE}")


def test_an_agent_that_ignores_sigterm_is_killed_after_the_grace(tmp_path):
    agent = _agent(tmp_path / "agent", "trap '' TERM; sleep 60; sleep 60")
    time.sleep(0.2)  # the trap is set
    started = time.monotonic()
    GuestRunner.stop_agent(agent, grace_s=1.0)
    assert 1.0 <= time.monotonic() - started < 10
    assert agent.process.returncode == -9
    deadline = time.monotonic() + 5  # its sleep, killed too, reaped by init
    while group_alive(agent.process.pid, agent.process):
        assert time.monotonic() < deadline, "a process of the agent's group outlived SIGKILL"
        time.sleep(0.05)
