"""rally.csv rows from a real Rally JSON export (captured on the OpenStack testbed:
control-plane task, concurrency 2, 2 iterations per scenario)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.planes.rally.records import (
    RallyResultError,
    load_export,
    rally_csv,
    read_rally_csv,
    records_of,
    workloads,
)
from tests.harness.planes.rally.expected import expected_table

FIXTURE = Path(__file__).parent / "fixtures" / "control-plane-c2.json"


def test_rows_follow_rallys_table_order_per_workload():
    records = records_of(load_export(FIXTURE), "001-cp-c002-r1")
    scenarios = [r.scenario for r in records if r.action == "total"]
    assert scenarios == [
        "CinderVolumes.create_and_attach_volume",
        "NovaServers.boot_server_from_volume_and_delete",
    ]
    first = [r.action for r in records if r.scenario == scenarios[0]]
    assert first == [
        "nova.boot_server",
        "cinder_v3.create_volume",
        "nova.attach_volume",
        "nova.detach_volume",
        "cinder_v3.delete_volume",
        "nova.delete_server",
        "total",
        " -> duration",
        " -> idle_duration",
    ]
    assert {(r.concurrency, r.times, r.step) for r in records} == {(2, 2, "001-cp-c002-r1")}
    assert all(r.success_pct == 100.0 and r.count == 2 and r.pass_sla for r in records)


def test_figures_equal_a_recomputation_from_the_raw_iterations():
    document = load_export(FIXTURE)
    records = records_of(document)
    for _, workload in workloads(document):
        scenario = next(iter(workload["scenario"]))
        expected = expected_table(workload)
        rows = {r.action: r for r in records if r.scenario == scenario and r.depth == 0}
        assert set(rows) == set(expected)
        for action, figures in expected.items():
            row = rows[action]
            got = [row.min_s, row.median_s, row.p90_s, row.p95_s, row.max_s, row.avg_s]
            assert got == pytest.approx(figures, abs=0.0011), action


def test_csv_round_trip(tmp_path):
    records = records_of(load_export(FIXTURE), "s1")
    path = tmp_path / "rally.csv"
    path.write_text(rally_csv(records))
    rows = read_rally_csv(path)
    assert len(rows) == len(records)
    assert rows[0]["action"] == "nova.boot_server" and rows[0]["concurrency"] == "2"
    assert float(rows[0]["p95_s"]) == records[0].p95_s


@pytest.mark.parametrize(
    "text, says",
    [
        ("{not json", "not a readable Rally JSON export"),
        ('{"tasks": 3}', "no 'tasks' list"),
        ("[]", "no 'tasks' list"),
    ],
)
def test_malformed_export_names_the_file(tmp_path, text, says):
    path = tmp_path / "rally.json"
    path.write_text(text)
    with pytest.raises(RallyResultError, match=says) as caught:
        load_export(path)
    assert str(path) in str(caught.value)


def test_a_task_without_statistics_gives_no_rows():
    document = json.loads(FIXTURE.read_text())
    for _, workload in workloads(document):
        workload["statistics"] = {}
    assert records_of(document) == []


def test_not_a_rally_csv_is_refused(tmp_path):
    path = tmp_path / "rally.csv"
    path.write_text("step,consumer\n1,2\n")
    with pytest.raises(RallyResultError, match="not a volperf rally.csv"):
        read_rally_csv(path)
