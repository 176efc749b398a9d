"""The capacity search on the Heat plane: how many VMs, each asked for RATE_IOPS random 4k
writes a second (Poisson arrivals), does the OpenStack testbed's Cinder on Ceph hold with
p99 <= P99_MS and every VM at >= ACHIEVED_PCT of its rate? `volperf run heat` of a spec
whose sweep is a search: 1, 2, 4 … VMs while every step meets the objective, then
bisection between the last count that met it and the first that did not, up to MAX_VMS.
Each VM's agent is run by the testbed's local guest runner (a TEST STAND-IN: Nova's fake
driver boots no guest; the agent runs fio's rbd engine on the VM's Cinder volume on this
host), so the answer is the testbed's Ceph behind Cinder and Heat, not a guest's.

Writes results/scale/heat-capacity/: the campaign without the VMs' per-second fio logs
(each step's pace, read from them, is in summary.json), heat-capacity.json (the answer,
every step tried, volperf's own cost) and heat-capacity.csv (a row per step tried). The
OpenStack testbed (on a Ceph testbed) is conftest.py's. 8 minutes on 2 cores on 2026-12-06:

    .venv/bin/python -m pytest benchmarks/scale/test_heat_capacity.py -s
"""

from __future__ import annotations

import csv
import json
import sys
from dataclasses import asdict
from pathlib import Path
from typing import Any

import yaml

from benchmarks.scale.measure import ROOT, keep_heat_campaign, run_measured, write_figures
from harness.testbeds.openstack.testbed import CLOUD

OUT = ROOT / "results" / "scale" / "heat-capacity"
NAME = "heat-capacity"
RATE_IOPS = 1000
P99_MS = 20
ACHIEVED_PCT = 95
MAX_VMS = 16
WORKLOAD = {
    "name": "tenants",
    "rw": "randwrite",
    "bs": "4k",
    "iodepth": 8,  # room for a VM's writes to queue when the cluster is slow
    "size": "64M",
    "runtime": 20,  # 20,000 writes a VM
    "prefill": True,
    "rate_iops": RATE_IOPS,
    "rate_process": "poisson",
}


def capacity_spec(work: Path) -> Path:
    path = work / f"{NAME}.yaml"
    heat = {"image": "tiny", "flavor": "tiny", "device_mode": "rbd"}
    search = {"p99_ms": P99_MS, "achieved_pct": ACHIEVED_PCT}
    spec = {
        "name": NAME,
        "target": {"type": "openstack", "cloud": CLOUD, "heat": heat},
        "workloads": [WORKLOAD],
        "sweep": {"start": 1, "max": MAX_VMS, "search": search},
    }
    path.write_text(yaml.safe_dump(spec, sort_keys=False))
    return path


def test_heat_capacity_search(openstack_cloud, tmp_path):
    OUT.mkdir(parents=True, exist_ok=True)
    results = tmp_path / "results"
    argv = [sys.executable, "-m", "harness.cli", "run", "heat", str(capacity_spec(tmp_path))]
    env = {"OS_CLIENT_CONFIG_FILE": str(openstack_cloud)}
    cost, code = run_measured(
        [*argv, "--results", str(results)], ROOT, tmp_path / "volperf.log", env, exit_codes=(0, 1)
    )
    campaign = results / NAME
    kept = OUT / NAME
    keep_heat_campaign(campaign, kept, openstack_cloud.parent)
    summary = json.loads((campaign / "summary.json").read_text())
    [found] = summary["capacity"]
    steps = {step["step"]: step for step in summary["steps"]}
    trials = []
    for trial in found["trials"]:
        step = steps[trial["step"]]
        trials.append(
            {
                **trial,
                "state": step["state"],
                "stack_create_s_median": step["heat"]["create_s"]["stack-create"]["median"],
                "late": len(step["heat"]["late"]),
                "start_spread_s": step["window"]["start_spread_s"],
                "common_window_s": step["window"]["seconds"],
                "volperf_step_cpu_s": step["cost"]["cpu_s"],
            }
        )
    figures: dict[str, Any] = {
        "rate_iops": RATE_IOPS,
        "p99_ms": P99_MS,
        "achieved_pct": ACHIEVED_PCT,
        "max_vms": MAX_VMS,
        "exit_code": code,
        "answer": found["answer"],
        "consumers": found["consumers"],
        "first_failing": found["first_failing"],
        "done": found["done"],
        "warnings": found["warnings"],
        "trials": trials,
        "volperf_process": asdict(cost),
    }
    write_figures(OUT / f"{NAME}.json", figures)
    write_table(trials)
    print(json.dumps(figures, indent=1))
    assert found["done"], found
    assert [t["count"] for t in found["trials"]][:2] == [1, 2]  # doubling from the start
    for trial in trials:  # every VM of every step ran and has its figures
        step = steps[trial["step"]]
        assert step["heat"]["vms"] == trial["count"] and not step["heat"]["vms_failed"], trial


TABLE = {  # heat-capacity.csv's columns: a trial's key, in the order the search tried them
    "vms": "count",
    "met": "met",
    "p99_ms": "p99_ms",
    "p50_ms": "p50_ms",
    "worst_achieved_pct": "worst_achieved_pct",
    "achieved_iops": "achieved_iops",
    "most_behind_s": "most_behind_s",
    "stack_create_median_s": "stack_create_s_median",
    "late": "late",
    "start_spread_s": "start_spread_s",
    "common_window_s": "common_window_s",
    "volperf_step_cpu_s": "volperf_step_cpu_s",
    "why": "why",
}


ROUNDED = {  # a column -> how its figures are shown (the JSON keeps them whole)
    "p99_ms": lambda ms: f"{ms:.3g}",
    "p50_ms": lambda ms: f"{ms:.3g}",
    "achieved_iops": lambda iops: f"{iops:.0f}",
}


def write_table(trials: list[dict[str, Any]]) -> None:
    def cell(column: str, value: Any) -> Any:
        shown = ROUNDED.get(column)
        return value if shown is None or value is None else shown(value)

    with (OUT / f"{NAME}.csv").open("w", newline="") as handle:
        writer = csv.DictWriter(handle, list(TABLE))
        writer.writeheader()
        writer.writerows(
            {column: cell(column, trial[key]) for column, key in TABLE.items()} for trial in trials
        )
