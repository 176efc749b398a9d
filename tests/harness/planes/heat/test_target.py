"""`volperf run heat` for real on the OpenStack testbed: stacks of heat_templates/cinder-fio
with real Cinder volumes (RBD on the Ceph testbed), each VM's agent run by the testbed's
local guest runner (the test stand-in for VMs the fake virt driver does not boot) and its
fio result returned through the real Heat; at 2 and 4 VMs, then a VM whose volume is gone,
a stack made by hand and collected, and a run killed with stacks standing."""

from __future__ import annotations

import csv
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from harness.records.fio import from_iso_time
from tests.harness.helpers import (
    doc_source_copy,
    fio_json,
    images_left,
    lose_volume_and_run_agents,
    volperf,
)
from tests.harness.planes.heat.specs import heat_spec, limited_type
from tests.harness.report.html_tables import tables_of

REPO = Path(__file__).parents[4]
TEMPLATES = REPO / "heat_templates" / "cinder-fio"


def _spec(
    work: Path, name: str, openstack_testbed, sweep: list[int], runtime: int = 5, **heat
) -> Path:
    path = work / f"{name}.yaml"
    spec = heat_spec(name, openstack_testbed.clouds_yaml, sweep, runtime, **heat)
    path.write_text(yaml.safe_dump(spec))
    return path


def _rows(path: Path) -> list[dict[str, str]]:
    with path.open() as handle:
        return list(csv.DictReader(handle))


def _nothing_left(openstack_testbed, ceph_testbed) -> None:
    conn = openstack_testbed.connection()
    # a deleted stack: Heat lists it as DELETE_COMPLETE until it marks its row deleted, a
    # moment later (seen once `volperf cleanup` had waited for that status on a busy machine)
    stacks = list(conn.orchestration.stacks())
    assert [s for s in stacks if s.status != "DELETE_COMPLETE"] == []
    assert list(conn.compute.servers(all_projects=True)) == []
    assert list(conn.block_storage.volumes(all_projects=True)) == []
    assert images_left(ceph_testbed, openstack_testbed.state) == ""


def _wait_for(what: str, check, timeout: float = 180):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = check()
        if found:
            return found
        time.sleep(1)
    raise AssertionError(f"no {what} within {timeout} s")


@pytest.fixture(scope="module")
def sweep(openstack_campaigns):
    """The sweep at 2 and 4 VMs, run beside Rally's two campaigns
    (tests/harness/planes/openstack_campaigns.py)."""
    ran = openstack_campaigns.heat_sweep
    return ran.campaign, ran.run


def test_every_vms_result_comes_back_through_heat_into_fio_csv(sweep):
    campaign, run = sweep
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    assert "2 VMs in 2 stacks" in run.stderr and "4 VMs in 2 stacks" in run.stderr
    rows = _rows(campaign / "fio.csv")
    assert [(r["concurrency"], r["consumer"], r["rw"]) for r in rows] == [
        ("2", "c01", "randread"),
        ("2", "c02", "randwrite"),
        ("4", "c01", "randread"),
        ("4", "c02", "randwrite"),
        ("4", "c03", "randread"),
        ("4", "c04", "randwrite"),
    ]
    for row in rows:
        assert not row["error"]
        step = campaign / "steps" / row["step"] / "raw"
        stack = f"volperf-heat-sweep-{row['step'][:3]}-{row['rw']}"
        # the figures are those of the fio output that came back through Heat, read with
        # nothing but json
        job = fio_json(step / "heat" / stack / f"fio-{row['consumer']}.json")["jobs"][0]
        direction = "read" if row["rw"] == "randread" else "write"
        assert float(row[f"{direction}_iops"]) == pytest.approx(job[direction]["iops"], rel=1e-6)
        assert job[direction]["io_bytes"] > 0
        assert job["job options"]["rw"] == row["rw"]
        assert job["job options"]["iodepth"] == "16"
        assert job["job options"]["ioengine"] == "rbd"  # the stand-in's substitution
    for step in sorted((campaign / "steps").iterdir()):
        assert json.loads((step / "status.json").read_text())["state"] == "done"
        stacks = json.loads((step / "raw" / "stacks.json").read_text())
        assert [s["parameters"]["prefill"] for s in stacks] == ["fio", "fio"]
        assert all(s["parameters"]["device_mode"] == "rbd" for s in stacks)


def test_the_second_step_starts_its_vms_together_at_a_shared_time(sweep):
    campaign, _ = sweep
    first, second = json.loads((campaign / "summary.json").read_text())["steps"]
    # the first step has no step before to learn the VMs' ready time from: each at once
    assert first["heat"]["start_at"] is None and first["heat"]["ready_s_max"] > 0
    # the second waits 1.5 x the first's slowest ready time + 10 s after its requests
    heat = second["heat"]
    stacks = json.loads((campaign / "steps" / second["step"] / "raw" / "stacks.json").read_text())
    assert {s["parameters"]["start_at"] for s in stacks} == {heat["start_at"]}
    window = second["window"]
    late = max(heat["late"].values(), default=0)
    if late:  # a VM that was late started at once and says by how much
        assert "late-start" in {w["code"] for w in second["warnings"]}
    else:
        # each agent's fio waited for the shared time (its prerun, fio's own hook run once
        # the job is set up, just before its I/O) and went on within a second of the
        # others, by each agent's own clock to the millisecond
        raw = campaign / "steps" / second["step"] / "raw" / "heat"
        started = {}
        for stack in stacks:
            for log in raw.glob(f"{stack['name']}/logs-c*/agent.log"):
                times = dict(field.split("=") for field in log.read_text().split())
                assert times["started"] == times["start_at"] == str(heat["start_at"]), log
                started[log.parent.name.removeprefix("logs-")] = int(times["started_ms"])
        assert len(started) == 4 and max(started.values()) - min(started.values()) < 1000, started
        # and no fio measured from before its wait ended: each start fio's output and logs
        # give is never before the real one (to the 50 ms by which fio may log a second
        # early and the agent's date took). Not their spread: fio 3.33 has no job_start,
        # so its start is estimated from its output's stamp (after its last I/Os drained)
        # and its first logged second (none for a second in which nothing completed); a
        # reader starved behind the writers on this single-OSD testbed looked 3.2 s late
        # in one suite run, 2.3 s in another, its agent and the others' saying on time.
        for row in _rows(campaign / "fio.csv"):
            if row["step"] == second["step"]:
                assert from_iso_time(row["starttime"]) >= started[row["consumer"]] - 50, row
    # they ran together: the common window, from the VMs' own per-second logs, covers the
    # 10 s runs but for the spread of their first logged seconds (which a starved reader
    # makes late, as above) and a late VM's lateness, to the second of the logs. The
    # whole-run overlap also counts each VM's last I/Os draining past its runtime: on this
    # single-OSD testbed a reader starved by the writers drained for 1.4 s, which alone
    # puts it near 87 %.
    spread = window.get("start_spread_s")
    if spread is None:  # no second when all ran: only a VM late past the 10 s run explains it
        assert window["seconds"] == 0 and late >= 10 - 1, (window, heat["late"])
        assert window["read"] is window["write"] is None  # no figures of a window of none
    else:
        assert window["seconds"] > 10 - spread - late - 1, window
        assert window["read"]["consumers"] == window["write"]["consumers"] == 2
    # volperf's own requests to the cloud: two stacks made, polled, read and deleted
    assert second["cost"]["api_calls"]["openstack"] > 8, second["cost"]
    logs = campaign / "steps" / second["step"] / "raw" / "heat" / stacks[0]["name"] / "logs-c01"
    assert (logs / "agent.log").read_text().startswith("ready=")
    assert sorted(p.name for p in logs.glob("*_iops.*.log")) == ["volperf-randread_iops.1.log"]


def test_create_times_are_events_and_the_page_holds_every_vm(sweep, tmp_path):
    campaign, _ = sweep
    events = _rows(campaign / "events.csv")
    per_vm = [(e["step"][:3], e["consumer"], e["event"]) for e in events if e["consumer"]]
    for step, vms in (("001", 2), ("002", 4)):
        for vm in range(1, vms + 1):
            for kind in ("volume-create", "server-create", "volume-attach", "agent-result"):
                assert (step, f"c{vm:02d}", f"heat {kind}") in per_vm
    stacks = [e for e in events if e["event"] == "heat stack-create"]
    assert len(stacks) == 4 and all(float(e["seconds"]) > 0 for e in stacks)
    summary = json.loads((campaign / "summary.json").read_text())
    assert [s["heat"]["vms"] for s in summary["steps"]] == [2, 4]
    doc = doc_source_copy(tmp_path)
    built = volperf(
        "report",
        str(campaign),
        "--doc-source",
        str(doc),
        "--build",
        str(tmp_path / "html"),
        cwd=tmp_path,
        timeout=600,
    )
    assert built.returncode == 0, built.stderr[-3000:]
    page = (doc / "test_results" / "heat-sweep" / "index.rst").read_text()
    assert "TEST STAND-IN" in page
    tables = tables_of(tmp_path / "html" / "test_results" / "heat-sweep" / "index.html")
    header, *shown = tables["Per VM"]
    assert header == ["VMs", "VM", "rw", "IOPS", "MiB/s", "mean ms", "p95 ms", "error"]
    fio_rows = _rows(campaign / "fio.csv")
    assert len(shown) == len(fio_rows) == 6
    for cells, row in zip(shown, fio_rows, strict=True):
        iops = row["read_iops"] if row["rw"] == "randread" else row["write_iops"]
        assert cells[:3] == [row["concurrency"], row["consumer"], row["rw"]]
        assert cells[3] == f"{float(iops):.0f}"
    assert [r[2] for r in tables["VMs through Heat"][1:]] == ["2 of 2", "4 of 4"]


def test_nothing_is_left_behind(sweep, openstack_testbed, ceph_testbed):
    campaign, _ = sweep
    created = json.loads((campaign / "created.json").read_text())
    assert created == {}
    _nothing_left(openstack_testbed, ceph_testbed)


def _cloud_env(openstack_testbed) -> dict[str, str]:
    return {**os.environ, "OS_CLIENT_CONFIG_FILE": str(openstack_testbed.clouds_yaml)}


def _ready_servers(conn, prefix: str, count: int):
    servers = [
        s
        for s in conn.compute.servers(all_projects=True, details=True)
        if s.name.startswith(prefix) and s.status == "ACTIVE" and s.attached_volumes
    ]
    return servers if len(servers) == count else None


def test_a_vm_whose_volume_is_gone_fails_with_its_error_and_the_other_keeps_its_result(
    tmp_path, openstack_testbed, ceph_testbed, runner_stopped
):
    spec = _spec(tmp_path, "heat-broken", openstack_testbed, [2])
    cli = [
        sys.executable,
        "-m",
        "harness.cli",
        "run",
        "heat",
        str(spec),
        "--results",
        str(tmp_path / "results"),
    ]
    run = subprocess.Popen(
        cli, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    conn = openstack_testbed.connection()
    servers = _wait_for(
        "ACTIVE servers with their volumes",
        lambda: _ready_servers(conn, "volperf-heat-broken-001", 2),
    )
    writer = next(s for s in servers if "randwrite" in s.name)
    lose_volume_and_run_agents(
        ceph_testbed, writer.attached_volumes[0]["id"], runner_stopped, tmp_path
    )
    out, err = run.communicate(timeout=600)
    assert run.returncode == 1, out[-2000:] + err[-3000:]
    campaign = tmp_path / "results" / "heat-broken"
    reader, broken = _rows(campaign / "fio.csv")
    assert reader["rw"] == "randread" and not reader["error"]
    assert float(reader["read_iops"]) > 0
    assert broken["rw"] == "randwrite" and float(broken["write_iops"]) == 0
    assert "volperf agent: prefill failed: rbd_open failed" in broken["error"]
    [step] = (campaign / "steps").iterdir()
    status = json.loads((step / "status.json").read_text())
    assert status["state"] == "failed"
    assert status["error"].startswith("1 of 2 VMs returned no result: c02")
    assert "c02 (c02-randwrite): VM stack CREATE_FAILED" in err
    _nothing_left(openstack_testbed, ceph_testbed)


def test_collect_imports_a_stack_made_by_hand(tmp_path, openstack_testbed, ceph_testbed):
    """Its volumes are of a type with a front-end QoS limit, which fio on their RBD images
    from the host (the testbed's stand-in) does not go through: volperf keeps the limits
    and says they were asked for but not applied."""
    openstack = [str(Path(sys.executable).with_name("openstack")), "--os-cloud", "volperf-testbed"]
    parameters = (
        "image=tiny;flavor=tiny;device_mode=rbd;vm_count=2;test_runtime=3;"
        "test_filesize=32M;test_rw=randwrite;volume_size=1;test_iodepth=8;"
        "volume_type=by-hand-limited"
    )
    env = _cloud_env(openstack_testbed)
    with limited_type(openstack_testbed.connection(), "by-hand-limited", {"total_iops_sec": "100"}):
        _collect_a_stack_made_by_hand(tmp_path, openstack_testbed, openstack, parameters, env)
    _nothing_left(openstack_testbed, ceph_testbed)


def _collect_a_stack_made_by_hand(tmp_path, openstack_testbed, openstack, parameters, env):
    made = subprocess.run(
        [
            *openstack,
            "stack",
            "create",
            "-t",
            "main.yaml",
            "--parameter",
            parameters,
            "--wait",
            "by-hand",
        ],
        cwd=TEMPLATES,
        text=True,
        capture_output=True,
        env=env,
        timeout=600,
    )
    try:
        assert made.returncode == 0, made.stderr[-2000:]
        collected = volperf(
            "collect",
            "heat",
            "--stack",
            "by-hand",
            "--clouds-yaml",
            str(openstack_testbed.clouds_yaml),
            "--results",
            str(tmp_path / "results"),
            cwd=tmp_path,
        )
        assert collected.returncode == 0, collected.stderr[-3000:]
        rows = _rows(tmp_path / "results" / "heat-by-hand" / "fio.csv")
        assert [(r["consumer"], r["rw"], r["iodepth"], r["bs"]) for r in rows] == [
            ("c01", "randwrite", "8", "4k"),
            ("c02", "randwrite", "8", "4k"),
        ]
        assert all(float(r["write_iops"]) > 0 for r in rows)
        campaign = tmp_path / "results" / "heat-by-hand"
        (step,) = json.loads((campaign / "summary.json").read_text())["steps"]
        for consumer in ("c01", "c02"):
            kept = step["heat"]["qos"][consumer]
            assert kept["volume_type"] == "by-hand-limited"
            assert (kept["qos_consumer"], kept["limits"]) == ("front-end", {"total_iops_sec": 100})
        (raw,) = (campaign / "steps").glob("*/raw/heat/by-hand/qos.json")
        assert json.loads(raw.read_text())["c01"]["qos_specs"]["specs"] == {"total_iops_sec": "100"}
        bypassed = [w for w in step["warnings"] if w["code"] == "qos-bypassed"]
        assert bypassed and bypassed[0]["message"].startswith(
            "c01, c02: front-end QoS limits asked"
        )
        assert "front-end QoS limits asked but not applied" in collected.stdout + collected.stderr
        still = subprocess.run(
            [*openstack, "stack", "show", "by-hand", "-f", "value", "-c", "stack_status"],
            text=True,
            capture_output=True,
            env=env,
            timeout=120,
        )
        assert still.stdout.strip() == "CREATE_COMPLETE"  # not volperf's: left alone
    finally:
        subprocess.run(
            [*openstack, "stack", "delete", "-y", "--wait", "by-hand"],
            env=env,
            timeout=600,
            capture_output=True,
        )


def test_a_killed_run_leaves_stacks_that_cleanup_removes(
    tmp_path, openstack_testbed, ceph_testbed, runner_stopped
):
    spec = _spec(tmp_path, "heat-killed", openstack_testbed, [2])
    cli = [
        sys.executable,
        "-m",
        "harness.cli",
        "run",
        "heat",
        str(spec),
        "--results",
        str(tmp_path / "results"),
    ]
    run = subprocess.Popen(cli, cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    conn = openstack_testbed.connection()
    _wait_for("the stacks' servers", lambda: _ready_servers(conn, "volperf-heat-killed", 2))
    run.send_signal(signal.SIGKILL)
    run.wait()
    campaign = tmp_path / "results" / "heat-killed"
    noted = json.loads((campaign / "created.json").read_text())
    assert sorted(k for k in noted if k.startswith("heat-stack:")) == [
        "heat-stack:volperf-testbed:volperf-heat-killed-001-randread",
        "heat-stack:volperf-testbed:volperf-heat-killed-001-randwrite",
    ]
    assert len(list(conn.orchestration.stacks())) == 2
    # one stack's note lost: the campaign's tag still finds it
    del noted["heat-stack:volperf-testbed:volperf-heat-killed-001-randwrite"]
    (campaign / "created.json").write_text(json.dumps(noted))
    cleaned = volperf("cleanup", str(campaign), cwd=tmp_path, timeout=900)
    assert cleaned.returncode == 0, cleaned.stderr[-3000:]
    for rw in ("randread", "randwrite"):
        assert f"stack volperf-heat-killed-001-{rw}" in cleaned.stderr
    assert json.loads((campaign / "created.json").read_text()) == {}
    _nothing_left(openstack_testbed, ceph_testbed)


def test_ctrl_c_deletes_the_stacks_and_the_step_is_interrupted(
    tmp_path, openstack_testbed, ceph_testbed, runner_stopped
):
    spec = _spec(tmp_path, "heat-stopped", openstack_testbed, [2])
    cli = [
        sys.executable,
        "-m",
        "harness.cli",
        "run",
        "heat",
        str(spec),
        "--results",
        str(tmp_path / "results"),
    ]
    run = subprocess.Popen(
        cli, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    conn = openstack_testbed.connection()
    _wait_for("the stacks' servers", lambda: _ready_servers(conn, "volperf-heat-stopped", 2))
    run.send_signal(signal.SIGINT)  # what Ctrl-C sends
    out, err = run.communicate(timeout=600)
    assert run.returncode == 130, err[-3000:]
    campaign = tmp_path / "results" / "heat-stopped"
    [step] = (campaign / "steps").iterdir()
    status = json.loads((step / "status.json").read_text())
    assert status["state"] == "interrupted" and "the stacks were deleted" in status["error"]
    assert json.loads((campaign / "created.json").read_text()) == {}
    _nothing_left(openstack_testbed, ceph_testbed)
