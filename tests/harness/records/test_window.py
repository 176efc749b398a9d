"""The common window of a step's consumers, on constructed logs (each figure checked by
hand) and on real fio 3.33 logs (tests/harness/tools/fio/fixtures/logs)."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.records.window import common_window, inside, running
from harness.tools.fio.logs import JobLogs, read_job_logs

LOGS = Path(__file__).parents[1] / "tools" / "fio" / "fixtures" / "logs"


def job(name: str, start: int, iops: list[float], direction: str = "read") -> JobLogs:
    """A consumer that started at ``start`` ms and logged one IOPS value per second (its
    bandwidth 4 KiB per I/O, its latency 1e9 / IOPS ns, as at iodepth 1)."""
    times = [start + 1000 * (i + 1) for i in range(len(iops))]
    return JobLogs(
        name,
        {direction: list(zip(times, iops, strict=True))},
        {direction: [(t, v * 4) for t, v in zip(times, iops, strict=True)]},
        {direction: [(t, 1e9 / v) for t, v in zip(times, iops, strict=True)]},
    )


def test_running_is_from_the_first_intervals_start_to_the_last_point():
    assert running(job("a", 10_000, [1, 2, 3]), 1000) == (10_000, 13_000)
    assert running(JobLogs("none", {}, {}, {}), 1000) is None


def test_inside_counts_an_interval_by_its_middle():
    points = [(1000, 1.0), (2000, 2.0), (3000, 3.0)]
    assert inside(points, 1000, 3000, 1000) == [2.0, 3.0]  # (0, 1000] is outside
    assert inside(points, 400, 1400, 1000) == [1.0]


def test_staggered_consumers_are_summed_only_while_all_ran():
    # a: 0-4 s at 100 IOPS; b starts 2 s later, runs 4 s at 300: together from 2 s to 4 s
    a = job("a", 0, [100, 100, 100, 100])
    b = job("b", 2000, [300, 300, 300, 300])
    window = common_window([a, b], 1000)
    assert window is not None
    assert (window.start_ms, window.end_ms, window.seconds) == (2000, 4000, 2.0)
    assert window.start_spread_s == 2.0
    read = window.read
    assert read is not None and window.write is None
    assert (read.iops_sum, read.iops_avg) == (400, 200)
    assert (read.bandwidth_sum, read.bandwidth_avg) == (1600, 800)
    # mean of the consumers' mean latency: (10 ms + 3.33 ms) / 2
    assert read.clat_mean_avg == pytest.approx((10 + 10 / 3) / 2)
    assert window.consumers["b"]["read"].iops == 300
    # two one-second intervals: too few rounds to judge steadiness
    assert read.steady is not None and read.steady.steady


def test_readers_and_writers_have_their_own_figures():
    window = common_window([job("r", 0, [10, 20]), job("w", 0, [5, 5], "write")], 1000)
    assert window is not None and window.read is not None and window.write is not None
    assert (window.read.consumers, window.read.iops_sum) == (1, 15)
    assert (window.write.consumers, window.write.iops_sum) == (1, 5)


def test_consumers_that_never_ran_together_have_no_window():
    assert common_window([job("a", 0, [1, 1]), job("b", 5000, [1, 1])], 1000) is None
    assert common_window([job("a", 0, [1]), JobLogs("b", {}, {}, {})], 1000) is None
    assert common_window([], 1000) is None


def test_steadiness_is_judged_on_five_rounds_of_the_summed_iops():
    flat = common_window([job("a", 0, [100] * 10), job("b", 0, [50] * 10)], 1000)
    assert flat is not None and flat.read is not None and flat.read.steady is not None
    assert flat.read.steady.steady and flat.read.steady.average == 150
    climbing = common_window([job("a", 0, [100 + 20 * i for i in range(10)])], 1000)
    assert climbing is not None and climbing.read is not None
    assert climbing.read.steady is not None and not climbing.read.steady.steady


def test_an_interval_one_consumer_did_not_log_is_left_out_of_the_summed_series():
    # fio leaves out a last partial interval of the IOPS log; b's third second is missing
    a = job("a", 0, [100, 100, 100])
    b = job("b", 0, [100, 100])
    b = JobLogs("b", b.iops, b.bw, {"read": [*b.clat["read"], (3000, 1e7)]})
    window = common_window([a, b], 1000)
    assert window is not None and window.read is not None and window.read.steady is not None
    assert window.read.steady.average == 200  # not (200 + 200 + 100) / 3


def test_real_logs_of_a_reader_and_a_writer():
    reader, writer = read_job_logs(LOGS, "fio-3.33-reader"), read_job_logs(LOGS, "fio-3.33-writer")
    assert reader is not None and writer is not None
    window = common_window([reader, writer], 1000)
    assert window is not None and window.read is not None and window.write is not None
    # started within a few ms of each other (one fio process), ran about 3 s
    assert window.start_spread_s < 0.05 and 2.9 < window.seconds < 3.1
    assert window.read.iops_sum == pytest.approx(sum(v for _, v in reader.iops["read"]) / 2)
    assert 0.2 < window.read.clat_mean_avg < 0.3  # ms: 240-252 µs per second in the log


def test_tail_percentiles_over_the_window_come_from_the_histogram_logs():
    # a: fast I/Os (100 ns) all along; b: slow ones (10_000 ns) only before the window
    a = job("a", 0, [100, 100, 100, 100])
    a = JobLogs("a", a.iops, a.bw, a.clat, {"read": [(t, {100: 100}) for t, _ in a.iops["read"]]})
    b = job("b", 2000, [100, 100])
    slow = [(1000, {10_000: 1000})]  # before b started: outside the window
    b = JobLogs("b", b.iops, b.bw, b.clat, {"read": [*slow, (3000, {200: 10}), (4000, {200: 90})]})
    window = common_window([a, b], 1000)
    assert window is not None and window.read is not None
    # inside [2000, 4000]: a's 200 I/Os at 100 ns, b's 100 at 200 ns
    assert window.read.p95_merged == pytest.approx(200 / 1e6)
    assert window.read.p99_merged == pytest.approx(200 / 1e6)
    without = common_window([job("a", 0, [1, 1]), job("b", 0, [1, 1])], 1000)
    assert without is not None and without.read is not None
    assert without.read.p95_merged is None  # no histogram logs: whole-run tails only
