"""fio's per-second logs, parsed from real ones (fixtures/logs/capture.sh made them with
fio 3.33): times since the epoch, one direction per job, values that agree with the
same run's JSON."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.records import stats
from harness.tools.fio.histogram import bucket_value
from harness.tools.fio.logs import (
    FioLogError,
    LogPoint,
    parse_hist_log,
    parse_log,
    read_job_logs,
    series,
    since_epoch,
)

LOGS = Path(__file__).parent / "fixtures" / "logs"


def _log(name: str) -> list[LogPoint]:
    return parse_log((LOGS / name).read_text(), name)


VERSIONS = ["fio-3.33", "fio-3.41"]


def test_a_log_line_is_time_value_direction():
    assert _log("fio-3.33-reader_iops.1.log")[0] == LogPoint(1795412805818, 30256.0, "read")


@pytest.mark.parametrize("version", VERSIONS)
def test_iops_logs_of_a_reader_and_a_writer(version):
    reader, writer = _log(f"{version}-reader_iops.1.log"), _log(f"{version}-writer_iops.2.log")
    assert {p.direction for p in reader} == {"read"} and {p.direction for p in writer} == {"write"}
    assert reader[0].time_ms > 1_700_000_000_000  # log_unix_epoch: ms since the epoch
    times = [t for t, _ in series(reader, "read")]
    assert times == sorted(times) and all(
        b - a == pytest.approx(1000, abs=5) for a, b in zip(times, times[1:], strict=False)
    )
    assert series(reader, "write") == []


@pytest.mark.parametrize("version", VERSIONS)
def test_the_logs_agree_with_the_runs_json(version):
    jobs = {
        j["jobname"]: j
        for j in json.loads((LOGS / f"{version}-reader-writer.json").read_text())["jobs"]
    }
    for job, direction, number in (("reader", "read", 1), ("writer", "write", 2)):
        iops = [v for _, v in series(_log(f"{version}-{job}_iops.{number}.log"), direction)]
        bw = [v for _, v in series(_log(f"{version}-{job}_bw.{number}.log"), direction)]
        whole = jobs[job][direction]
        assert sum(iops) / len(iops) == pytest.approx(whole["iops"], rel=0.1)
        assert sum(bw) / len(bw) == pytest.approx(whole["bw"], rel=0.1)  # KiB/s both


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("1000, x, 0, 0, 0", "not a fio log line"),
        ("1000", "not a fio log line"),
        ("1000, 5, 7, 0, 0", "unknown direction 7"),
    ],
)
def test_a_line_fio_would_not_write_is_named(text, says):
    with pytest.raises(FioLogError, match=f"iops.log:1: {says}"):
        parse_log(text, "iops.log")


def test_a_consumers_logs_are_read_by_its_job_name():
    logs = read_job_logs(LOGS, "fio-3.33-reader")
    assert logs is not None and logs.jobname == "fio-3.33-reader"
    assert set(logs.iops) == set(logs.bw) == set(logs.clat) == {"read"}
    assert logs.iops["read"] == series(_log("fio-3.33-reader_iops.1.log"), "read")
    assert read_job_logs(LOGS, "no-such-job") is None


def test_a_consumers_logs_without_their_iops_log_were_cut_and_say_so(tmp_path):
    """A printout read before its last file came (the IOPS log) leaves the others alone:
    not logs to compute a pace or a phase from."""
    for path in LOGS.glob("fio-3.33-reader_*.log"):
        if "_iops." not in path.name:
            (tmp_path / path.name).write_bytes(path.read_bytes())
    with pytest.raises(FioLogError, match="fio-3.33-reader: fio's IOPS log is missing"):
        read_job_logs(tmp_path, "fio-3.33-reader")


def test_logs_that_fios_client_received_carry_the_servers_name():
    # fixtures/client/capture.sh: fio's client appends the server's name to each log
    client = LOGS.parent / "client"
    logs = read_job_logs(client, "fio-3.33-reader", host="127.0.0.2")
    assert logs is not None and set(logs.iops) == {"read"}
    name = "fio-3.33-reader_iops.1.log.127.0.0.2"
    assert logs.iops["read"] == series(parse_log((client / name).read_text(), name), "read")
    assert read_job_logs(client, "fio-3.33-reader") is None  # not the plain names
    assert read_job_logs(client, "fio-3.33-reader", host="127.0.0.3") is None


def test_sub_jobs_of_a_consumer_are_added_interval_by_interval(tmp_path):
    # numjobs=2: fio writes c01-randread_iops.1.log and .2.log; the last one is shorter
    (tmp_path / "c01-randread_iops.1.log").write_text("1000, 10, 0, 0, 0\n2000, 20, 0, 0, 0\n")
    (tmp_path / "c01-randread_iops.2.log").write_text("1003, 1, 0, 0, 0\n")
    (tmp_path / "c01-randread_clat.1.log").write_text("1000, 100, 0, 0, 0\n")
    (tmp_path / "c01-randread_clat.2.log").write_text("1003, 300, 0, 0, 0\n")
    logs = read_job_logs(tmp_path, "c01-randread")
    assert logs is not None
    assert logs.iops == {"read": [(1003, 11.0)]}  # summed
    assert logs.clat == {"read": [(1003, 200.0)]}  # averaged
    assert logs.bw == {}


def test_times_since_the_epoch_or_since_the_job_started(tmp_path):
    assert since_epoch(read_job_logs(LOGS, "fio-3.33-reader"))
    (tmp_path / "c01-randread_iops.1.log").write_text("1000, 10, 0, 0, 0\n2001, 20, 0, 0, 0\n")
    assert not since_epoch(read_job_logs(tmp_path, "c01-randread"))


def test_histogram_log_lines_become_bucket_values_and_counts():
    counts = [0] * (29 * 64)
    counts[10], counts[1000] = 3, 1
    text = "1795421382625, 0, 4096, " + ", ".join(map(str, counts)) + "\n"
    [point] = parse_hist_log(text, "h_clat_hist.1.log")
    assert (point.time_ms, point.direction) == (1795421382625, "read")
    assert point.bins == {10: 3, bucket_value(1000, 29): 1}
    with pytest.raises(FioLogError, match="not whole groups of 64"):
        parse_hist_log("1, 0, 4096, 1, 2, 3\n")
    with pytest.raises(FioLogError, match="not a fio histogram line"):
        parse_hist_log("1, x, 4096\n")


@pytest.mark.parametrize("version", VERSIONS)
def test_a_real_histogram_log_agrees_with_the_runs_own_histogram(version):
    points = parse_hist_log((LOGS / f"{version}-hist_clat_hist.1.log").read_text())
    assert points and {p.direction for p in points} == {"read"}
    assert all(p.time_ms > 1_700_000_000_000 for p in points)
    job = json.loads((LOGS / f"{version}-hist.json").read_text())["jobs"][0]["read"]
    whole = {int(k): v for k, v in job["clat_ns"]["bins"].items()}
    logged = stats.merge_histograms(p.bins for p in points)
    # the same buckets; fio leaves the last partial second out of the log
    assert set(logged) <= set(whole)
    assert 0.5 * job["total_ios"] < sum(logged.values()) <= job["total_ios"]
    for percentile in (50.0, 99.0):
        ours = stats.histogram_percentile(logged, percentile)
        theirs = stats.histogram_percentile(whole, percentile)
        assert ours == pytest.approx(theirs, rel=0.25)
