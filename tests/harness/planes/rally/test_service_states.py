"""Cinder's state in each sample, and a Rally step's workload split by it, on a real outage
kept as a fixture (fixtures/service-outage/: cinder-volume stopped 2 s into 8 iterations of
CinderVolumes.create_and_extend_volume at two users and started again at 75 s, on the
OpenStack testbed; capture.sh made it)."""

from __future__ import annotations

import json
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

from harness.host.sampler import read_samples
from harness.planes.rally.faults import given_by_hooks
from harness.planes.rally.records import load_export, workloads
from harness.planes.rally.runner import JSON_REPORT
from harness.planes.rally.service_states import (
    STATES_FILE,
    WORDS,
    ServiceStateSampler,
    state_of,
)
from harness.planes.rally.step import rally_step
from harness.records.phases import DEGRADED, FAULTS_FILE, HEALED, HEALTHY, RECOVERING

RAW = Path(__file__).parent / "fixtures" / "service-outage" / "raw"
SAMPLES = read_samples(RAW / STATES_FILE)


def _volume_states(sample: dict) -> set[str]:
    return {s["state"] for s in sample.get("services") or [] if s["binary"] == "cinder-volume"}


def test_a_sample_is_degraded_exactly_while_cinder_says_a_service_is_down():
    states = [state_of(s) for s in SAMPLES]
    assert states[0] == HEALTHY and DEGRADED in states and states[-1] == HEALTHY, states
    for sample, state in zip(SAMPLES, states, strict=True):
        if not sample.get("services"):
            assert state is None
        elif "down" in _volume_states(sample):
            assert state == DEGRADED
        else:
            assert state in (HEALTHY, RECOVERING)


def test_every_service_up_with_a_backend_s_pools_missing_is_recovering():
    healthy = SAMPLES[-1]
    assert state_of(healthy) == HEALTHY
    pools = [p for p in healthy["pools"] if not p.endswith("#ceph")]
    assert state_of({**healthy, "pools": pools}) == RECOVERING
    assert state_of({"t": healthy["t"], "error": "ConnectTimeout: no answer"}) is None


def test_the_workload_is_split_by_cinder_s_own_states_not_by_the_faults_times():
    result = rally_step(RAW, "001-cinder-c002-r1")
    [summary] = result.summary["rally"]["workloads"]
    faulted = summary["phases"]
    assert faulted["backend"] == "Cinder" and faulted["states_from"] == WORDS
    [(_, workload)] = workloads(load_export(RAW / JSON_REPORT))
    start = float(workload["start_time"])
    # the degraded phase starts at the first sample in which Cinder said the service down
    first_down = min(s["t"] for s in SAMPLES if "down" in _volume_states(s) and s["t"] >= start)
    [degraded] = [p for p in faulted["phases"] if p["state"] == DEGRADED]
    assert degraded["start_s"] == pytest.approx(first_down - start, abs=0.001)
    stop, begin = faulted["faults"]
    assert (stop["action"], begin["action"]) == ("stop-service", "start-service")
    assert degraded["start_s"] > stop["at_s"] + 30  # Cinder's down time, not the stop's
    assert faulted["phases"][-1]["state"] == HEALED
    # every iteration counted once, in the phase it started in
    assert sum(p["iterations"] for p in faulted["phases"]) == len(workload["data"])
    [warning] = [w for w in result.warnings if w.code == "backend-phases"]
    assert "Cinder was not healthy all through the workload" in warning.message
    # what the plane asked of the workload, all given: nothing left to undo
    kept = json.loads((RAW / FAULTS_FILE).read_text())
    assert [a["action"] for a in kept["asked"]] == ["stop-service", "start-service"]
    assert kept["undone"] == []
    assert not [w for w in result.warnings if w.code == "fault-not-given"]


def test_what_the_hooks_gave_comes_from_the_tasks_report_with_its_commands_and_times(
    tmp_path,
):
    """raw/faults.json's ``given``: each action the fault hooks gave during the kept
    outage, its workload's scenario, commands and times, as Rally's report has them in
    the hooks' output; none known (None) when the runner wrote no report."""
    given = given_by_hooks(RAW)
    assert [(g["scenario"], g["action"], g["due_s"]) for g in given] == [
        ("CinderVolumes.create_and_extend_volume", "stop-service", 2.0),
        ("CinderVolumes.create_and_extend_volume", "start-service", 75.0),
    ]
    [(_, workload)] = workloads(load_export(RAW / JSON_REPORT))
    start = float(workload["start_time"])
    for g in given:  # on time, from the workload's start, to Rally's whole-second trigger
        assert g["error"] is None and g["commands"]
        assert g["due_s"] <= g["given_t"] - start < g["due_s"] + 1
        assert g["given_t"] <= g["done_t"]
    assert given_by_hooks(tmp_path) is None


class _BlockStorage:
    """openstacksdk's block_storage proxy, answering as Cinder did in a kept sample."""

    def __init__(self, sample: dict, answers_in_s: float = 0.0):
        self.sample = sample
        self.answers_in_s = answers_in_s

    def services(self):
        time.sleep(self.answers_in_s)
        return [SimpleNamespace(**s) for s in self.sample["services"]]

    def backend_pools(self):
        return [SimpleNamespace(name=p) for p in self.sample["pools"]]


def test_the_sampler_writes_what_cinder_answers_once_a_second_until_its_block_ends(tmp_path):
    answered = SAMPLES[-1]
    connection = SimpleNamespace(block_storage=_BlockStorage(answered))
    sampler = ServiceStateSampler(tmp_path, connection)
    started = time.time()
    with sampler:
        time.sleep(1.5)
    ended = time.time()
    written = read_samples(tmp_path / STATES_FILE)
    # one at the start, one a second later; a busy machine may let a third in before the
    # block's end is seen, never one after it, never two closer than the interval
    assert len(written) >= 2
    times = [sample["t"] for sample in written]
    assert started <= times[0] < started + 0.5
    assert all(b - a >= sampler.interval_s - 0.05 for a, b in zip(times, times[1:], strict=False))
    assert times[-1] <= ended
    assert len(written) <= 1 + int((ended - started) / sampler.interval_s)
    for sample in written:
        assert sample["services"] == answered["services"]
        assert sample["pools"] == answered["pools"]
        assert state_of(sample) == HEALTHY


def test_a_sample_is_stamped_when_cinder_answered_not_when_it_was_asked():
    """Cinder judges a service down when it handles the request: on a busy host its answer
    can come seconds after the question (7 s in a CI run), and a phase stamped at the
    question began before Cinder would say so."""
    storage = _BlockStorage(SAMPLES[-1], answers_in_s=0.3)
    before = time.time()
    sample = ServiceStateSampler(Path("unused"), SimpleNamespace(block_storage=storage)).take()
    assert before <= sample["asked_t"] and sample["t"] - sample["asked_t"] >= 0.3
    assert sample["t"] <= time.time()
