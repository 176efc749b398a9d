from __future__ import annotations

import csv
import io

import pytest

from harness.records.fio import (
    CSV_FIGURES,
    FIO_COLUMNS,
    REFERENCE_COLUMNS,
    ConsumerContext,
    FioConsumerRecord,
    fio_csv,
    from_row,
    measured_start,
)
from harness.tools.fio.parse import parse_file

# The header line of the Cinder+Ceph results document, as printed there.
SEED_HEADER = (
    "starttime,stoptime,jobname, read_iops,read_bandwidth,read_complelatency_mean,"
    "read_complelatency_min,read_complelatency_max,read_complelatency_95%ile,"
    "read_complelatency_99%ile,read_total_latency_avg,read_bandwidth_avg, write_iops,"
    "write_bandwidth,write_complelatency_mean,write_complelatency_min,"
    "write_complelatency_max,write_complelatency_95%ile,write_complelatency_99%ile,"
    "write_total_latency_avg,write_bandwidth_avg"
)


def context(consumer: str, rw: str, role: str) -> ConsumerContext:
    return ConsumerContext("001-x-c002-r1", consumer, 2, role, rw, "4k", 8, "local:test", 1)


def records_of(path):
    output = parse_file(path)
    contexts = [context("c01", "randread", "reader"), context("c02", "randwrite", "writer")]
    return output, [
        FioConsumerRecord.from_job(job, ctx, output.timestamp_ms)
        for job, ctx in zip(output.jobs, contexts, strict=True)
    ]


def test_columns_start_with_the_reference_documents_columns():
    assert [c.strip() for c in SEED_HEADER.split(",")] == REFERENCE_COLUMNS
    assert FIO_COLUMNS[: len(REFERENCE_COLUMNS)] == REFERENCE_COLUMNS
    assert FIO_COLUMNS[len(REFERENCE_COLUMNS) :][:7] == [
        "step",
        "consumer",
        "concurrency",
        "role",
        "rw",
        "bs",
        "iodepth",
    ]


def test_row_carries_fios_numbers_in_reference_units(fio_fixture):
    output, (reader, writer) = records_of(fio_fixture("fio-3.33-jsonplus-reader-writer.out"))
    job = output.jobs[0]
    row = dict(zip(FIO_COLUMNS, reader.row(), strict=True))
    assert row["jobname"] == "reader"
    assert row["read_iops"] == job.read.iops
    assert row["read_bandwidth"] == job.read.bw_kib
    assert row["read_complelatency_mean"] == pytest.approx(job.read.clat.mean_ns / 1e6)
    assert row["read_complelatency_95%ile"] == job.read.clat.percentiles_ns[95.0] / 1e6
    assert row["read_complelatency_99%ile"] == job.read.clat.percentiles_ns[99.0] / 1e6
    assert row["read_total_latency_avg"] == pytest.approx(job.read.lat.mean_ns / 1e6)
    assert row["read_bandwidth_avg"] == job.read.bw_mean_kib
    assert row["write_iops"] == 0.0  # the reader did not write: 0, as the document shows
    assert row["role"] == "reader"
    assert reader.window_estimated  # fio 3.33 has no job_start
    assert reader.stop_ms == output.timestamp_ms


def test_fio_3_33_starts_at_its_first_logged_interval_or_its_stamp_less_runtime(fio_fixture):
    _, (reader, _) = records_of(fio_fixture("fio-3.33-jsonplus-reader-writer.out"))
    runtime = reader.stop_ms - reader.start_ms
    logged = measured_start(reader, reader.start_ms - 40)  # the output stamped 40 ms late
    assert (logged.start_ms, logged.stop_ms) == (reader.start_ms - 40, reader.stop_ms - 40)
    assert not logged.window_estimated
    # nothing completed in its first 3 s, so its first logged interval began 3 s late
    stalled = measured_start(reader, reader.start_ms + 3000)
    assert (stalled.start_ms, stalled.stop_ms - stalled.start_ms) == (reader.start_ms, runtime)


def test_fio_3_41_windows_come_from_job_start(fio_fixture):
    output, (reader, _) = records_of(fio_fixture("fio-3.41-jsonplus-reader-writer.out"))
    assert not reader.window_estimated
    assert reader.start_ms == output.jobs[0].start_ms
    assert reader.stop_ms - reader.start_ms == output.jobs[0].read.runtime_ms


def test_csv_round_trip(fio_fixture):
    _, records = records_of(fio_fixture("fio-3.33-jsonplus-reader-writer.out"))
    rows = list(csv.DictReader(io.StringIO(fio_csv(records))))
    assert len(rows) == 2
    assert float(rows[1]["write_iops"]) == pytest.approx(records[1].write.iops, rel=1e-6)
    assert rows[0]["starttime"].endswith("+00:00")
    assert rows[0]["error"] == ""


def test_failed_job_is_a_row_with_its_error(fio_fixture):
    output = parse_file(fio_fixture("fio-3.33-jsonplus-enospc.out"))
    record = FioConsumerRecord.from_job(
        output.jobs[0], context("c01", "write", "writer"), output.timestamp_ms
    )
    assert record.error == "fio error 28: No space left on device"


def test_missing_percentile_is_empty_not_zero(fio_fixture):
    _, (reader, _) = records_of(fio_fixture("fio-3.33-jsonplus-reader-writer.out"))
    figures = reader.read.__class__(**{**reader.read.__dict__, "complelatency_p99": None})
    record = FioConsumerRecord(1, 2, "x", figures, None, reader.context)
    row = next(csv.DictReader(io.StringIO(fio_csv([record]))))
    assert row["read_complelatency_99%ile"] == ""


def test_a_row_read_back_gives_the_records_figures_at_the_csvs_precision(fio_fixture):
    _, records = records_of(fio_fixture("fio-3.33-jsonplus-reader-writer.out"))
    failed = FioConsumerRecord(5, 5, "c03-randread", None, None, records[0].context, "lost")
    for record in [*records, failed]:
        [row] = csv.DictReader(io.StringIO(fio_csv([record])))
        back = from_row(row, record.context)
        assert (back.start_ms, back.stop_ms, back.jobname, back.error) == (
            record.start_ms,
            record.stop_ms,
            record.jobname,
            record.error,
        )
        for direction in ("read", "write"):
            mine, theirs = getattr(record, direction), getattr(back, direction)
            assert (mine is None) == (theirs is None)
            if mine is not None:
                assert theirs.clat_bins_ns is None  # not in a row
                for name in CSV_FIGURES:
                    expected = getattr(mine, name)
                    assert getattr(theirs, name) == pytest.approx(expected, abs=5e-7)
