"""`volperf run rally` for real: the control-plane task swept at concurrency 2 and 4 on the
OpenStack testbed (Cinder on the Ceph testbed; at once with the lifecycle campaigns of
tests/rally_plugins/scenarios/test_volumes.py and a Heat sweep: openstack_campaigns.py),
rally.csv checked against Rally's own statistics and against a recomputation from the raw
iterations, the report page built, nothing left in the cloud; and a data-plane task killed
mid-run whose leftovers (its stacks, their VMs and volumes, and a snapshot, a backup and an
image planted in its project) `volperf cleanup` removes."""

from __future__ import annotations

import csv
import json
import os
import signal
import subprocess
import sys
import time
from concurrent.futures import Future
from pathlib import Path

import pytest
import yaml

from harness.core.spec import validate
from harness.core.store import CampaignStore
from harness.host.process import command_line
from harness.planes.rally.cleanup import inside_project, name_matcher, owner_ids, remove_noted
from harness.planes.rally.records import load_export, workloads
from harness.planes.rally.target import RallyTarget
from harness.report.render import build_html
from tests.harness.helpers import doc_source_copy, heat_stacks, images_left, volperf
from tests.harness.planes.openstack_campaigns import POLL_S
from tests.harness.planes.rally.expected import check_rally_csv
from tests.harness.report.html_tables import tables_of

REPO = Path(__file__).parents[4]
SCENARIOS = {
    "CinderVolumes.create_and_attach_volume",
    "NovaServers.boot_server_from_volume_and_delete",
}


@pytest.fixture(scope="module")
def rally_state(tmp_path_factory):
    """volperf's Rally database for these tests only ($VOLPERF_STATE/rally)."""
    state = tmp_path_factory.mktemp("volperf-state")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("VOLPERF_STATE", str(state))
        yield state


def _spec(work: Path, name: str, openstack_testbed, ceph_testbed, **workload) -> Path:
    spec = {
        "name": name,
        "target": {
            "type": "openstack",
            "cloud": "volperf-testbed",
            "clouds_yaml": str(openstack_testbed.clouds_yaml),
            "ceph_conf": str(ceph_testbed.conf),
            "health_interval": 1,
        },
        "workloads": [
            {
                "name": "control-plane",
                "tool": "rally",
                "task": "control-plane",
                "poll_interval": POLL_S,  # as the sweep's
                **workload,
            }
        ],
        "sweep": [2, 4],
    }
    path = work / f"{name}.yaml"
    path.write_text(yaml.safe_dump(spec))
    return path


@pytest.fixture(scope="module")
def sweep(openstack_campaigns):
    """The sweep, run beside the lifecycle campaigns and a Heat sweep
    (tests/harness/planes/openstack_campaigns.py)."""
    ran = openstack_campaigns.sweep
    return ran.campaign, ran.run, ran.seconds


def _steps(campaign: Path) -> list[Path]:
    return sorted(p for p in (campaign / "steps").iterdir() if p.is_dir())


def test_each_concurrency_is_a_step_with_rallys_reports(sweep):
    campaign, run, seconds = sweep
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    steps = _steps(campaign)
    assert [p.name for p in steps] == ["001-control-plane-c002-r1", "002-control-plane-c004-r1"]
    for step, concurrency in zip(steps, (2, 4), strict=True):
        assert json.loads((step / "status.json").read_text())["state"] == "done"
        raw = step / "raw"
        assert (raw / "report.html").stat().st_size > 100_000  # carries its own scripts
        document = load_export(raw / "rally.json")
        runners = [next(iter(w["runner"].values())) for _, w in workloads(document)]
        assert runners == [{"times": concurrency, "concurrency": concurrency}] * 2
        # the owners in the names of what the task made, as the runner handed them over
        noted = json.loads((raw / "rally-task.json").read_text())
        owners = [w["uuid"] for _, w in workloads(document)] + [noted["uuid"]]
        assert noted["owners"] == owners
        # each step's runner started ahead (the first at the campaign's preparation, the
        # second at the first's end): Rally loaded before its command came, or meanwhile
        assert set(noted["warm"]) == {"loaded_s", "idle_s"}, noted
        samples = [
            json.loads(line) for line in (raw / "ceph-health.jsonl").read_text().splitlines()
        ]
        assert samples and all("status" in s for s in samples)
    assert "campaign rally-sweep: Rally" in run.stdout + run.stderr
    print(f"sweep c=2,4 (beside the lifecycle campaigns) took {seconds:.0f} s")


def test_rally_csv_equals_rallys_own_table_and_the_raw_iterations(sweep):
    campaign, _, _ = sweep
    checked = check_rally_csv(campaign)
    assert checked == 2 * (7 + 4)  # per step: 6 actions + total, 3 actions + total


def test_report_page_shows_the_table_per_concurrency_and_plots(
    sweep, openstack_campaigns, tmp_path
):
    campaign, _, _ = sweep
    source = doc_source_copy(tmp_path)
    done = volperf("report", str(campaign), "--doc-source", str(source), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    page_dir = source / "test_results" / "rally-sweep"
    for stem in ("r1-rally", "r2-rally"):
        assert (page_dir / f"{stem}.png").stat().st_size > 5000
    assert (page_dir / "rally-001-control-plane-c002-r1.html").exists()
    html = tmp_path / "html"
    built = build_html(source, html)
    assert built.returncode == 0, built.stderr
    tables = tables_of(html / "test_results" / "rally-sweep" / "index.html")
    # what Rally said of any failed iteration (the step's warnings), for the message
    steps = json.loads((campaign / "summary.json").read_text())["steps"]
    said = [w["message"] for s in steps for w in s["warnings"]] + openstack_campaigns.service_errors
    for scenario in SCENARIOS:
        for concurrency in (2, 4):
            table = tables[
                f"Response times, {scenario}, {concurrency} iterations (concurrency {concurrency})"
            ]
            assert table[0][0] == "Action" and table[-3][0] == "total"
            assert table[-3][-1] == str(concurrency) and table[-3][-2] == "100.0%", said


def test_nothing_is_left_in_the_cloud_and_no_credentials_in_the_campaign(
    sweep, openstack_testbed, ceph_testbed
):
    campaign, _, _ = sweep
    conn = openstack_testbed.connection()
    assert list(conn.compute.servers(all_projects=True)) == []
    assert list(conn.block_storage.volumes(all_projects=True)) == []
    assert not [p.name for p in conn.identity.projects() if "rally" in p.name]
    created = campaign / "created.json"
    assert not created.exists() or json.loads(created.read_text()) == {}
    passwords = json.loads((openstack_testbed.state / "testbed.json").read_text())["passwords"]
    for path in campaign.rglob("*"):
        if path.is_file():
            text = path.read_text(errors="replace")
            assert passwords["admin"] not in text, path


def test_the_volperf_exporter_writes_the_same_table(sweep, openstack_campaigns, tmp_path):
    campaign, _, _ = sweep
    step = _steps(campaign)[1]
    uuid = json.loads((step / "raw" / "rally-task.json").read_text())["uuid"]
    rally = [
        str(Path(sys.executable).with_name("rally")),
        "--config-file",
        str(openstack_campaigns.sweep.state / "rally" / "rally.conf"),
    ]
    listed = subprocess.run(
        [*rally, "plugin", "list", "volperf"], capture_output=True, text=True, timeout=120
    )
    for plugin in (
        "volperf_ceph_health",
        "volperf_action_percentile",
        "volperf_regression",
        "volperf",
    ):
        assert plugin in listed.stdout
    exported = subprocess.run(
        [
            *rally,
            "task",
            "export",
            "--uuid",
            uuid,
            "--type",
            "volperf",
            "--to",
            str(tmp_path / "exported"),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert exported.returncode == 0, exported.stderr[-2000:]
    figures = (
        "action",
        "min_s",
        "median_s",
        "p90_s",
        "p95_s",
        "max_s",
        "avg_s",
        "success_pct",
        "count",
        "scenario",
        "concurrency",
        "task",
    )

    def table(path: Path, step_name: str | None) -> list[tuple[str, ...]]:
        with path.open() as handle:
            return [
                tuple(r[k] for k in figures)
                for r in csv.DictReader(handle)
                if step_name is None or r["step"] == step_name
            ]

    assert table(tmp_path / "exported" / "rally.csv", None) == table(
        campaign / "rally.csv", step.name
    )
    again = volperf(
        "report",
        str(tmp_path / "exported"),
        "--doc-source",
        str(doc_source_copy(tmp_path)),
        cwd=tmp_path,
    )
    assert again.returncode == 0, again.stderr


def test_cleanup_uses_the_owners_the_runner_noted_and_says_when_it_has_none(
    tmp_path, openstack_testbed
):
    """A note with its owners needs no Rally database; one without, whose database does
    not know the task, is kept and named."""
    store = CampaignStore(tmp_path / "campaign")
    store.root.mkdir()
    note = {
        "kind": "rally-task",
        "cloud": "volperf-testbed",
        "clouds_yaml": str(openstack_testbed.clouds_yaml),
        "rally_dir": str(tmp_path / "no-rally-db"),
    }
    store.record_created("rally-task:a", uuid="a", owners=[], **note)
    store.record_created("rally-task:b", uuid="b", **note)
    said = remove_noted(store, store.created())
    [line] = said
    assert line.startswith("NOT removed: what Rally task b left in cloud volperf-testbed")
    assert "has no task b" in line
    assert list(store.created()) == ["rally-task:b"]


def _checked(found_nothing: bool | None) -> Future[bool]:
    check: Future[bool] = Future()
    if found_nothing is None:
        check.set_exception(ConnectionError("the cloud did not answer"))
    else:
        check.set_result(found_nothing)
    return check


def test_a_task_whose_check_found_nothing_left_is_done_with_at_the_campaigns_end(tmp_path):
    """The check the target started once a task's owners were noted: nothing left, the
    note goes; something left, or no answer, the note stays for the removers."""
    spec = validate(
        {
            "name": "checked",
            "sweep": [1],
            "target": {"type": "openstack", "cloud": "volperf-testbed"},
            "workloads": [{"name": "cp", "tool": "rally"}],
        }
    )
    target = RallyTarget(spec, rally_dir=tmp_path / "rally")
    store = CampaignStore(tmp_path / "campaign")
    store.root.mkdir()
    outcomes = {"rally-task:clean": True, "rally-task:left": False, "rally-task:away": None}
    for key, found_nothing in outcomes.items():
        store.record_created(key, kind="rally-task", uuid=key, owners=["o"])
        target.checks[key] = _checked(found_nothing)
    assert target.cleanup(store) == []
    assert sorted(store.created()) == ["rally-task:away", "rally-task:left"]
    assert target.checks == {}


def _runners(volperf_pid: int) -> list[int]:
    """The Rally runners this volperf started (its step's, started ahead: its command
    line ``--warm``), each the leader of its own process group with the processes Rally
    forked for its iterations."""
    children = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            ppid = int(stat.read_text().rpartition(")")[2].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        pid = int(stat.parent.name)
        if ppid == volperf_pid and "harness.planes.rally.runner" in command_line(pid):
            children.append(pid)
    return children


def _leftovers(conn, state: Path) -> list[str]:
    storage = conn.block_storage
    return (
        [s.name for s in conn.compute.servers(all_projects=True)]
        + [v.id for v in storage.volumes(all_projects=True)]
        + [s.id for s in storage.snapshots(all_projects=True)]
        + [b.id for b in storage.backups(all_projects=True)]
        + [i.name for i in conn.image.images() if i.name != "tiny"]
        + [p.name for p in conn.identity.projects() if "rally" in p.name]
        + heat_stacks(state)
    )


def _plant(conn, project) -> None:
    """What a killed lifecycle workload would leave in the task's project: a snapshot, a
    backup and an image, made from within it (as cleanup reaches its stacks)."""
    inside = inside_project(conn, project)
    storage = inside.block_storage
    volume = next(iter(storage.volumes()))
    snapshot = storage.create_snapshot(volume_id=volume.id, name="s_rally_left", force=True)
    backup = storage.create_backup(volume_id=volume.id, name="b_rally_left", force=True)
    inside.image.create_image(
        name="i_rally_left", data=b"\0" * 512, disk_format="raw", container_format="bare"
    )
    storage.wait_for_status(snapshot, "available", wait=120)
    storage.wait_for_status(backup, "available", wait=120)


def test_a_killed_data_plane_task_leaves_stacks_and_more_that_cleanup_removes(
    tmp_path, rally_state, openstack_testbed, ceph_testbed
):
    spec = _spec(
        tmp_path,
        "rally-killed",
        openstack_testbed,
        ceph_testbed,
        task="data-plane",
        args={"runtime": 60, "size": "32M", "prefill": False},
    )
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "harness.cli",
            "run",
            "rally",
            str(spec),
            "--results",
            str(tmp_path / "results"),
        ],
        cwd=tmp_path,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    conn = openstack_testbed.connection()
    deadline = time.monotonic() + 600
    try:  # until the iteration's VMs have their volumes
        while len([s for s in conn.compute.servers(all_projects=True) if s.attached_volumes]) < 2:
            assert process.poll() is None, "the run ended before its VMs were made"
            assert time.monotonic() < deadline, "no 2 VMs with volumes within 600 s"
            time.sleep(0.5)
    finally:  # Rally's runner first (else it aborts the task and cleans up), then volperf
        campaign = tmp_path / "results" / "rally-killed"
        for pid in _runners(process.pid):
            os.killpg(pid, signal.SIGKILL)
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
    notes = json.loads((campaign / "created.json").read_text())
    [note] = [n for n in notes.values() if n["kind"] == "rally-task"]
    assert "owners" not in note  # the runner died: cleanup finds them in Rally's database
    ours = name_matcher(owner_ids(Path(note["rally_dir"]), note["uuid"]))
    [project] = [p for p in conn.identity.projects() if ours(p.name)]
    assert heat_stacks(openstack_testbed.state)  # the killed iteration's stacks
    _plant(conn, project)
    cleaned = volperf("cleanup", str(campaign), cwd=tmp_path, timeout=600)
    assert cleaned.returncode == 0, cleaned.stdout + cleaned.stderr
    said = cleaned.stdout + cleaned.stderr
    for kind in ("stack", "snapshot", "backup", "image", "project"):
        assert f"removed {kind} " in said, (kind, said)
    assert _leftovers(conn, openstack_testbed.state) == []
    assert not [u.name for u in conn.identity.users() if ours(u.name)]
    assert json.loads((campaign / "created.json").read_text()) == {}
    assert images_left(ceph_testbed, openstack_testbed.state) == ""
