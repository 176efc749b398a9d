"""The data-plane scenario's charts and table, from real VMs' fio output (the Heat plane's
fixtures: a reader and a writer VM of `volperf run heat`, and a stack with one failed VM),
checked against fio's JSON read with the json module and against Rally's own chart checks."""

from __future__ import annotations

import json
from pathlib import Path

from rally.task.processing import charts

from harness.planes.heat.step import heat_step
from harness.planes.rally.data_plane import WARNINGS_TITLE, step_warnings, warning_rows
from harness.records.aggregate import aggregate_step
from harness.records.consumer_fio import failed_record, own_output_records
from harness.records.fio import REFERENCE_COLUMNS, ConsumerContext, FioConsumerRecord, csv_cell
from harness.tools.fio.histogram import top_bucket_ns
from rally_plugins.scenarios.fio_output import (
    additive_charts,
    vm_table,
    warnings_chart,
    warnings_table,
)
from tests.rally_plugins.scenarios.expected import sums_and_per_vm

HEAT = Path(__file__).parents[2] / "harness" / "planes" / "heat" / "fixtures"
READER = HEAT / "two-stacks/raw/heat/volperf-heat-try-001-randread/fio-c01.json"
WRITER = HEAT / "two-stacks/raw/heat/volperf-heat-try-001-randwrite/fio-c02.json"
CEILING_MS = top_bucket_ns(3) / 1_000_000


def _record(path: Path, name: str, role: str, rw: str) -> FioConsumerRecord:
    context = ConsumerContext("s1", name, 2, role, rw, "4k", 16, "openstack:testbed", 1)
    [record], output, problem = own_output_records(path, f"{name}-{rw}", context)
    assert output is not None, problem
    return record


def _vms() -> list[FioConsumerRecord]:
    return [
        _record(READER, "c01", "reader", "randread"),
        _record(WRITER, "c02", "writer", "randwrite"),
    ]


def _job(path: Path) -> dict:
    [job] = json.loads(path.read_text())["jobs"]
    return job


def test_the_charts_come_in_a_fixed_order_that_rally_accepts():
    made = additive_charts(_vms(), CEILING_MS)
    assert [c["title"] for c in made] == [
        "IOPS summed over the VMs",
        "IOPS per VM (the table's columns are IOPS, not seconds)",
        "Completion latency over the VMs' merged histograms, ms",
    ]
    for chart in made:
        charts.validate_output("additive", chart)
    charts.validate_output("complete", vm_table(_vms()))


def test_sums_and_latencies_are_the_vms_fio_figures():
    reader, writer = _job(READER), _job(WRITER)
    summed, per_vm, latency = [c["data"] for c in additive_charts(_vms(), CEILING_MS)]
    assert (dict(map(tuple, summed)), per_vm) == sums_and_per_vm(reader, writer)
    # one VM a direction: the merged histogram's percentile is fio's own
    expected = {
        f"{d} p{p}": job[d]["clat_ns"]["percentile"][f"{p}.000000"] / 1_000_000
        for d, job in (("read", reader), ("write", writer))
        for p in (95, 99)
    }
    assert dict(map(tuple, latency)) == expected


def test_the_table_has_a_row_per_vm_as_fio_csv_writes_it_and_a_failed_vms_reason():
    vms = _vms()
    context = ConsumerContext("s1", "c03", 3, "writer", "randwrite", "4k", 16, "testbed", 1)
    failed = failed_record(0, "c03-randwrite", context, "VM stack CREATE_FAILED: rbd_open failed")
    table = vm_table([*vms, failed])["data"]
    assert table["cols"][: len(REFERENCE_COLUMNS)] == REFERENCE_COLUMNS
    for row, record in zip(table["rows"], vms, strict=False):
        assert row[: len(REFERENCE_COLUMNS)] == [
            csv_cell(c) for c in record.row()[: len(REFERENCE_COLUMNS)]
        ]
    assert table["rows"][2][-3:] == ["c03", "writer", "VM stack CREATE_FAILED: rbd_open failed"]
    # a VM without figures is in the table, not in the per-VM statistics
    per_vm = additive_charts([*vms, failed], CEILING_MS)[1]["data"]
    assert len(per_vm) == 2


def _real_guests_step():
    """A real-guests Heat step (two TCG VMs on a QoS-limited type), as the scenario reads
    an iteration: its warnings include emulated-cpu."""
    folder = HEAT / "qos-limited"
    plan = json.loads((folder / "step.json").read_text())
    return heat_step(folder / "raw", "001", plan, "openstack:rally")


def test_the_warnings_table_holds_the_steps_and_the_figures_warnings_by_source():
    step = _real_guests_step()
    figures = aggregate_step(step.records, CEILING_MS).warnings
    assert "emulated-cpu" in {w.code for w in step.warnings} and figures  # low-overlap
    table = warnings_table(step.warnings, figures)
    charts.validate_output("complete", table)  # Rally's own check
    assert table["title"] == WARNINGS_TITLE
    iteration = {"output": {"complete": [vm_table(step.records), table]}}
    rows = list(warning_rows(iteration))
    assert [(r["code"], r["message"]) for r in rows] == [
        (w.code, w.message) for w in [*step.warnings, *figures]
    ]
    assert list(step_warnings(iteration)) == list(step.warnings)  # the Heat step's alone


def test_an_iteration_without_warnings_gets_no_table():
    assert warnings_table([], []) is None
    assert list(warning_rows({"output": {"complete": [vm_table(_vms())]}})) == []


def test_the_warning_codes_are_an_additive_chart_every_iteration_even_when_empty():
    step = _real_guests_step()
    figures = list(aggregate_step(step.records, CEILING_MS).warnings)
    chart = warnings_chart([*step.warnings, *figures, *figures])  # a code counted once
    charts.validate_output("additive", chart)
    assert chart["data"] == [
        [code, 1] for code in sorted({w.code for w in step.warnings + figures})
    ]
    empty = warnings_chart([])
    charts.validate_output("additive", empty)
    assert empty["data"] == [] and empty["title"] == chart["title"]  # the same place
