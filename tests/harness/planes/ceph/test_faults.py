"""The OSD faults' timing, notes and undoing (harness/planes/ceph/faults.py), with a switch
that records what it is asked instead of acting; test_faults_run.py gives them for real on
a 3-OSD testbed."""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path

import pytest

from harness.core.faults import OsdFault
from harness.core.store import CampaignStore
from harness.planes.base import TargetError
from harness.planes.ceph.faults import (
    PRERUN,
    RESUME,
    OsdState,
    OsdSwitch,
    osd_faults,
    run_began,
    started_prerun,
    undo_noted,
)
from harness.testbeds import TestbedError


class RecordingSwitch(OsdSwitch):
    """Acts on nothing: notes each action with what created.json said as it came."""

    def __init__(self, store: CampaignStore, fail: str = ""):
        super().__init__(Path("/nowhere/ceph.conf"), "admin")
        self.store, self.fail = store, fail
        self.acted: list[tuple[float, str, int, dict]] = []

    def act(self, action: str, osd: int) -> list[str]:
        noted = next(iter(self.store.created().values()), {})
        self.acted.append((time.time(), action, osd, noted))
        if action == self.fail:
            raise TestbedError(f"{action} refused")
        return self.commands(action, osd)


def _fault(action: str, at: float, seconds: float | None = None) -> OsdFault:
    return OsdFault(action=action, osd=1, at=at, seconds=seconds)


def test_an_osds_state_after_each_action_and_what_puts_it_back():
    state = OsdState().after("stop-osd").after("out-osd")
    assert state == OsdState(stopped=True, out=True)
    assert state.undoing() == ["start-osd", "in-osd"]
    assert OsdState().after("pause-osd").undoing() == [RESUME]
    assert not OsdState(stopped=True).after("start-osd").changed
    assert OsdState(out=True).either(OsdState(paused=True)) == OsdState(out=True, paused=True)


def test_faults_are_given_on_time_noted_first_and_what_is_left_undone_at_the_end(tmp_path):
    store = CampaignStore(tmp_path / "c")
    store.root.mkdir()
    switch = RecordingSwitch(store)
    faults = [_fault("stop-osd", 0.2), _fault("start-osd", 0.5), _fault("out-osd", 0.4)]
    with osd_faults(faults, switch, store, tmp_path) as injector:
        time.sleep(0.3)  # fio connects to the cluster: the faults' clock waits
        began = time.time()
        (tmp_path / "c01.prerun.txt").write_text(f"{began:.6f}\n")  # as its exec_prerun
        time.sleep(1.5)
    started = injector.started
    assert started == pytest.approx(began, abs=1e-5)
    acted = [(t - started, action, noted) for t, action, _, noted in switch.acted]
    # in order, never early (and late by less than a busy machine's moment)
    assert [a for _, a, _ in acted[:3]] == ["stop-osd", "out-osd", "start-osd"]
    for (t, _, _), due in zip(acted, (0.2, 0.4, 0.5), strict=False):
        assert due <= t < due + 0.5
    # each fault noted before it was done, with what it will change
    assert acted[0][2]["stopped"] and acted[1][2]["out"]
    # at the step's end, the OSD left out is marked in, and nothing is left noted
    assert [a for _, a, _ in acted[3:]] == ["in-osd"]
    assert store.created() == {}
    written = json.loads((tmp_path / "faults.json").read_text())
    assert written["where"] == "the Ceph cluster of /nowhere/ceph.conf"
    assert [g["fault"] for g in written["given"]][-1] == "undone at the step's end"
    assert written["given"][1]["commands"] == [
        "ceph -c /nowhere/ceph.conf --id admin --connect-timeout 10 osd out 1"
    ]
    assert all(g["given_t"] <= g["done_t"] for g in written["given"])


def test_a_fault_after_the_runs_end_is_written_not_given_and_a_refused_one_stays_noted(
    tmp_path,
):
    store = CampaignStore(tmp_path / "c")
    store.root.mkdir()
    switch = RecordingSwitch(store, fail="in-osd")
    with osd_faults([_fault("out-osd", 0.0), _fault("in-osd", 30)], switch, store, tmp_path):
        (tmp_path / "c01.prerun.txt").write_text(f"{time.time()}")
        time.sleep(0.2)
    given = json.loads((tmp_path / "faults.json").read_text())["given"]
    by_fault = {(g["fault"], g["action"]): g for g in given}
    # the run ended before the in-osd: not given; undoing it at the end was refused
    assert by_fault[("in-osd osd.1 at +30 s", "in-osd")]["error"].startswith(
        "not given: the run ended at +0."
    )
    assert by_fault[("undone at the step's end", "in-osd")]["error"] == "in-osd refused"
    [note] = store.created().values()  # cleanup will try again
    assert (note["kind"], note["osd"], note["out"]) == ("ceph-fault", 1, True)


def test_faults_due_together_are_given_in_the_specs_order(tmp_path):
    store = CampaignStore(tmp_path / "c")
    store.root.mkdir()
    switch = RecordingSwitch(store)
    twice = [_fault("out-osd", 0.1), _fault("out-osd", 0.1), _fault("in-osd", 0.1)]
    with osd_faults(twice, switch, store, tmp_path):
        (tmp_path / "c01.prerun.txt").write_text(f"{time.time()}")
        time.sleep(0.6)
    assert [a for _, a, _, _ in switch.acted] == ["out-osd", "out-osd", "in-osd"]
    assert store.created() == {}


def test_no_fault_is_given_if_fios_run_never_began(tmp_path):
    store = CampaignStore(tmp_path / "c")
    store.root.mkdir()
    switch = RecordingSwitch(store)
    with osd_faults([_fault("stop-osd", 0.0)], switch, store, tmp_path):
        time.sleep(0.2)  # fio failed to connect: no job wrote its exec_prerun's time
    assert switch.acted == [] and store.created() == {}
    [given] = json.loads((tmp_path / "faults.json").read_text())["given"]
    assert given["error"] == "not given: the measured run never began"


def test_fios_jobs_write_when_their_run_began_and_the_first_is_the_runs(tmp_path):
    for job, when in (("c01", 1.5), ("c02", 1.2)):
        command = started_prerun(tmp_path).replace(PRERUN, f"echo {when}")
        # as fio's exec_prerun runs it: its output to <jobname>.prerun.txt, where it went
        subprocess.run(f"{command} > {job}.prerun.txt 2>&1", shell=True, check=True)
    assert run_began(tmp_path) == 1.2
    subprocess.run(started_prerun(tmp_path) + " > c03.prerun.txt", shell=True, check=True)
    assert run_began(tmp_path) == 1.2 and float((tmp_path / "c03.prerun.txt").read_text()) > 1e9


def test_cleanup_undoes_a_noted_fault_or_keeps_the_note_and_says_why(tmp_path):
    store = CampaignStore(tmp_path / "c")
    store.root.mkdir()
    note = {"kind": "ceph-fault", "conf": str(tmp_path / "ceph.conf"), "user": "admin", "osd": 1}
    store.record_created("f", **note, stopped=False, out=True, paused=False)
    # no cluster there: the ceph command cannot reach one
    [line] = undo_noted(store, store.created())
    assert line.startswith("NOT removed: the faults left on osd.1 (`ceph -c ")
    assert "f" in store.created()


def test_cleanup_of_a_note_that_left_nothing_changed_says_so_and_lists_no_actions(tmp_path):
    store = CampaignStore(tmp_path / "c")
    store.root.mkdir()
    note = {"kind": "ceph-fault", "conf": str(tmp_path / "ceph.conf"), "user": "admin", "osd": 1}
    store.record_created("f", **note, stopped=False, out=False, paused=False)
    # nothing to put back: no ceph command runs, and no 'undone: osd.1 …: ' with no actions
    [line] = undo_noted(store, store.created())
    assert not line.startswith("undone") and not line.rstrip().endswith(":")
    assert line == (
        f"nothing to undo: osd.1 of the Ceph cluster of {tmp_path / 'ceph.conf'} (its note "
        "said nothing was left changed)"
    )
    assert "f" not in store.created()


def test_a_cluster_not_a_testbed_takes_faults_only_when_allowed_and_never_a_pause(tmp_path):
    switch = OsdSwitch(tmp_path / "ceph.conf", "admin")
    stop = [_fault("stop-osd", 10), _fault("start-osd", 30)]
    with pytest.raises(TargetError) as refused:
        switch.check(stop, allowed=False)
    assert "is not a volperf testbed" in str(refused.value)
    assert "allow_faults: true" in str(refused.value)
    assert "+10 s: ceph -c " in str(refused.value)
    assert "orch daemon stop osd.1" in str(refused.value)
    switch.check(stop, allowed=True)
    with pytest.raises(TargetError, match="pause-osd signals the OSD's daemon"):
        switch.check([_fault("pause-osd", 1, 2)], allowed=True)
