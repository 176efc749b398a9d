from __future__ import annotations

import dataclasses

import pytest

from harness.records import stats
from harness.records.aggregate import aggregate_direction, aggregate_step, mean_of_runs
from harness.records.fio import ConsumerContext, FioConsumerRecord
from harness.tools.fio.histogram import top_bucket_ns
from harness.tools.fio.parse import parse_file

CEILING_MS = top_bucket_ns(3) / 1e6


def records(path, roles=("reader", "writer")):
    output = parse_file(path)
    return [
        FioConsumerRecord.from_job(
            job,
            ConsumerContext("s", job.jobname, len(output.jobs), role, "", "4k", 8, "t", 1),
            output.timestamp_ms,
        )
        for job, role in zip(output.jobs, roles, strict=False)
    ]


def test_readers_and_writers_are_aggregated_separately(fio_fixture):
    recs = records(fio_fixture("fio-3.33-jsonplus-reader-writer.out"))
    step = aggregate_step(recs, CEILING_MS)
    assert step.read.consumers == 1 and step.write.consumers == 1
    assert step.read.iops_sum == recs[0].read.iops
    assert step.write.iops_avg == recs[1].write.iops
    # one consumer: merged percentile is that consumer's percentile
    assert step.read.p99_merged == recs[0].read.complelatency_p99
    assert step.read.p99_consumer_mean == recs[0].read.complelatency_p99
    assert step.overlap == 1.0 and step.overlap_estimated
    assert step.warnings == ()


def test_merged_tail_differs_from_mean_of_percentiles():
    fast = {100_000: 99, 200_000: 1}  # p99 0.1 ms
    slow = {100_000: 50, 50_000_000: 50}  # p99 50 ms
    figures = [_figures(bins) for bins in (fast, slow)]
    result = aggregate_direction(figures, CEILING_MS)
    assert result.p99_consumer_mean == pytest.approx((0.1 + 50) / 2)
    assert result.p99_merged == 50.0
    per_consumer = [f.complelatency_p99 for f in figures]
    assert min(per_consumer) <= result.p99_merged <= max(per_consumer)
    assert result.iops_sum >= max(f.iops for f in figures)


def _figures(bins, iops=1000.0):
    from harness.records.fio import DirectionFigures

    return DirectionFigures(
        iops=iops,
        bandwidth=iops * 4,
        complelatency_mean=1.0,
        complelatency_min=0.1,
        complelatency_max=max(bins) / 1e6,
        complelatency_p95=stats.histogram_percentile(bins, 95.0) / 1e6,
        complelatency_p99=stats.histogram_percentile(bins, 99.0) / 1e6,
        total_latency_avg=1.0,
        bandwidth_avg=iops * 4,
        clat_bins_ns=bins,
    )


def test_value_at_fio_ceiling_is_flagged_not_reported():
    stuck = {top_bucket_ns(3): 10}  # every write slower than fio can measure
    result = aggregate_direction([_figures(stuck), _figures({1_000_000: 10})], CEILING_MS)
    assert result.p99_merged is None and "p99_merged" in result.ceilings
    assert (
        result.p95_consumer_mean is None
        and "top histogram bucket" in result.ceilings["p95_consumer_mean"]
    )


def test_rate_capped_iops_are_flagged(fio_fixture):
    recs = records(fio_fixture("fio-3.33-jsonplus-rate-capped.out"), roles=("reader",))
    step = aggregate_step(recs, CEILING_MS, rate_iops=200)
    assert step.read.iops_avg is None and step.read.iops_sum is None
    assert "rate cap" in step.read.ceilings["iops_sum"]
    assert [w.code for w in step.warnings] == ["ceiling", "ceiling"]
    assert aggregate_step(recs, CEILING_MS, rate_iops=None).read.iops_sum > 190


def test_low_overlap_warns(fio_fixture):
    a, b = records(fio_fixture("fio-3.33-jsonplus-reader-writer.out"))
    b = dataclasses.replace(b, start_ms=a.start_ms + 1500, stop_ms=a.stop_ms + 1500)
    step = aggregate_step([a, b], CEILING_MS)
    assert step.overlap < 0.9
    assert [w.code for w in step.warnings] == ["low-overlap"]


def test_failed_consumer_is_a_warning_and_left_out(fio_fixture):
    recs = records(fio_fixture("fio-3.33-jsonplus-enospc.out"), roles=("writer",))
    step = aggregate_step(recs, CEILING_MS)
    assert step.write is None
    assert step.warnings[0].code == "consumer-failed"
    assert "No space left on device" in step.warnings[0].message


def test_runs_of_a_step_are_averaged_figure_by_figure_not_summed():
    one = aggregate_direction([_figures({100_000: 10}, 1000.0)] * 2, CEILING_MS)
    two = aggregate_direction([_figures({300_000: 10}, 3000.0)] * 2, CEILING_MS)
    mean = mean_of_runs([one, two, None])  # None: a run in which no reader answered
    assert mean.iops_sum == (2000.0 + 6000.0) / 2 and mean.iops_avg == 2000.0
    assert mean.p95_merged == pytest.approx((0.1 + 0.3) / 2)
    assert mean.clat_max == 0.3 and mean.consumers == 2
    assert mean_of_runs([None, None]) is None


def test_a_figure_any_run_has_only_as_a_bound_stays_a_bound():
    stuck = aggregate_direction([_figures({top_bucket_ns(3): 10})], CEILING_MS)
    fine = aggregate_direction([_figures({1_000_000: 10})], CEILING_MS)
    mean = mean_of_runs([fine, stuck])
    assert mean.p99_merged is None and mean.ceilings == stuck.ceilings
    assert mean.iops_sum == 1000.0
