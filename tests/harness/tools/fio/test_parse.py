"""The parser against real fio output of several versions and options."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.records import stats
from harness.tools.fio.parse import FioParseError, parse_file, parse_text

READER_WRITER = [
    "fio-3.41-jsonplus-reader-writer.out",
    "fio-3.33-jsonplus-reader-writer.out",
    "fio-3.33-json-reader-writer.out",
    "fio-3.1-jsonplus-reader-writer.out",
    "fio-2.15-jsonplus-reader-writer.out",
    "fio-2.2.10-json-reader-writer.out",
]


@pytest.mark.parametrize("name", READER_WRITER)
def test_reader_and_writer_jobs_of_every_version(fio_fixture, name):
    output = parse_file(fio_fixture(name))
    assert output.version == "fio-" + name.split("-")[1]
    reader, writer = output.jobs
    assert (reader.jobname, writer.jobname) == ("reader", "writer")
    assert reader.read is not None and reader.write is None
    assert writer.write is not None and writer.read is None
    for direction in (reader.read, writer.write):
        assert direction.iops > 1000
        assert direction.bw_kib == pytest.approx(direction.iops * 4, rel=0.01)
        # nanoseconds whatever the version: 4k direct I/O takes microseconds to ms
        assert 1_000 < direction.clat.mean_ns < 100_000_000
        assert direction.clat.min_ns <= direction.clat.mean_ns <= direction.clat.max_ns
        assert set(direction.clat.percentiles_ns) >= {95.0, 99.0}
        assert 0.0 not in direction.clat.percentiles_ns  # fio 3.1 pads with "0.00": 0
    assert reader.runtime_ms == pytest.approx(2000, abs=100)
    # job banners printed before the JSON are kept, not parsed
    assert output.text_before.startswith("reader: (g=0)")


@pytest.mark.parametrize("name", [n for n in READER_WRITER if "jsonplus" in n])
def test_percentiles_from_bins_equal_fios_own(fio_fixture, name):
    """Our percentile of the json+ bins is fio's percentile, exactly, for each job."""
    output = parse_file(fio_fixture(name))
    assert output.histograms
    for job in output.jobs:
        direction = job.read or job.write
        bins = direction.clat.bins_ns
        assert sum(bins.values()) == direction.total_ios
        for p, fio_value in direction.clat.percentiles_ns.items():
            assert stats.histogram_percentile(bins, p) == fio_value, (job.jobname, p)


def test_fio2_reports_microseconds_and_no_bins(fio_fixture):
    output = parse_file(fio_fixture("fio-2.2.10-json-reader-writer.out"))
    assert output.major_version == 2
    assert not output.histograms
    read = output.jobs[0].read
    # every fio 2 percentile is a whole number of microseconds
    assert all(v % 1000 == 0 for v in read.clat.percentiles_ns.values())


def test_only_fio_3_36_and_later_stamp_job_start(fio_fixture):
    new = parse_file(fio_fixture("fio-3.41-jsonplus-reader-writer.out"))
    old = parse_file(fio_fixture("fio-3.33-jsonplus-reader-writer.out"))
    assert all(j.start_ms and j.start_ms <= new.timestamp_ms for j in new.jobs)
    assert all(j.start_ms is None for j in old.jobs)


def test_group_reporting_gives_one_entry_per_group(fio_fixture):
    # two consumers of numjobs=2 each (fio does not echo group_reporting in its JSON)
    output = parse_file(fio_fixture("fio-3.33-jsonplus-group-reporting.out"))
    assert output.jobs[0].read.total_ios == sum(output.jobs[0].read.clat.bins_ns.values())
    assert [j.jobname for j in output.jobs] == ["c01-randread", "c02-randwrite"]
    # job_runtime is summed over the group's two jobs; the window is a direction's runtime
    assert output.jobs[0].runtime_ms == pytest.approx(2000, abs=100)


def test_interrupted_run_keeps_the_signal_line(fio_fixture):
    output = parse_file(fio_fixture("fio-3.33-jsonplus-interrupted.out"))
    assert "fio: terminating on signal 2" in output.text_before
    assert output.jobs[0].read.runtime_ms < 30_000


def test_job_with_an_error(fio_fixture):
    output = parse_file(fio_fixture("fio-3.33-jsonplus-enospc.out"))
    job = output.jobs[0]
    assert job.error == 28
    assert job.error_message == "No space left on device"
    assert job.write is not None  # what it wrote before the disk filled up is kept


def test_truncated_output_names_the_file(fio_fixture, tmp_path):
    text = fio_fixture("fio-3.33-jsonplus-reader-writer.out").read_text()
    cut = tmp_path / "cut.out"
    cut.write_text(text[: len(text) // 2])
    with pytest.raises(FioParseError, match=r"cut\.out: truncated or malformed JSON at line"):
        parse_file(cut)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "empty output"),
        ("fio: failed to open file x\n", "no JSON object in fio output"),
        ('{\n  "hello": 1\n}\n', "no 'jobs' list"),
        ('{\n  "fio version": "fio-3.33", "jobs": []\n}\n', "lists no jobs"),
        (
            '{\n "jobs": [{"jobname": "a", "read": {"io_bytes": 4096, "total_ios": 1}}]}',
            "unexpected fio JSON layout",
        ),
        ('{\n "jobs": [{"jobname": "a", "mixed": {}}]}', "unified_rw_reporting"),
    ],
)
def test_malformed_output_is_a_clear_error(text, message):
    with pytest.raises(FioParseError, match=message) as info:
        parse_text(text, source="steps/x/raw/fio.out")
    assert str(info.value).startswith("steps/x/raw/fio.out: ")


def test_unreadable_file(tmp_path):
    with pytest.raises(FioParseError, match="cannot read"):
        parse_file(tmp_path / "missing.out")


CLIENT = Path(__file__).parent / "fixtures" / "client"


def test_fios_client_output_lists_every_servers_jobs_with_its_host():
    # fixtures/client/capture.sh: a reader on the server at 127.0.0.2, a writer at .3
    document = json.loads(_json_part(CLIENT / "fio-3.33-client.json"))
    listed = {job["jobname"]: job for job in document["client_stats"]}
    assert "All clients" in listed  # fio's own sum over the servers: not a job
    output = parse_file(CLIENT / "fio-3.33-client.json")
    reader, writer = sorted(output.jobs, key=lambda job: job.jobname)
    assert (reader.jobname, reader.host) == ("reader", "127.0.0.2")
    assert (writer.jobname, writer.host) == ("writer", "127.0.0.3")
    assert reader.read.iops == listed["reader"]["read"]["iops"]
    assert writer.write.iops == listed["writer"]["write"]["iops"]
    assert reader.write is None and writer.read is None
    assert output.text_before.startswith("<")  # each server's banner, prefixed with its name


def test_a_server_that_did_not_answer_has_no_jobs_in_the_clients_output():
    output = parse_file(CLIENT / "fio-3.33-client-absent.json")
    assert {job.host for job in output.jobs} == {"127.0.0.2", "127.0.0.3"}


def test_a_job_of_a_plain_run_has_no_host(fio_fixture):
    output = parse_file(fio_fixture("fio-3.33-jsonplus-reader-writer.out"))
    assert {job.host for job in output.jobs} == {""}


def _json_part(path: Path) -> str:
    text = path.read_text()
    return text[text.index("\n{") :]
