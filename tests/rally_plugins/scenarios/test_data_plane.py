"""VolPerf.cinder_fio: its args checked by volperf's spec, Heat's event times as Rally
atomic actions (the Heat plane's captured events), and real Rally tasks of data-plane.yaml
on the OpenStack testbed (`rally task start` as a user types it, and volperf's runner)
whose charts, tables and exported campaign are read against the VMs' own fio JSON, read
with the json module from the folder the scenario kept them in."""

from __future__ import annotations

import csv
import json
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from harness.core.spec import validate
from harness.core.store import CampaignStore
from harness.planes.heat.step import heat_step
from harness.planes.rally.data_plane import FROM_STEP, WARNINGS_TITLE
from harness.planes.rally.runner import JSON_REPORT, rally_config
from harness.planes.rally.target import TASKS_DIR, RallyTarget
from rally_plugins.scenarios.data_plane import heat_children, workload_and_heat
from rally_plugins.scenarios.fio_output import VM_TABLE_TITLE
from tests.harness.helpers import (
    fio_json,
    heat_stacks,
    images_left,
    lose_volume_and_run_agents,
    output_table,
    rally_cli,
    rally_cli_env,
)
from tests.harness.planes.openstack_campaigns import POLL_S
from tests.rally_plugins.scenarios.expected import sums_and_per_vm

FIXTURE = Path(__file__).parents[2] / "harness" / "planes" / "heat" / "fixtures" / "two-stacks"
TASK = TASKS_DIR / "data-plane.yaml"


def test_args_are_checked_by_volperfs_spec_and_name_the_bad_one():
    workload, heat = workload_and_heat({"image": "tiny", "flavor": "tiny", "bs": "8k"})
    assert (workload.rw, workload.bs, heat.device_mode) == (
        ["randread", "randwrite"],
        "8k",
        "device",
    )
    with pytest.raises(ValueError, match="device_mode"):
        workload_and_heat({"image": "tiny", "flavor": "tiny", "device_mode": "nbd"})
    with pytest.raises(ValueError, match="flavor"):
        workload_and_heat({"image": "tiny"})


def test_heats_create_times_become_one_atomic_action_a_kind_over_all_vms():
    plan = json.loads((FIXTURE / "step.json").read_text())
    events = heat_step(FIXTURE / "raw", "s1", plan, "testbed").events
    children = heat_children(events)
    kinds = ["heat volume-create", "heat server-create", "heat volume-attach", "heat agent-result"]
    assert sorted(c["name"] for c in children) == sorted(k.replace(" ", ".") for k in kinds)
    for child in children:
        mine = [e for e in events if e.consumer and e.event.replace(" ", ".") == child["name"]]
        assert len(mine) == 2  # the reader VM's and the writer VM's
        assert child["started_at"] == min(e.start_ms for e in mine) / 1000
        assert child["finished_at"] == max(e.start_ms / 1000 + e.seconds for e in mine)
        assert "failed" not in child


@pytest.fixture(scope="module")
def rally_env(tmp_path_factory, openstack_testbed):
    """A Rally database and environment of the testbed's admin, as `volperf run rally`
    makes them."""
    spec = validate(
        {
            "name": "data-plane",
            "sweep": [1],
            "target": {"type": "openstack", "clouds_yaml": str(openstack_testbed.clouds_yaml)},
            "workloads": [{"name": "dp", "tool": "rally", "task": "data-plane"}],
        }
    )
    work = tmp_path_factory.mktemp("rally-data-plane")
    target = RallyTarget(spec, rally_dir=work / "rally")
    store = CampaignStore(work / "campaign")
    target.prepare(spec, store)
    target.cleanup(store)  # its environment is all this needs: no runner kept warm
    return work / "rally", target.env


def _job(path: Path) -> dict:
    [job] = fio_json(path)["jobs"]
    return job


def _start_task(rally_env: tuple[Path, str], work: Path, **args: object) -> subprocess.Popen:
    """data-plane.yaml at 2 VMs through Rally, its VMs' answers kept in work/kept."""
    rally_dir, env = rally_env
    (work / "out").mkdir()
    args = {"vm_counts": [2], "runtime": 3, "size": "32M", "iodepth": 4, **args}
    args["keep_raw"] = str(work / "kept")
    return subprocess.Popen(
        [sys.executable, "-m", "harness.planes.rally.runner", "--rally-dir", str(rally_dir)]
        + ["--env", env, "--task", str(TASK), "--args", json.dumps(args)]
        + ["--out", str(work / "out"), "--poll-interval", str(POLL_S)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _iteration(work: Path) -> dict:
    [task] = json.loads((work / "out" / JSON_REPORT).read_text())["tasks"]
    [workload] = task["subtasks"][0]["workloads"]
    [iteration] = workload["data"]
    return iteration


def test_rally_task_start_of_the_data_plane_at_2_and_4_vms(
    rally_env, openstack_testbed, ceph_testbed, tmp_path
):
    rally_dir, env = rally_env
    # the user's Rally configuration: volperf's database, Rally's polls at POLL_S
    config = rally_config(rally_dir, POLL_S, where=tmp_path)
    cli_env = f"cli-{env}"  # an environment of its own: the runner's is made on its first run
    rally_cli_env(config, cli_env, rally_dir / f"{env}.env.json")
    args = {"vm_counts": [2, 4], "runtime": 3, "size": "32M", "iodepth": 4, "prefill": False}
    args |= {"keep_raw": str(tmp_path / "kept"), "fail_on_warnings": True}
    started = rally_cli(
        config,
        "task",
        "start",
        str(TASK),
        "--task-args",
        json.dumps(args),
        "--env",
        cli_env,
        "--no-use",
        timeout=900,
        exits=2,  # Rally ran the task, which failed the SLA volperf_warnings
    )
    [uuid] = set(re.findall(r"Task +([0-9a-f-]{36})", started.stdout))
    rally_cli(config, "task", "export", uuid, "--type", "json", "--to", str(tmp_path / "r.json"))
    rally_cli(config, "task", "report", uuid, "--out", str(tmp_path / "report.html"))
    (tmp_path / "start.txt").write_text(started.stdout)  # for the docs' example
    report = (tmp_path / "report.html").read_text()
    assert "VolPerf.cinder_fio" in report
    # the readers read volumes never written: said in Rally's report, and the SLA asked
    # to fail on volperf's warnings failed (the iterations themselves did not)
    assert WARNINGS_TITLE in report and "unwritten-volumes" in report
    assert "| unwritten-volumes" in started.stdout  # and on Rally's console
    [task] = json.loads((tmp_path / "r.json").read_text())["tasks"]
    assert task["status"] == "finished" and not task["pass_sla"]
    for count, subtask in zip((2, 4), task["subtasks"], strict=True):
        [workload] = subtask["workloads"]
        slas = {s["criterion"]: s for s in workload["sla_results"]["sla"]}
        assert slas["failure_rate"]["success"]
        assert not slas["volperf_warnings"]["success"]
        assert "unwritten-volumes in 1 of 1 iterations" in slas["volperf_warnings"]["detail"]
        [iteration] = workload["data"]
        assert not iteration["error"], iteration["error"]
        warned = output_table(iteration, WARNINGS_TITLE)
        # the step's own (a VM whose first reads waited a second is a stall, said too)
        step = {r[0]: r[1] for r in warned["data"]["rows"] if r[2] == FROM_STEP}
        assert "prefill: false" in step["unwritten-volumes"], step
        assert set(step) <= {"unwritten-volumes", "stalled", "emulated-cpu"}, step
        actions = [a["name"] for a in iteration["atomic_actions"]]
        assert actions == ["heat.create_stack", "volperf.results", "heat.delete_stack"]
        children = {c["name"] for c in iteration["atomic_actions"][0]["children"]}
        assert children == {
            "heat.volume-create",
            "heat.server-create",
            "heat.volume-attach",
            "heat.agent-result",
        }
        summed, per_vm, latency, flagged = (c["data"] for c in iteration["output"]["additive"])
        assert ["unwritten-volumes", 1] in flagged
        table = output_table(iteration, VM_TABLE_TITLE)
        assert len(table["data"]["rows"]) == count
        if count == 2:  # the charts against the VMs' fio JSON, kept by keep_raw
            folder = tmp_path / "kept" / "subtask-1" / "iteration-0001"
            reader = _job(next(folder.glob("heat/*/fio-c01.json")))
            writer = _job(next(folder.glob("heat/*/fio-c02.json")))
            assert (dict(map(tuple, summed)), per_vm) == sums_and_per_vm(reader, writer)
            assert dict(map(tuple, latency))["write p95"] == pytest.approx(
                writer["write"]["clat_ns"]["percentile"]["95.000000"] / 1e6
            )
    # the task as a volperf campaign: fio.csv's rows are the VMs' own fio JSON
    campaign = tmp_path / "campaign"
    rally_cli(config, "task", "export", uuid, "--type", "volperf", "--to", str(campaign))
    with (campaign / "fio.csv").open(newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert sorted((r["concurrency"], r["consumer"]) for r in rows) == [
        ("2", "c01"),
        ("2", "c02"),
        *(("4", f"c0{n}") for n in range(1, 5)),
    ]
    for row in rows:
        subtask = "subtask-1" if row["concurrency"] == "2" else "subtask-2"
        folder = tmp_path / "kept" / subtask / "iteration-0001"
        job = _job(next(folder.glob(f"heat/*/fio-{row['consumer']}.json")))
        direction = "read" if row["role"] == "reader" else "write"
        assert float(row[f"{direction}_iops"]) == job[direction]["iops"] > 0
        assert float(row[f"{direction}_bandwidth"]) == job[direction]["bw"]
        clat_ms = round(job[direction]["clat_ns"]["mean"] / 1e6, 6)
        assert float(row[f"{direction}_complelatency_mean"]) == clat_ms
        assert (row["repeat"], row["bs"], row["iodepth"], row["error"]) == ("1", "4k", "4", "")
    steps = json.loads((campaign / "summary.json").read_text())["steps"]
    for step in steps:  # the exported campaign's steps say it too, and the SLA's failure
        codes = {w["code"]: w["message"] for w in step["warnings"]}
        assert codes["unwritten-volumes"].startswith("iteration 1: ")
        assert "volperf_warnings failed" in codes["rally-sla"]
    # nothing is left: stacks, servers, volumes, RBD images
    conn = openstack_testbed.connection()
    assert heat_stacks(openstack_testbed.state) == []
    assert list(conn.compute.servers(all_projects=True)) == []
    assert list(conn.block_storage.volumes(all_projects=True)) == []
    assert images_left(ceph_testbed, openstack_testbed.state) == ""


def test_a_vm_that_fails_fails_the_iteration_naming_it_and_the_other_keeps_its_figures(
    rally_env, openstack_testbed, ceph_testbed, runner_stopped, tmp_path
):
    run = _start_task(rally_env, tmp_path)
    conn = openstack_testbed.connection()
    deadline = time.monotonic() + 300
    while len(servers := _ready_servers(conn)) < 2:
        assert time.monotonic() < deadline and run.poll() is None, "no 2 VMs with volumes"
        time.sleep(1)
    broken = sorted(servers, key=lambda s: s.name)[0].attached_volumes[0]["id"]
    lose_volume_and_run_agents(ceph_testbed, broken, runner_stopped, tmp_path)
    _, err = run.communicate(timeout=600)
    assert run.returncode == 0, err[-3000:]  # Rally ran the task; the iteration failed
    iteration = _iteration(tmp_path)
    kind, message = iteration["error"][:2]
    assert kind == "DataPlaneError"
    assert message.startswith("1 of 2 VMs returned no fio result: c0")
    assert "prefill failed: rbd_open failed" in message
    # the other VM's figures are in the report all the same
    table = output_table(iteration, VM_TABLE_TITLE)
    rows = {row[-3]: row for row in table["data"]["rows"]}
    [failed] = [name for name, row in rows.items() if row[-1]]
    [answered] = [name for name in rows if name != failed]
    assert f"{failed} (" in message
    [fio] = (tmp_path / "kept").glob(f"*/*/heat/*/fio-{answered}.json")
    job = _job(fio)
    direction = "read" if answered == "c01" else "write"
    summed = dict(map(tuple, iteration["output"]["additive"][0]["data"]))
    assert summed[direction] == job[direction]["iops"] > 0
    assert list(conn.compute.servers(all_projects=True)) == []
    assert list(conn.block_storage.volumes(all_projects=True)) == []


def _ready_servers(conn) -> list:
    return [
        s
        for s in conn.compute.servers(all_projects=True, details=True)
        if s.status == "ACTIVE" and s.attached_volumes
    ]


def test_stacks_heat_refuses_fail_the_iteration_with_heats_answer(rally_env, tmp_path):
    run = _start_task(rally_env, tmp_path, image="no-such-image")
    _, err = run.communicate(timeout=300)
    assert run.returncode == 0, err[-3000:]
    iteration = _iteration(tmp_path)
    kind, message = iteration["error"][:2]
    assert kind == "DataPlaneError"
    assert message.startswith("2 of 2 VMs returned no fio result: c01 (")
    table = output_table(iteration, VM_TABLE_TITLE)
    errors = [row[-1] for row in table["data"]["rows"]]
    assert len(errors) == 2  # each VM with its stack's refusal
    assert all("never created" in e and "no-such-image" in e for e in errors), errors
