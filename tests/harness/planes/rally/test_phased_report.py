"""Rally's own HTML report with the phases added, on Rally exports kept from real runs:
cinder-volume stopped during a workload on the OpenStack testbed (fixtures/service-outage/,
its samples of Cinder's services beside it), and a control-plane task given no faults."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from harness.planes.rally.phased_report import PHASES_TITLE, WARNINGS_TITLE, write_report
from harness.planes.rally.runner import HTML_REPORT, JSON_REPORT
from harness.planes.rally.step import rally_step
from tests.harness.helpers import rally_report_charts, rally_report_workloads

FIXTURES = Path(__file__).parent / "fixtures"


def test_a_workload_given_faults_shows_its_phases_and_warning_in_rallys_report(tmp_path):
    raw = tmp_path / "raw"
    shutil.copytree(FIXTURES / "service-outage" / "raw", raw)
    exported = (raw / JSON_REPORT).read_bytes()
    write_report(raw, JSON_REPORT, HTML_REPORT)
    assert (raw / JSON_REPORT).read_bytes() == exported  # Rally's export left as it was
    [shown] = rally_report_workloads(raw / HTML_REPORT)
    step = rally_step(raw, "s1")
    [summarised] = step.summary["rally"]["workloads"]
    faulted = summarised["phases"]
    # the table: the summary's phases, row for row, on the first fault's firing
    [table] = rally_report_charts(shown, PHASES_TITLE)
    assert table["widget"] == "Table"
    # each column of the table, one field of the summary's phase ("-" where it has none)
    fields = {
        "state": "state",
        "from (s)": "start_s",
        "seconds": "seconds",
        "iterations": "iterations",
        "failed": "failed",
        "median (s)": "median_s",
        "slowest (s)": "max_s",
    }
    assert table["data"]["cols"] == list(fields)
    assert len(table["data"]["rows"]) == len(faulted["phases"])
    for row, phase in zip(table["data"]["rows"], faulted["phases"], strict=True):
        cells = dict(zip(table["data"]["cols"], row, strict=True))
        for column, field in fields.items():
            expected = "-" if phase[field] is None else phase[field]
            assert cells[column] == expected, (column, cells, phase)
    assert [row[0] for row in table["data"]["rows"]] == ["healthy", "degraded", "healed"]
    assert f"by Cinder's own state ({faulted['health_samples']} samples)" in table["description"]
    assert f"to healed: {faulted['fault_to_healed_s']:.1f} s" in table["description"]
    first = shown["hooks"][0]
    assert first["desc"] == "volperf fault stop-service cinder-volume at +2 s"
    assert table in first["complete"][0]["charts"]
    # the step's warnings about its phases: beside the table, and the backend-phases one
    # under the workload's title
    backend = [w.message for w in step.warnings if w.code == "backend-phases"]
    assert backend
    [said] = rally_report_charts(shown, WARNINGS_TITLE)
    assert said["data"] == [f"{w.code}: {w.message}" for w in step.warnings]
    assert shown["description"].startswith("Create and extend a volume and then delete it.")
    assert f"volperf warning: {backend[0]}" in shown["description"]
    # the task's config as it ran: its two fault hooks, nothing added
    config = json.loads(shown["config"])
    [subtask] = config["subtasks"]
    assert [next(iter(h["action"])) for h in subtask["hooks"]] == ["volperf_service_fault"] * 2


def test_a_workload_given_no_faults_is_rallys_report_as_it_was(tmp_path):
    raw = tmp_path / "raw"
    raw.mkdir()
    shutil.copy(FIXTURES / "control-plane-c2.json", raw / JSON_REPORT)
    write_report(raw, JSON_REPORT, HTML_REPORT)
    shown = rally_report_workloads(raw / HTML_REPORT)
    exported = json.loads((raw / JSON_REPORT).read_text())
    descriptions = [
        w["description"] for t in exported["tasks"] for s in t["subtasks"] for w in s["workloads"]
    ]
    assert sorted(w["description"] for w in shown) == sorted(descriptions)
    assert all(not w["hooks"] for w in shown)
    assert "volperf" not in (raw / HTML_REPORT).read_text()
