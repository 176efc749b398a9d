"""The Ceph testbed's pure parts and its refusals; bring-up itself is in test_ceph.py."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from harness.testbeds import TestbedError
from harness.testbeds.ceph import CephTestbed, Ports, ceph_conf, laggy_pgs, readiness
from tests.harness.planes.ceph.fixtures import CEPH_FIXTURES, ceph_status


def test_ready_needs_health_ok_and_every_pg_active_clean():
    assert readiness(ceph_status("status-ok")) == (
        True,
        "HEALTH_OK, OSDs 1/1 up, PGs 33/33 active+clean",
    )
    ready, words = readiness(ceph_status("status-peering"))  # HEALTH_OK while PGs peer
    assert not ready
    assert words == (
        "HEALTH_OK, OSDs 1/1 up, PGs 0/33 active+clean (32 creating+peering, 1 unknown)"
    )
    ready, words = readiness(ceph_status("status-slow-ops"))
    assert not ready and words.startswith("HEALTH_WARN")
    assert readiness({}) == (False, "?, OSDs 0/0 up, PGs 0/0 active+clean")


def test_clean_pgs_that_trim_snapshots_or_scrub_are_ready():
    """As the suite's testbed was once its RBD campaigns had removed their images: the
    states `ceph -s` gave then, on the captured status of a ready cluster."""
    status = ceph_status("status-ok")
    status["pgmap"]["num_pgs"] = 97
    status["pgmap"]["pgs_by_state"] = [
        {"state_name": "active+clean", "count": 57},
        {"state_name": "active+clean+snaptrim", "count": 2},
        {"state_name": "active+clean+snaptrim_wait", "count": 38},
    ]
    assert readiness(status) == (
        True,
        "HEALTH_OK, OSDs 1/1 up, PGs 97/97 active+clean "
        "(2 active+clean+snaptrim, 38 active+clean+snaptrim_wait)",
    )
    status["pgmap"]["pgs_by_state"][1]["state_name"] = "active+clean+scrubbing+deep"
    assert readiness(status)[0]
    for state in ("active+undersized+degraded", "active+clean+inconsistent", "clean+peering"):
        status["pgmap"]["pgs_by_state"][1]["state_name"] = state
        assert not readiness(status)[0], state


def test_with_cephfs_ready_needs_its_rank_served_by_an_active_mds():
    assert readiness(ceph_status("status-cephfs-active")) == (
        True,
        "HEALTH_OK, OSDs 1/1 up, PGs 161/161 active+clean, MDS 1/1 active",
    )
    ready, words = readiness(ceph_status("status-cephfs-no-mds"))  # the MDS killed
    assert not ready
    assert words.startswith("HEALTH_ERR, OSDs 1/1 up,") and words.endswith(", MDS 0/1 active")


def test_conf_keeps_files_under_the_state_dir_and_daemons_on_loopback(tmp_path: Path):
    text = ceph_conf(tmp_path, "fsid-1", 3, Ports.from_mon_port(21000))
    assert "mon host = [v2:127.0.0.1:21000,v1:127.0.0.1:21001]" in text
    assert "ms bind port min = 21100" in text and "ms bind port max = 21300" in text
    assert "osd pool default size = 3" in text
    for line in text.splitlines():
        if re.match(
            r"(run dir|pid file|log file|crash dir|keyring|mon data|mgr data|osd data) =", line
        ):
            assert line.split(" = ")[1].startswith(str(tmp_path)), line
    assert "admin socket" not in text  # clients would fight over one socket path
    assert "auth client required = cephx" in text


def test_only_1_or_3_osds(tmp_path: Path):
    with pytest.raises(TestbedError, match="1 or 3 OSDs"):
        CephTestbed(tmp_path, osds=2)


def test_up_refuses_a_directory_that_is_not_a_testbed(tmp_path: Path):
    (tmp_path / "notes.txt").write_text("mine")
    with pytest.raises(TestbedError, match="exists and is not empty"):
        CephTestbed(tmp_path).up(say=lambda line: None)
    assert (tmp_path / "notes.txt").read_text() == "mine"


def test_purge_refuses_a_directory_without_the_marker(tmp_path: Path):
    (tmp_path / "notes.txt").write_text("mine")
    with pytest.raises(TestbedError, match="not a volperf Ceph testbed"):
        CephTestbed(tmp_path).down(purge=True, say=lambda line: None)
    assert (tmp_path / "notes.txt").exists()


def test_status_of_nothing(tmp_path: Path):
    report = CephTestbed(tmp_path / "none").status()
    assert report["exists"] is False and report["ready"] is False and report["daemons"] == []


def test_every_daemon_with_a_pid_file_is_known_so_down_stops_it(tmp_path: Path):
    (tmp_path / "run").mkdir()
    (tmp_path / "testbed.json").write_text('{"osds": 1}')
    (tmp_path / "run" / "osd.7.pid").write_text("1")
    names = [d.name for d in CephTestbed(tmp_path).daemons()]
    assert names == ["mon.a", "mgr.x", "osd.0", "osd.7"]
    assert CephTestbed(tmp_path).daemons()[3].pid() is None  # pid 1 does not name our conf


def test_laggy_pgs_are_counted_and_are_not_ready():
    """From a PG wedged laggy (fixtures/capture-laggy.sh: the OSD stopped 25 s under load)."""
    status = ceph_status("status-laggy")
    assert laggy_pgs(status) == 6
    assert laggy_pgs(ceph_status("status-ok")) == 0
    ready, words = readiness(status)
    assert not ready and "(6 active+clean+laggy)" in words


class _WedgedCeph(CephTestbed):
    """A testbed whose Ceph answers from what the wedged one said, and notes its commands."""

    def __init__(self, state: Path, statuses: list[dict]):
        super().__init__(state)
        self.statuses, self.commands = statuses, []
        self.refuse_down = False

    def status_json(self, timeout_s: float = 20) -> dict:
        return self.statuses.pop(0) if len(self.statuses) > 1 else self.statuses[0]

    def run(self, *argv: str, timeout_s: float = 0, **env: str) -> str:
        self.commands.append(" ".join(argv))
        if argv[1:3] == ("pg", "ls"):
            return (CEPH_FIXTURES / "pg-ls-laggy.json").read_text()
        if argv[1:3] == ("pg", "repeer"):  # what Ceph says with one OSD up
            said = (CEPH_FIXTURES / "pg-repeer-one-osd.txt").read_text().splitlines()[0]
            raise TestbedError(f"`{' '.join(argv)}` exited 11: {said}")
        if argv[1:3] == ("osd", "down") and self.refuse_down:
            raise TestbedError(f"`{' '.join(argv)}` exited 13: Error EACCES: access denied")
        return ""


def test_pgs_laggy_past_a_lease_are_re_peered_once_and_then_ready(tmp_path: Path, monkeypatch):
    monkeypatch.setattr("harness.testbeds.ceph.LAGGY_WEDGED_S", 0.0)
    monkeypatch.setattr("harness.testbeds.ceph.time.sleep", lambda s: None)
    laggy, ok = ceph_status("status-laggy"), ceph_status("status-ok")
    ceph = _WedgedCeph(tmp_path, [laggy, laggy, ok])
    said: list[str] = []
    assert ceph.wait_ready(60, say=said.append) is ok
    pgs = ["1.0", "1.1", "1.3", "1.6", "1.14", "1.1e"]
    # repeer refused for each (one OSD up), so their primary is marked down, once
    repeers = [f"ceph pg repeer {pg}" for pg in pgs]
    assert (
        ceph.commands == ["ceph pg ls laggy -f json", repeers[0], "ceph osd down 0"] + repeers[1:]
    )
    assert any("PG 1.1e re-peered by marking osd.0 down" in line for line in said), said


def test_laggy_shorter_than_a_lease_is_left_to_clear(tmp_path: Path, monkeypatch):
    monkeypatch.setattr("harness.testbeds.ceph.time.sleep", lambda s: None)
    ceph = _WedgedCeph(tmp_path, [ceph_status("status-laggy"), ceph_status("status-ok")])
    ceph.wait_ready(60, say=lambda line: None)
    assert ceph.commands == []


def test_a_re_peering_that_fails_is_said_and_the_wait_goes_on(tmp_path: Path, monkeypatch):
    monkeypatch.setattr("harness.testbeds.ceph.LAGGY_WEDGED_S", 0.0)
    monkeypatch.setattr("harness.testbeds.ceph.time.sleep", lambda s: None)
    laggy = ceph_status("status-laggy")
    ceph = _WedgedCeph(tmp_path, [laggy, laggy, ceph_status("status-ok")])
    ceph.refuse_down = True
    said: list[str] = []
    ceph.wait_ready(60, say=said.append)
    assert any(
        line.startswith("re-peering the laggy PGs failed: `ceph osd down 0` exited 13")
        for line in said
    ), said
