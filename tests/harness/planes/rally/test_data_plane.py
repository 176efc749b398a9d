"""`volperf run rally` of rally_plugins/tasks/data-plane.yaml on the OpenStack testbed:
the step's concurrency is the VM count, the runner has every iteration keep its VMs'
answers under raw/data-plane/, and the step's fio.csv has a row per VM per iteration equal
to the VM's own fio JSON (read with the json module), beside Rally's actions in rally.csv
and Heat's create times in events.csv."""

from __future__ import annotations

import csv
from pathlib import Path

import yaml

from tests.harness.helpers import fio_json, volperf


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
                "workloads": [{"name": "vms", "tool": "rally", "task": "data-plane", "args": args}],
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
    actions = {r["action"] for r in _rows(campaign / "rally.csv")}
    assert {"heat.create_stack", "volperf.results", "heat.delete_stack"} <= actions
    events = {r["event"] for r in _rows(campaign / "events.csv")}
    assert {"heat volume-create", "heat agent-result"} <= events
    conn = openstack_testbed.connection()
    assert list(conn.compute.servers(all_projects=True)) == []
