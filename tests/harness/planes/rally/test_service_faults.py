"""Cinder's volume service stopped during a Rally workload, for real on the suite's
OpenStack testbed (volperf_service_fault hooks the Rally plane adds to the task):

- cinder-volume stopped 2 s into a workload of CinderVolumes.create_and_extend_volume at
  two users and started again at 75 s: the process replaced, both faults given on time
  with their commands; the phases from Cinder's own state, sampled once a second (down
  once its last report was older than its service_down_time; healed once it was up with
  its backends' pools reported again), the degraded phase's start within 2 s of Cinder's
  own reading of its record; the iterations the users had in flight waited for the
  service, ending only after it was back (done, or failed with what the stopped service
  lost, after the workload's wait_timeout at most, which the step's Rally held); each
  phase's iterations as Rally timed them; the service up, nothing noted, no volume left;
- volperf killed while the service is stopped, then `volperf cleanup`: the service runs
  and Cinder says it is up, nothing noted, no volume left;

and, without a backend, a service's state after each action, and faults refused on a
cloud that is not the testbed, naming them."""

from __future__ import annotations

import datetime
import json

import pytest
import yaml

from harness.core.faults import ServiceFault
from harness.core.store import CampaignStore
from harness.planes.base import TargetError
from harness.planes.rally.phased_report import PHASES_TITLE
from harness.planes.rally.records import load_export, workloads
from harness.planes.rally.runner import HTML_REPORT, JSON_REPORT
from harness.planes.rally.service_faults import (
    NOTE_KIND,
    ServiceState,
    ServiceSwitch,
    openstack_testbed_of,
)
from harness.planes.rally.service_states import STATES_FILE, state_of
from harness.records.phases import DEGRADED, FAULTS_FILE, HEALED, HEALTHY, RECOVERING
from harness.testbeds.openstack.testbed import OpenStackTestbed
from tests.harness.helpers import (
    rally_report_charts,
    rally_report_workloads,
    run_killed_when,
    volperf,
)

STOP_AT, START_AT = 2, 75
SERVICE = "cinder-volume"
SERVICE_DOWN_TIME_S = 60  # Cinder's default, which the testbed keeps
WAIT_TIMEOUT_S = 180  # Rally gives up on a request the stopped service lost (default 600 s)


def _document(testbed, name: str, faults: list[dict]) -> dict:
    return {
        "name": name,
        "target": {"type": "openstack", "clouds_yaml": str(testbed.clouds_yaml)},
        "workloads": [
            {
                "name": "cinder",
                "tool": "rally",
                "task": "control-plane",
                "args": {"scenarios": ["extend"]},
                "times": 8,
                "poll_interval": 1,
                "wait_timeout": WAIT_TIMEOUT_S,
                "faults": faults,
            }
        ],
        "sweep": [2],
    }


def _cinder_volume(testbed) -> int | None:
    daemon = next(d for d in OpenStackTestbed(testbed.state).daemons() if d.name == SERVICE)
    return daemon.pid()


def _cinder_says_up(conn) -> bool:
    services = [s for s in conn.block_storage.services() if s.binary == SERVICE]
    return bool(services) and all(s.state == "up" for s in services)


def _volumes(conn) -> list[str]:
    return [v.name for v in conn.block_storage.volumes(all_projects=True)]


def _epoch(iso: str) -> float:
    """Cinder's updated_at (UTC, no zone)."""
    moment = datetime.datetime.fromisoformat(iso.replace("Z", ""))
    return moment.replace(tzinfo=datetime.UTC).timestamp()


def test_a_stopped_cinder_volume_splits_the_workload_at_cinder_s_own_times(
    openstack_testbed, tmp_path
):
    conn = openstack_testbed.connection()
    before = _cinder_volume(openstack_testbed)
    faults = [
        {"action": "stop-service", "service": SERVICE, "at": STOP_AT},
        {"action": "start-service", "service": SERVICE, "at": START_AT},
    ]
    spec = tmp_path / "spec.yaml"
    spec.write_text(yaml.safe_dump(_document(openstack_testbed, "outage", faults)))
    run = volperf(
        "run", str(spec), "--results", str(tmp_path / "results"), cwd=tmp_path, timeout=900
    )
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    # the commands announced before the run
    state = openstack_testbed.state
    said = " ".join((run.stdout + run.stderr).split())  # the console's lines joined
    assert (
        f"on the OpenStack testbed in {state}: +{STOP_AT} s: volperf testbed stop-service "
        f"openstack {SERVICE} --state {state}"
    ) in said, said
    campaign = tmp_path / "results" / "outage"
    [step] = json.loads((campaign / "summary.json").read_text())["steps"]
    [workload] = step["rally"]["workloads"]
    faulted = workload["phases"]
    print(said, json.dumps(faulted, indent=1))
    # both faults given on time (Rally's time trigger, whole seconds), the process replaced
    given = {f["action"]: f for f in faulted["faults"]}
    assert set(given) == {"stop-service", "start-service"}
    assert all(f["error"] is None for f in given.values()), given
    assert STOP_AT - 0.5 <= given["stop-service"]["at_s"] <= STOP_AT + 2.5
    assert START_AT - 0.5 <= given["start-service"]["at_s"] <= START_AT + 2.5
    assert given["stop-service"]["commands"] == [
        f"volperf testbed stop-service openstack {SERVICE} --state {state}"
    ]
    after = _cinder_volume(openstack_testbed)
    assert after is not None and after != before
    # the phases, from Cinder's own state: healthy while its record was fresh, degraded
    # once it was older than service_down_time, healed once up with its pools reported
    assert faulted["backend"] == "Cinder"
    states = [p["state"] for p in faulted["phases"]]
    assert states[0] == HEALTHY and DEGRADED in states and states[-1] == HEALED, states
    assert set(states) <= {HEALTHY, DEGRADED, RECOVERING, HEALED}
    raw = campaign / "steps" / step["step"] / "raw"
    samples = [json.loads(line) for line in (raw / STATES_FILE).read_text().splitlines()]
    [(_, exported)] = workloads(load_export(raw / JSON_REPORT))
    started = float(exported["start_time"])
    [degraded] = [p for p in faulted["phases"] if p["state"] == DEGRADED]
    # the phase begins at the first sample that says degraded, stamped when Cinder answered
    answered = [s for s in samples if state_of(s) is not None]
    first = next(i for i, s in enumerate(answered) if state_of(s) == DEGRADED)
    down, before = answered[first], answered[first - 1]
    assert down["t"] == pytest.approx(started + degraded["start_s"], abs=0.002)
    # Cinder's own reading: the stalest service's last report before then (cinder-volume's,
    # before the stop, unless another one stopped reporting too) plus its down time
    last_reports: dict[tuple[str, str], float] = {}
    for sample in answered[:first]:
        for s in (s for s in sample["services"] if s["status"] != "disabled"):
            key = (s["binary"], s["host"])
            last_reports[key] = max(last_reports.get(key, 0.0), _epoch(s["updated_at"]))
    said_down = min(last_reports.values()) + SERVICE_DOWN_TIME_S
    # Cinder judged each state while handling its request, between asked_t and t: healthy
    # in the sample before, down in this one (updated_at is whole seconds: 1 s either way)
    assert before["asked_t"] - 1.0 <= said_down <= down["t"] + 1.0, (degraded, said_down - started)
    # and the phase no later than the sampler's interval and the two answers' own time
    waited = (down["t"] - down["asked_t"]) + (before["t"] - before["asked_t"])
    assert down["t"] - said_down <= 2.0 + waited, (degraded, said_down - started, waited)
    # every sample's state is the one its services and pools say
    assert all(state_of(s) in (None, HEALTHY, DEGRADED, RECOVERING) for s in samples)
    healed = faulted["phases"][-1]
    assert healed["start_s"] <= given["start-service"]["at_s"] + 60
    assert faulted["fault_to_healed_s"] == pytest.approx(
        healed["start_s"] - given["stop-service"]["at_s"], abs=0.01
    )
    # the iterations the users had in flight at the stop waited for the service: each ended
    # only after it was started again, done or failed. What the service held at the stop is
    # lost with it (a volume it was creating is set to error as it starts; an extend is
    # never done, and Rally gives up after the wait_timeout its configuration holds)
    assert f"cinder_volume_create_timeout = {WAIT_TIMEOUT_S}" in (raw / "rally.conf").read_text()
    iterations = exported["data"]
    stopped_t = started + given["stop-service"]["at_s"]
    back_t = started + given["start-service"]["at_s"]
    in_flight = [
        i for i in iterations if i["timestamp"] < stopped_t < i["timestamp"] + i["duration"]
    ]
    assert in_flight, iterations
    assert all(i["timestamp"] + i["duration"] > back_t for i in in_flight), in_flight
    # each phase's iterations, failures and slowest, read from Rally's own iterations: those
    # that started in it
    for phase in faulted["phases"]:
        begin = started + phase["start_s"]
        inside = [i for i in iterations if begin <= i["timestamp"] < begin + phase["seconds"]]
        done = [i["duration"] for i in inside if not i["error"]]
        assert (phase["iterations"], phase["failed"], phase["max_s"]) == (
            len(inside),
            len(inside) - len(done),
            round(max(done), 3) if done else None,
        ), (phase, inside)
    assert sum(p["iterations"] for p in faulted["phases"]) == len(iterations) == 8
    codes = {w["code"] for w in step["warnings"]}
    assert "backend-phases" in codes
    # Rally's own report shows the phases and the warning too
    [shown] = rally_report_workloads(raw / HTML_REPORT)
    [table] = rally_report_charts(shown, PHASES_TITLE)
    assert [row[0] for row in table["data"]["rows"]] == states
    assert (
        "volperf warning: CinderVolumes.create_and_extend_volume: Cinder was not healthy"
        in (shown["description"])
    )
    # what the fault did, undone; nothing of the campaign's left
    assert json.loads((raw / FAULTS_FILE).read_text())["undone"] == []
    assert CampaignStore(campaign).created() == {}
    assert _cinder_says_up(conn)
    assert not [v for v in _volumes(conn) if v.startswith("s_rally")]


def _stopped(store: CampaignStore, testbed) -> bool:
    """The stop noted in created.json, and cinder-volume gone."""
    if not store.root.exists():
        return False
    notes = [n for n in store.created().values() if n.get("kind") == NOTE_KIND]
    return bool(notes and notes[0]["stopped"]) and _cinder_volume(testbed) is None


def test_cleanup_starts_a_service_a_killed_run_left_stopped(openstack_testbed, tmp_path):
    conn = openstack_testbed.connection()
    faults = [{"action": "stop-service", "service": SERVICE, "at": 2}]
    spec = tmp_path / "spec.yaml"
    spec.write_text(yaml.safe_dump(_document(openstack_testbed, "killed", faults)))
    store = CampaignStore(tmp_path / "results" / "killed")
    run_killed_when(
        spec, tmp_path, lambda: _stopped(store, openstack_testbed), "the stop was noted and given"
    )
    done = volperf("cleanup", str(store.root), cwd=tmp_path, timeout=900)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    said = done.stdout + done.stderr
    assert f"undone: service {SERVICE} of the OpenStack testbed" in said, said
    assert _cinder_volume(openstack_testbed) is not None
    assert _cinder_says_up(conn)
    assert store.created() == {}
    assert not [v for v in _volumes(conn) if v.startswith("s_rally")]


def test_a_services_state_after_each_action_and_what_puts_it_back():
    state = ServiceState().after("stop-service")
    assert state == ServiceState(stopped=True) and state.undoing() == ["start-service"]
    assert not state.after("start-service").changed


def test_service_faults_off_the_testbed_are_refused_naming_them(tmp_path):
    clouds = tmp_path / "clouds.yaml"  # no testbed's marker beside it
    clouds.write_text("clouds: {}\n")
    assert openstack_testbed_of(clouds) is None
    stop = ServiceFault(action="stop-service", service=SERVICE, at=5)
    with pytest.raises(TargetError, match=r"faults stop-service cinder-volume at \+5 s: volperf"):
        ServiceSwitch(openstack_testbed_of(clouds)).check([stop])
    (tmp_path / "testbed.json").write_text("{}")
    switch = ServiceSwitch(openstack_testbed_of(clouds))
    switch.check([stop])
    assert switch.plan([stop]) == [
        f"+5 s: volperf testbed stop-service openstack {SERVICE} --state {tmp_path}"
    ]
