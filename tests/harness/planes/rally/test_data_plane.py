"""A data-plane task's fio.csv rows, from a task run by plain Rally (its report's table of
every VM, a captured fixture), and from `volperf run rally` of
rally_plugins/tasks/data-plane.yaml on the OpenStack testbed:
the step's concurrency is the VM count, the runner has every iteration keep its VMs'
answers under raw/data-plane/, and the step's fio.csv has a row per VM per iteration equal
to the VM's own fio JSON (read with the json module), beside Rally's actions in rally.csv
and Heat's create times in events.csv."""

from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path

import pytest
import yaml

from harness.planes.rally.data_plane import data_plane_parts
from harness.planes.rally.runner import JSON_REPORT
from harness.records.aggregate import Warning
from rally_plugins.scenarios.fio_output import warnings_table
from tests.harness.helpers import fio_json, volperf
from tests.harness.planes.openstack_campaigns import POLL_S

FIXTURE = Path(__file__).parent / "fixtures" / "data-plane-task"


def test_a_task_run_by_plain_rally_gives_a_row_per_vm_from_its_reports_table(tmp_path):
    shutil.copy(FIXTURE / "rally.json", tmp_path / JSON_REPORT)
    records = data_plane_parts(tmp_path, "s1", "openstack:testbed").fio_records
    assert len(records) == 2 * 2 + 2 * 4
    for record in records:
        subtask = 1 if record.context.concurrency == 2 else 2
        iteration = f"iteration-{record.context.repeat:04d}"
        path = (
            FIXTURE / "kept" / f"subtask-{subtask}" / iteration / f"{record.context.consumer}.json"
        )
        [job] = fio_json(path)["jobs"]
        direction = "read" if record.context.role == "reader" else "write"
        assert record.context.rw == f"rand{direction}" and job["jobname"].endswith(direction)
        assert record.jobname == f"{record.context.consumer}-rand{direction}"
        assert getattr(record, "write" if direction == "read" else "read") is None
        figures, theirs = getattr(record, direction), job[direction]
        assert figures.iops == pytest.approx(theirs["iops"], abs=5e-7)
        assert figures.bandwidth == theirs["bw"]
        assert figures.complelatency_mean == pytest.approx(
            theirs["clat_ns"]["mean"] / 1e6, abs=5e-7
        )
        p99 = theirs["clat_ns"]["percentile"]["99.000000"] / 1e6
        assert figures.complelatency_p99 == pytest.approx(p99, abs=5e-7)
        assert figures.clat_bins_ns is None  # the table has no histograms
        assert (record.context.bs, record.context.iodepth) == ("4k", 4)
        assert record.stop_ms - record.start_ms == pytest.approx(job["job_runtime"], abs=1)


def test_the_heat_steps_warnings_of_each_iteration_come_from_its_table(tmp_path):
    """What a plain Rally task's report says of its iterations: the Heat step's warnings,
    each once per iteration, named by it; the figures' own are volperf's to make again."""
    document = json.loads((FIXTURE / "rally.json").read_text())
    [workload] = document["tasks"][0]["subtasks"][0]["workloads"]  # the 2-VM one
    step = [Warning("unwritten-volumes", "s_rally_1: never written")]
    figures = [Warning("low-overlap", "consumers ran together for only 50%")]
    for iteration in workload["data"]:
        iteration["output"]["complete"].append(warnings_table(step * 2, figures))
    (tmp_path / JSON_REPORT).write_text(json.dumps(document))
    warnings = data_plane_parts(tmp_path, "s1", "openstack:testbed").warnings
    assert [(w.code, w.message) for w in warnings] == [
        ("unwritten-volumes", f"iteration {n}: s_rally_1: never written")
        for n in range(1, len(workload["data"]) + 1)
    ]


def _rows(path: Path) -> list[dict[str, str]]:
    with path.open(newline="") as handle:
        return list(csv.DictReader(handle))


def test_a_rally_step_of_the_data_plane_has_a_fio_row_per_vm(
    tmp_path, openstack_testbed, monkeypatch
):
    monkeypatch.setenv("VOLPERF_STATE", str(tmp_path / "state"))
    args = {"runtime": 3, "size": "32M", "iodepth": 4, "prefill": False}
    spec = tmp_path / "dp.yaml"
    spec.write_text(
        yaml.safe_dump(
            {
                "name": "rally-data-plane",
                "target": {"type": "openstack", "clouds_yaml": str(openstack_testbed.clouds_yaml)},
                "workloads": [
                    {
                        "name": "vms",
                        "tool": "rally",
                        "task": "data-plane",
                        "args": args,
                        "poll_interval": POLL_S,
                    }
                ],
                "sweep": [2],
            }
        )
    )
    done = volperf("run", "rally", str(spec), "--results", "results", cwd=tmp_path, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    campaign = tmp_path / "results" / "rally-data-plane"
    [raw] = campaign.glob("steps/*/raw")
    [iteration] = (raw / "data-plane" / "subtask-1").iterdir()
    assert iteration.name == "iteration-0001"
    rows = _rows(campaign / "fio.csv")
    assert [(r["consumer"], r["role"], r["rw"]) for r in rows] == [
        ("c01", "reader", "randread"),
        ("c02", "writer", "randwrite"),
    ]
    for row in rows:
        [path] = iteration.glob(f"heat/*/fio-{row['consumer']}.json")
        [job] = fio_json(path)["jobs"]
        direction = "read" if row["role"] == "reader" else "write"
        assert float(row[f"{direction}_iops"]) == job[direction]["iops"] > 0
        assert (row["concurrency"], row["repeat"], row["bs"], row["iodepth"]) == (
            "2",
            "1",
            "4k",
            "4",
        )
        assert not row["error"]
    [step] = json.loads((campaign / "summary.json").read_text())["steps"]
    [unwritten] = [w for w in step["warnings"] if w["code"] == "unwritten-volumes"]
    assert (
        unwritten["message"].startswith("iteration 1: ")
        and "prefill: false" in unwritten["message"]
    )
    actions = {r["action"] for r in _rows(campaign / "rally.csv")}
    assert {"heat.create_stack", "volperf.results", "heat.delete_stack"} <= actions
    events = {r["event"] for r in _rows(campaign / "events.csv")}
    assert {"heat volume-create", "heat agent-result"} <= events
    conn = openstack_testbed.connection()
    assert list(conn.compute.servers(all_projects=True)) == []
