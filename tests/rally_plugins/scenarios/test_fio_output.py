"""The data-plane scenario's charts and table, from real VMs' fio output (the Heat plane's
fixtures: a reader and a writer VM of `volperf run heat`, and a stack with one failed VM),
checked against fio's JSON read with the json module and against Rally's own chart checks."""

from __future__ import annotations

import json
from pathlib import Path

from rally.task.processing import charts

from harness.records.consumer_fio import failed_record, own_output_records
from harness.records.fio import REFERENCE_COLUMNS, ConsumerContext, FioConsumerRecord, csv_cell
from harness.tools.fio.histogram import top_bucket_ns
from rally_plugins.scenarios.fio_output import additive_charts, vm_table
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
