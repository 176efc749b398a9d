"""The Ceph testbed brought up for real: the suite's own (1 OSD, shared by the Ceph
tests) and a 3-OSD one taken through its whole life here."""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
from pathlib import Path

from harness.testbeds.ceph import PG_COUNT, POOLS
from tests.conftest import CephTestbedInfo, ceph_daemons
from tests.harness.helpers import volperf

PGS = 1 + PG_COUNT * len(POOLS)  # Ceph's own device_health_metrics pool has one


def test_the_suite_testbed_is_ready_with_its_daemons(ceph_testbed: CephTestbedInfo, tmp_path: Path):
    status = volperf(
        "testbed", "status", "ceph", "--state", str(ceph_testbed.state), "--json", cwd=tmp_path
    )
    assert status.returncode == 0, status.stdout + status.stderr
    report = json.loads(status.stdout)
    assert report["ready"] and report["osds"] == 1
    assert [d["name"] for d in report["daemons"]] == ["mon.a", "mgr.x", "osd.0"]
    assert all(d["pid"] and d["VmRSS"] > 0 for d in report["daemons"])
    # every PG clean; in brackets, those trimming the snapshots of removed images, if any
    assert re.fullmatch(
        rf"HEALTH_OK, OSDs 1/1 up, PGs {PGS}/{PGS} active\+clean( \(.*snaptrim.*\))?",
        report["health"],
    ), report["health"]
    # the monitor's cluster log in the testbed's own state (Ceph's default is the host's
    # shared /var/log/ceph/ceph.log), beginning with this cluster's creation
    fsid = json.loads((ceph_testbed.state / "testbed.json").read_text())["fsid"]
    cluster_log = (ceph_testbed.state / "log" / "ceph.log").read_text()
    assert cluster_log.startswith(tuple("0123456789")) and f"[INF] mkfs {fsid}" in cluster_log
    assert "cluster [INF]" in cluster_log and "audit [" not in cluster_log
    assert (ceph_testbed.state / "log" / "ceph.audit.log").stat().st_size > 0
    # keyrings are the owner's alone
    for keyring in ("keyring", "ceph.client.cinder.keyring", "mon.keyring"):
        assert (ceph_testbed.state / keyring).stat().st_mode & 0o077 == 0, keyring


def test_up_again_only_checks_what_runs(ceph_testbed: CephTestbedInfo, tmp_path: Path):
    again = volperf("testbed", "up", "ceph", "--state", str(ceph_testbed.state), cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    assert again.stderr.count("already running") == 3
    assert "created cluster" not in again.stderr


def _pool_size(conf: Path) -> int:
    argv = ["ceph", "-c", str(conf), "osd", "pool", "get", "volumes", "size", "-f", "json"]
    out = subprocess.run(argv, capture_output=True, text=True, timeout=60, check=True)
    return json.loads(out.stdout)["size"]


def test_three_osds_from_nothing_to_restart_to_purged(tmp_path: Path):
    state = tmp_path / "ceph3"
    conf = state / "ceph.conf"

    def testbed(*args: str):
        return volperf("testbed", *args, "ceph", "--state", str(state), cwd=tmp_path)

    up = volperf(
        "testbed",
        "up",
        "ceph",
        "--osds",
        "3",
        "--state",
        str(state),
        "--mon-port",
        "20850",  # past the session testbed's daemons (20600 to 20800: conftest.py)
        cwd=tmp_path,
    )
    try:
        assert up.returncode == 0, up.stderr
        assert f"HEALTH_OK, OSDs 3/3 up, PGs {PGS}/{PGS} active+clean" in up.stderr
        assert _pool_size(conf) == 3
        assert f"export CEPH_CONF={conf}" in up.stderr

        down = testbed("down")
        assert down.returncode == 0 and "5 daemon(s) stopped" in down.stderr
        assert not ceph_daemons(conf)
        assert testbed("status").returncode == 1
        assert (state / "osd" / "ceph-2" / "block").exists()  # data kept without --purge

        again = testbed("up")  # starts the same cluster on its data
        assert again.returncode == 0, again.stderr
        assert "created cluster" not in again.stderr and "osd.2 started" in again.stderr

        other = volperf("testbed", "up", "ceph", "--osds", "1", "--state", str(state), cwd=tmp_path)
        assert other.returncode == 1 and "holds a Ceph testbed with 3 OSD(s), not 1" in other.stderr
    finally:
        purge = testbed("down", "--purge")
    assert purge.returncode == 0, purge.stderr
    assert not ceph_daemons(conf)
    assert not state.exists()


def test_a_failed_bring_up_stops_what_it_started_and_keeps_the_logs(tmp_path: Path):
    """A bring-up that fails midway (here: Ctrl-C once the monitor and the manager run,
    while the OSD is being made) leaves no daemon running; its logs stay for diagnosis."""
    state = tmp_path / "failed"
    conf = state / "ceph.conf"
    up = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "harness.cli",
            "testbed",
            "up",
            "ceph",
            "--state",
            str(state),
            "--mon-port",
            "25000",  # below the ephemeral range (39500 was once taken by a client)
        ],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    said = []
    try:
        assert up.stderr is not None
        for line in up.stderr:
            said.append(line)
            if "mgr.x started" in line:
                up.send_signal(signal.SIGINT)
                break
        said.append(up.communicate(timeout=120)[1])
        output = " ".join("".join(said).split())  # as one line: the console wraps
        assert up.returncode == 130, output
        assert "error: interrupted" in output and "Traceback" not in output
        assert "stopped what it started (mgr.x, mon.a)" in output
        assert f"kept for diagnosis: logs in {state / 'log'}" in output
        assert not ceph_daemons(conf)
        assert (state / "log" / "ceph-mon.a.log").stat().st_size > 0
    finally:
        up.kill()
        down = volperf("testbed", "down", "ceph", "--state", str(state), "--purge", cwd=tmp_path)
    assert down.returncode == 0, down.stderr
    assert not state.exists()
