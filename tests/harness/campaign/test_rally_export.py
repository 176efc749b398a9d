"""A Rally task exported as a campaign (`rally task export --type volperf`): a data-plane
task run by plain Rally (a captured fixture) becomes one step per VM count whose fio
figures are each iteration's own aggregate, averaged over the iterations, and whose page
has the fio tables; two such campaigns compare VM count by VM count, fio's figures beside
Rally's actions; a data-plane task will not share a campaign with other scenarios."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from harness.campaign.rally_export import write_campaign
from harness.core.store import CampaignError
from harness.planes.rally.runner import DATA_PLANE_SCENARIO, HTML_REPORT
from harness.records.compare import compare_campaigns
from harness.report.data import load
from harness.report.render import write_report
from tests.harness.helpers import fio_json, rally_report_workloads

RALLY = Path(__file__).parents[1] / "planes" / "rally" / "fixtures"
FIXTURE = RALLY / "data-plane-task"


def _summed(subtask: int, direction: str) -> list[float]:
    """Per iteration, the IOPS of that direction summed over the VMs' own fio JSON."""
    sums = []
    for iteration in sorted((FIXTURE / "kept" / f"subtask-{subtask}").iterdir()):
        jobs = [fio_json(path)["jobs"][0] for path in sorted(iteration.glob("c*.json"))]
        sums.append(
            sum(job[direction]["iops"] for job in jobs if job["jobname"].endswith(direction))
        )
    return sums


def test_a_data_plane_task_is_a_step_per_vm_count_averaged_over_its_iterations(tmp_path):
    document = json.loads((FIXTURE / "rally.json").read_text())
    store = write_campaign(tmp_path / "exported", document)
    summary = json.loads((store.root / "summary.json").read_text())
    steps = summary["steps"]
    assert [s["concurrency"] for s in steps] == [2, 4]
    for subtask, step in enumerate(steps, start=1):
        for direction in ("read", "write"):
            per_iteration = _summed(subtask, direction)
            assert len(per_iteration) == 2
            runs = [run[direction]["iops_sum"] for run in step["runs"]]
            assert runs == pytest.approx(per_iteration, abs=1e-5)
            mean = sum(per_iteration) / len(per_iteration)
            assert step[direction]["iops_sum"] == pytest.approx(mean, abs=1e-5)
            assert step[direction]["p95_merged"] is None  # no histograms in Rally's table
        spread = [
            r
            for r in summary["repeats"]
            if (r["concurrency"], r["direction"], r["figure"])
            == (step["concurrency"], "read", "iops_sum")
        ]
        assert [r["values"] for r in spread] == [[run["read"]["iops_sum"] for run in step["runs"]]]
    rows = (store.root / "fio.csv").read_text().splitlines()
    assert len(rows) == 1 + 2 * 2 + 2 * 4
    for step in steps:  # Rally's own report of each step: its VM count's workloads
        shown = rally_report_workloads(store.raw_dir(step["step"]) / HTML_REPORT)
        configs = [json.loads(w["config"])["subtasks"][0]["scenario"] for w in shown]
        assert [c[DATA_PLANE_SCENARIO]["vm_count"] for c in configs] == [step["concurrency"]]
    page = write_report(store, tmp_path / "doc").read_text()
    assert "- VMs per step: 2, 4; 1 run(s) of each." in page
    assert "VMs of Rally's iterations" in page and "c04, run 2" in page
    four = steps[1]["read"]["iops_sum"]
    assert f"   * - 4\n     - {four:.0f}\n" in page.split("Sum over consumers")[1]


def test_a_data_plane_task_is_not_exported_with_other_scenarios(tmp_path):
    data_plane = json.loads((FIXTURE / "rally.json").read_text())
    control_plane = json.loads((RALLY / "control-plane-c2.json").read_text())
    document = {**data_plane, "tasks": data_plane["tasks"] + control_plane["tasks"]}
    with pytest.raises(CampaignError, match="mix VolPerf.cinder_fio with other scenarios"):
        write_campaign(tmp_path / "mixed", document)
    assert not (tmp_path / "mixed").exists()


def test_two_exported_data_plane_tasks_compare_vm_count_by_vm_count(tmp_path):
    document = json.loads((FIXTURE / "rally.json").read_text())
    baseline = write_campaign(tmp_path / "baseline", document)
    changed = copy.deepcopy(document)
    [workload] = changed["tasks"][0]["subtasks"][1]["workloads"]  # the 4-VM one
    [table] = workload["data"][0]["output"]["complete"]  # its first iteration
    column = table["data"]["cols"].index("write_iops")
    for row in table["data"]["rows"]:
        row[column] = str(float(row[column]) * 2)  # its writers twice as fast
    other = write_campaign(tmp_path / "other", changed)
    comparison = compare_campaigns(load(baseline).compared(), load(other).compared())
    deltas = {(d.concurrency, d.direction, d.metric): d for d in comparison.deltas}
    summary = json.loads((baseline.root / "summary.json").read_text())
    first, second = (run["write"]["iops_sum"] for run in summary["steps"][1]["runs"])
    written = deltas[(4, "write", "iops_sum")]
    assert (written.baseline, written.other) == pytest.approx(
        ((first + second) / 2, (2 * first + second) / 2)
    )
    assert written.verdict == "better"
    assert deltas[(2, "write", "iops_sum")].delta == 0
    assert deltas[(4, "read", "iops_sum")].delta == 0
    rally = [d for d in comparison.deltas if d.direction.startswith("VolPerf.cinder_fio at 1")]
    assert rally and all(d.delta == 0 for d in rally)  # Rally's actions, beside fio's
