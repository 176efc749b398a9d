"""Heat at 20 and 40 VMs (the reference method's largest step) through `volperf run heat`
on the OpenStack testbed: stacks of heat_templates/cinder-fio, half the VMs randread and
half randwrite, each VM's agent run by the testbed's local guest runner (a TEST STAND-IN:
Nova's fake driver boots no guest; the agent runs fio's rbd engine on the VM's Cinder
volume on this host). For each size: the stacks' create times from Heat's events, how many
agents answered, the VMs' start spread and common window (overlap), volperf's CPU seconds
and peak RSS (its whole process by wait4, and its own accounting of the step), and that
every VM has its row in fio.csv. Writes results/scale/heat-vms/ (the campaigns without
the VMs' per-second logs, and heat-vms.csv).

The OpenStack testbed (on a Ceph testbed) is conftest.py's, shared with the Rally
benchmark. The VMs wait for a shared start time (heat.start_delay, set per size below
from what the stacks took here) so that all run at once. 17 minutes on 2 cores on 2026-12-06:

    .venv/bin/python -m pytest benchmarks/scale/test_heat_vms.py -s
"""

from __future__ import annotations

import csv
import json
import sys
from dataclasses import asdict
from pathlib import Path
from typing import Any

import pytest
import yaml

from benchmarks.scale.measure import ROOT, keep_heat_campaign, run_measured, write_figures
from harness.testbeds.openstack.testbed import CLOUD

OUT = ROOT / "results" / "scale" / "heat-vms"
VMS = (20, 40)
# seconds from the stack requests to the VMs' shared start: past the slowest VM's ready
START_DELAY_S = {20: 240, 40: 420}
WORKLOAD = {
    "name": "randrw-4k",
    "rw": ["randread", "randwrite"],
    "bs": "4k",
    "iodepth": 16,
    "size": "64M",
    "runtime": 30,
    "prefill": True,
}


def heat_spec(vms: int, work: Path) -> Path:
    path = work / f"heat-vms-{vms}.yaml"
    heat = {"image": "tiny", "flavor": "tiny", "device_mode": "rbd"}
    heat |= {"start_delay": START_DELAY_S[vms], "agent_timeout": START_DELAY_S[vms] + 900}
    path.write_text(
        yaml.safe_dump(
            {
                "name": f"heat-vms-{vms}",
                "target": {"type": "openstack", "cloud": CLOUD, "heat": heat},
                "workloads": [WORKLOAD],
                "sweep": [vms],
            }
        )
    )
    return path


@pytest.mark.parametrize("vms", VMS)
def test_heat_at_scale(openstack_cloud, vms, tmp_path):
    OUT.mkdir(parents=True, exist_ok=True)
    results = tmp_path / "results"
    argv = [sys.executable, "-m", "harness.cli", "run", "heat", str(heat_spec(vms, tmp_path))]
    env = {"OS_CLIENT_CONFIG_FILE": str(openstack_cloud)}
    cost, code = run_measured(
        [*argv, "--results", str(results)], ROOT, tmp_path / "volperf.log", env, exit_codes=(0, 1)
    )
    campaign = results / f"heat-vms-{vms}"
    kept = OUT / campaign.name
    keep_heat_campaign(campaign, kept, openstack_cloud.parent)
    [step] = json.loads((campaign / "summary.json").read_text())["steps"]
    with (campaign / "fio.csv").open() as handle:
        rows = list(csv.DictReader(handle))
    heat = step["heat"]
    figures: dict[str, Any] = {
        "vms": vms,
        "exit_code": code,
        "state": step["state"],
        "error": step["error"],
        "rows": len(rows),
        "rows_failed": sum(1 for r in rows if r["error"]),
        "agents_answered": heat["vms"] - heat["vms_failed"],
        "stack_create_s": heat["create_s"],
        "ready_s_max": heat["ready_s_max"],
        "late": heat["late"],
        "start_spread_s": step["window"]["start_spread_s"],
        "common_window_s": step["window"]["seconds"],
        "read_iops_sum": (step["read"] or {}).get("iops_sum"),
        "write_iops_sum": (step["write"] or {}).get("iops_sum"),
        "volperf_step_cost": step["cost"],
        "volperf_process": asdict(cost),
    }
    write_figures(OUT / f"heat-vms-{vms}.json", figures)
    write_table()
    print(json.dumps(figures, indent=1))
    assert [r["consumer"] for r in rows] == [f"c{i:02d}" for i in range(1, vms + 1)]


def write_table() -> None:
    """heat-vms.csv: a row per size, from the figures files."""
    rows = []
    for path in sorted(OUT.glob("heat-vms-*.json"), key=lambda p: int(p.stem.rsplit("-")[-1])):
        data = json.loads(path.read_text())
        rows.append(
            {
                "vms": data["vms"],
                "rows": data["rows"],
                "rows_failed": data["rows_failed"],
                "agents_answered": data["agents_answered"],
                **{
                    f"{kind}_create_median_s": times["median"]
                    for kind, times in data["stack_create_s"].items()
                },
                "slowest_ready_s": data["ready_s_max"],
                "late": len(data["late"]),
                "start_spread_s": data["start_spread_s"],
                "common_window_s": data["common_window_s"],
                "read_iops_sum": data["read_iops_sum"],
                "write_iops_sum": data["write_iops_sum"],
                "volperf_step_cpu_s": data["volperf_step_cost"]["cpu_s"],
                "volperf_cpu_s": data["volperf_process"]["cpu_s"],
                "volperf_peak_rss_mib": data["volperf_process"]["peak_rss_mib"],
                "wall_s": data["volperf_process"]["wall_s"],
            }
        )
    fields = list(dict.fromkeys(key for row in rows for key in row))
    with (OUT / "heat-vms.csv").open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fields)
        writer.writeheader()
        writer.writerows(rows)
