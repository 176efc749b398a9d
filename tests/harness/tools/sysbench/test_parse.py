"""The sysbench parser against real sysbench 1.0.20 output (fixtures/db/capture.sh)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from harness.tools.sysbench.parse import SysbenchParseError, parse_file, parse_text

DB = Path(__file__).parents[1] / "fixtures" / "db"


def _printed(path: Path, label: str) -> float:
    """A figure as sysbench printed it, read with a plain regex."""
    return float(re.search(rf"^\s*{re.escape(label)}:\s+([0-9.]+)", path.read_text(), re.M)[1])


@pytest.mark.parametrize("mode", ["rndrd", "rndwr", "rndrw", "seqrd", "seqwr"])
def test_fileio_rates_are_what_sysbench_printed(mode):
    path = DB / f"sysbench-fileio-{mode}.out"
    output = parse_file(path)
    summary = output.summary
    assert output.version == "1.0.20" and output.threads == 2
    assert summary.reads_per_s == _printed(path, "reads/s")
    assert summary.writes_per_s == _printed(path, "writes/s")
    assert summary.fsyncs_per_s == _printed(path, "fsyncs/s")
    assert summary.read_mib_s == _printed(path, "read, MiB/s")
    assert summary.written_mib_s == _printed(path, "written, MiB/s")
    assert summary.latency_p95_ms == _printed(path, "95th percentile")
    assert summary.tps is None  # fileio has no transactions: not zero, absent
    assert output.intervals and all(i.read_mib_s is not None for i in output.intervals)


def test_fileio_directions_match_the_mode():
    assert parse_file(DB / "sysbench-fileio-rndrd.out").summary.writes_per_s == 0
    assert parse_file(DB / "sysbench-fileio-seqwr.out").summary.reads_per_s == 0
    rw = parse_file(DB / "sysbench-fileio-rndrw.out").summary
    assert rw.reads_per_s / rw.writes_per_s == pytest.approx(1.5, rel=0.05)  # --file-rw-ratio


def test_oltp_summary_and_intervals():
    path = DB / "sysbench-oltp-read_write.out"
    output = parse_file(path)
    text = path.read_text()
    assert output.summary.tps == float(re.search(r"transactions:\s+\d+\s+\(([0-9.]+)", text)[1])
    assert output.summary.qps == float(re.search(r"queries:\s+\d+\s+\(([0-9.]+)", text)[1])
    assert output.summary.latency_avg_ms == _printed(path, "avg")
    assert output.summary.reconnects_per_s == 0
    assert [i.time_s for i in output.intervals] == [1.0, 2.0, 3.0]
    assert output.intervals[0].tps == 815.19 and output.intervals[0].latency_p95_ms == 3.02


def test_a_failed_run_keeps_sysbench_s_words_and_no_summary():
    output = parse_file(DB / "sysbench-oltp-no-database.out")
    assert output.summary is None
    assert any("Access denied" in line for line in output.fatal)


def test_io_pause_output_shows_the_empty_interval():
    output = parse_file(DB / "sysbench-iopause.out")
    assert [i.tps for i in output.intervals][3:6] == [805.99, 0.0, 635.27]
    assert any("Lost connection" in line for line in output.fatal)


def test_not_sysbench_output_is_refused_by_name(tmp_path):
    with pytest.raises(SysbenchParseError, match="not sysbench output"):
        parse_text("fio-3.33\n{}", "c01.out")
    with pytest.raises(SysbenchParseError, match="cannot read"):
        parse_file(tmp_path / "missing.out")
