"""The volperf_ceph_fault hook in real Rally tasks (`rally task start`, Rally's own
Dummy.dummy scenario: no cloud needed) on a 1-OSD Ceph testbed of this module's own: an
OSD stopped 2 s into the workload and started at 6 s, the workload's phases from the
volperf_ceph_health hook's samples beside it; Rally killed outright while the OSD is
stopped, then `volperf cleanup`, which starts it again; a Rally workload's faults given
by the hooks the Rally plane adds to its task, what they left undone at the step's end;
and a cluster that is not a testbed refused without allow_faults."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from harness.core.plan import plan_steps
from harness.core.spec import validate
from harness.core.store import CampaignStore
from harness.planes.ceph.faults import NOTE_KIND
from harness.planes.rally.phased_report import PHASES_TITLE
from harness.planes.rally.phases import workload_phases
from harness.planes.rally.runner import HTML_REPORT, JSON_REPORT, rally_config
from harness.planes.rally.step import rally_step
from harness.planes.rally.target import RallyTarget
from harness.records.phases import DEGRADED, FAULTS_FILE, HEALTHY
from harness.testbeds.ceph import CephTestbed
from rally_plugins.hooks.ceph_fault import CephFaultHook
from tests.conftest import module_ceph_testbed
from tests.harness.helpers import (
    RALLY,
    dummy_task,
    rally_cli,
    rally_cli_env,
    rally_report_charts,
    rally_report_workloads,
    volperf,
)

MON_PORT = 28000  # its daemons to 28300: apart from the suite's other Ceph testbeds
STOP_AT, START_AT = 2, 6


@pytest.fixture(scope="module")
def one_osd(tmp_path_factory: pytest.TempPathFactory) -> Iterator[CephTestbed]:
    yield from module_ceph_testbed(tmp_path_factory, "rally-faults", MON_PORT)


@pytest.fixture(scope="module")
def rally(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Rally's configuration and an empty environment, ``dummy``: no cloud in it."""
    work = tmp_path_factory.mktemp("rally-db")
    config = rally_config(work / "rally")
    (work / "empty.json").write_text("{}")
    rally_cli_env(config, "dummy", work / "empty.json")
    return config


def _campaign(root: Path) -> CampaignStore:
    """A volperf campaign's folder, as the Rally plane makes one, for the hook's notes."""
    store = CampaignStore(root)
    store.write_campaign({"name": root.name}, {}, "rally")
    return store


def _task(path: Path, testbed: CephTestbed, faults: list[tuple[str, int]], campaign: Path) -> Path:
    conf = str(testbed.conf)
    hooks = [
        {
            "description": "health",
            "action": {"volperf_ceph_health": {"ceph_conf": conf}},
            "trigger": {"periodic": {"unit": "time", "step": 1}},
        }
    ] + [
        {
            "description": action,
            "action": {
                "volperf_ceph_fault": {
                    "ceph_conf": conf,
                    "action": action,
                    "osd": 0,
                    "campaign": str(campaign),
                }
            },
            "trigger": {"event": {"unit": "time", "at": [at]}},
        }
        for action, at in faults
    ]
    task = {
        "version": 2,
        "title": path.stem,
        "subtasks": [
            {
                "title": "dummy",
                "scenario": {"Dummy.dummy": {"sleep": 0.5}},
                "runner": {"constant": {"times": 40, "concurrency": 2}},
                "hooks": hooks,
            }
        ],
    }
    path.write_text(yaml.safe_dump(task))
    return path


def _osd0(testbed: CephTestbed) -> dict:
    dump = subprocess.run(
        ["ceph", "-c", str(testbed.conf), "osd", "dump", "--format", "json"],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    [osd] = [o for o in json.loads(dump.stdout)["osds"] if o["osd"] == 0]
    return osd


def _wait_healthy(testbed: CephTestbed, timeout: float = 120) -> str:
    deadline = time.monotonic() + timeout
    while True:
        said = subprocess.run(
            ["ceph", "-c", str(testbed.conf), "health"], capture_output=True, text=True
        ).stdout.strip()
        if said.startswith("HEALTH_OK") or time.monotonic() > deadline:
            return said
        time.sleep(1)


def test_an_osd_stopped_and_started_by_the_hook_splits_the_workload_by_cephs_state(
    one_osd, rally, tmp_path
):
    campaign = _campaign(tmp_path / "campaign")
    task = _task(
        tmp_path / "outage.yaml",
        one_osd,
        [("stop-osd", STOP_AT), ("start-osd", START_AT)],
        campaign.root,
    )
    started = rally_cli(rally, "task", "start", str(task), "--deployment", "dummy", timeout=300)
    [uuid] = set(re.findall(r"Task ([0-9a-f-]{36})", started.stdout))
    raw = tmp_path / "raw"
    raw.mkdir()
    rally_cli(rally, "task", "report", uuid, "--json", "--out", str(raw / JSON_REPORT))
    [workload] = json.loads((raw / JSON_REPORT).read_text())["tasks"][0]["subtasks"][0]["workloads"]
    fault_hooks = [h for h in workload["hooks"] if "volperf_ceph_fault" in h["config"]["action"]]
    assert [h["summary"] for h in fault_hooks] == [{"success": 1}, {"success": 1}]
    faulted = workload_phases(workload)
    assert faulted is not None
    stop, start = faulted["faults"]
    assert (stop["action"], start["action"]) == ("stop-osd", "start-osd")
    assert stop["commands"][0].startswith("kill -TERM ") and stop["error"] is None
    assert "ceph-osd -c" in start["commands"][0] and start["error"] is None
    assert STOP_AT <= stop["at_s"] < STOP_AT + 1 and START_AT <= start["at_s"] < START_AT + 1
    # the OSD down by the monitors' map within a sample or two of its stop, up after its start
    states = [p["state"] for p in faulted["phases"]]
    assert states[0] == HEALTHY and DEGRADED in states, faulted["phases"]
    degraded = faulted["phases"][states.index(DEGRADED)]
    assert stop["at_s"] < degraded["start_s"] <= stop["at_s"] + 2.5, faulted["phases"]
    assert degraded["start_s"] + degraded["seconds"] > start["at_s"], faulted["phases"]
    # every iteration from the first sample on counted once, in the phase it started in
    first = workload["start_time"] + faulted["phases"][0]["start_s"]
    counted = [i for i in workload["data"] if i["timestamp"] >= first]
    assert sum(p["iterations"] for p in faulted["phases"]) == len(counted) > 0
    assert degraded["iterations"] > 0 and degraded["median_s"] == pytest.approx(0.5, abs=0.1)
    # the step's summary and warnings, as volperf reads the task
    result = rally_step(raw, "s1")
    [summarised] = result.summary["rally"]["workloads"]
    assert summarised["phases"] == faulted
    [warning] = [w for w in result.warnings if w.code == "backend-phases"]
    assert f"degraded from +{degraded['start_s']:.1f} s" in warning.message
    # the task exported as a campaign, and its page: the phases' table, the faults given
    exported = tmp_path / "exported"
    rally_cli(rally, "task", "export", uuid, "--type", "volperf", "--to", str(exported))
    (tmp_path / "doc").mkdir()
    (tmp_path / "doc" / "conf.py").write_text("")
    page = volperf("report", str(exported), "--doc-source", str(tmp_path / "doc"), cwd=tmp_path)
    assert page.returncode == 0, page.stderr
    text = " ".join((tmp_path / "doc/test_results/exported/index.rst").read_text().split())
    assert "Each phase of the Rally workloads given faults" in text
    assert (
        f"- {DEGRADED} - {degraded['start_s']:.1f} - {degraded['seconds']:.1f} - "
        + (f"{degraded['iterations']} - 0 - {degraded['median_s']:.2f}")
        in text
    )
    assert f"Dummy.dummy: stop-osd osd.0 at +{STOP_AT} s (stop-osd): given at +" in text
    assert "the Ceph cluster was not healthy all through the workload" in text  # warnings
    # the OSD runs again and is in; nothing of the faults is left noted
    assert _osd0(one_osd)["up"] == 1 and _osd0(one_osd)["in"] == 1
    assert not [n for n in campaign.created().values() if n["kind"] == NOTE_KIND]
    assert _wait_healthy(one_osd).startswith("HEALTH_OK")


def test_rally_killed_while_the_osd_is_stopped_then_volperf_cleanup_starts_it(
    one_osd, rally, tmp_path
):
    campaign = _campaign(tmp_path / "campaign")
    task = _task(tmp_path / "killed.yaml", one_osd, [("stop-osd", STOP_AT)], campaign.root)
    running = subprocess.Popen(
        [str(RALLY), "--config-file", str(rally), "task", "start", str(task)]
        + ["--deployment", "dummy"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,  # Rally's runner processes with it
    )
    try:
        deadline = time.monotonic() + 120
        while not (noted := campaign.created()) and time.monotonic() < deadline:
            time.sleep(0.2)
        [note] = noted.values()
        assert note["kind"] == NOTE_KIND and note["stopped"] and note["osd"] == 0
        while _osd0(one_osd)["up"] and time.monotonic() < deadline:
            time.sleep(0.5)
    finally:
        os.killpg(running.pid, signal.SIGKILL)
        running.wait()
    assert _osd0(one_osd)["up"] == 0  # left stopped by the killed task
    cleaned = volperf("cleanup", str(campaign.root), cwd=tmp_path, timeout=300)
    assert cleaned.returncode == 0, cleaned.stdout + cleaned.stderr
    assert "undone: osd.0 of the Ceph testbed" in cleaned.stdout + cleaned.stderr
    assert campaign.created() == {}
    deadline = time.monotonic() + 60
    while not _osd0(one_osd)["up"] and time.monotonic() < deadline:
        time.sleep(0.5)
    assert _osd0(one_osd)["up"] == 1 and _osd0(one_osd)["in"] == 1
    assert _wait_healthy(one_osd).startswith("HEALTH_OK")


DUMMY_TASK = dummy_task("dummy", sleep=0.5)


def test_a_rally_workloads_faults_are_given_by_hooks_the_plane_adds_and_undone_at_its_end(
    one_osd, rally, tmp_path
):
    """`volperf run rally`'s target, on the Dummy environment: the workload's stop of
    osd.0 at +2 s given by a hook it added to the task, its start at +600 s never (the
    workload ends first): warned of, and the OSD started at the step's end."""
    (tmp_path / "dummy.yaml").write_text(DUMMY_TASK)
    spec = validate(
        {
            "name": "rally-faults",
            "sweep": [2],
            "target": {"type": "openstack", "ceph_conf": str(one_osd.conf), "health_interval": 1},
            "workloads": [
                {
                    "name": "dummy",
                    "tool": "rally",
                    "task": str(tmp_path / "dummy.yaml"),
                    "times": 24,
                    "faults": [
                        {"action": "stop-osd", "osd": 0, "at": STOP_AT},
                        {"action": "start-osd", "osd": 0, "at": 600},
                    ],
                }
            ],
        }
    )
    target = RallyTarget(spec, rally_dir=rally.parent)
    target.env = "dummy"  # prepare's is of a cloud: this one is Rally's empty environment
    target.check_faults(spec)
    assert any("kill -TERM <pid of osd.0>" in line for line in target.announcements)
    store = _campaign(tmp_path / "campaign")
    [step] = plan_steps(spec)
    began = time.time()
    outcome = target.run_step(step, store, threading.Event(), lambda elapsed, done: None)
    ended = time.time()
    assert outcome.state == "done", outcome
    raw = store.raw_dir(step.id)
    [config] = json.loads((raw / "rally-task-config.json").read_text())["subtasks"]
    assert [h["description"] for h in config["hooks"]] == [
        "volperf fault stop-osd osd.0 at +2 s",
        "volperf fault start-osd osd.0 at +600 s",
    ]
    faults = json.loads((raw / FAULTS_FILE).read_text())
    assert [(a["action"], a["due_s"]) for a in faults["asked"]] == [
        ("stop-osd", STOP_AT),
        ("start-osd", 600),
    ]
    # what the hook gave, from the task's report: its commands, and when, in the workload
    [given] = faults["given"]
    assert (given["scenario"], given["action"], given["error"]) == ("Dummy.dummy", "stop-osd", None)
    assert given["commands"][0].startswith("kill -TERM ")
    assert began + STOP_AT <= given["given_t"] <= given["done_t"] <= ended
    [undone] = faults["undone"]
    assert undone["action"] == "start-osd" and undone["fault"] == "undone at the step's end"
    assert "ceph-osd -c" in undone["commands"][0] and undone["error"] is None
    result = rally_step(raw, step.id)
    [summarised] = result.summary["rally"]["workloads"]
    [stop] = summarised["phases"]["faults"]
    assert stop["action"] == "stop-osd" and STOP_AT <= stop["at_s"] < STOP_AT + 1
    assert DEGRADED in [p["state"] for p in summarised["phases"]["phases"]]
    not_given = [w.message for w in result.warnings if w.code == "fault-not-given"]
    assert not_given == [
        "Dummy.dummy: fault start-osd osd.0 at +600 s (start-osd): not given, the workload "
        "ended before +600 s; its figures are not of the faults asked for"
    ]
    assert [w for w in result.warnings if w.code == "backend-phases"]
    # Rally's own report shows the phases and the warning too
    [shown] = rally_report_workloads(raw / HTML_REPORT)
    [table] = rally_report_charts(shown, PHASES_TITLE)
    assert [row[0] for row in table["data"]["rows"]] == [
        p["state"] for p in summarised["phases"]["phases"]
    ]
    assert (
        "volperf warning: Dummy.dummy: the Ceph cluster was not healthy" in (shown["description"])
    )
    assert not [n for n in store.created().values() if n["kind"] == NOTE_KIND]
    deadline = time.monotonic() + 60
    while not _osd0(one_osd)["up"] and time.monotonic() < deadline:
        time.sleep(0.5)
    assert _osd0(one_osd)["up"] == 1 and _osd0(one_osd)["in"] == 1
    assert _wait_healthy(one_osd).startswith("HEALTH_OK")


def test_a_cluster_that_is_not_a_testbed_is_refused_without_allow_faults(tmp_path):
    conf = tmp_path / "ceph.conf"
    conf.write_text("[global]\nmon_host = 127.0.0.1:1\n")
    hook = CephFaultHook(
        task=None,
        config={"ceph_conf": str(conf), "action": "stop-osd", "osd": 1},
        triggered_by={"event_type": "time", "value": 10},
    )
    hook.run_sync()
    result = hook.result()
    assert result["status"] == "failed"
    assert result["error"]["etype"] == "TargetError"
    details = result["error"]["details"]
    assert "not a volperf testbed" in details and "allow_faults: true" in details
    assert f"ceph -c {conf} --id admin" in details  # what it would have run, printed
    assert "orch daemon stop osd.1" in details
