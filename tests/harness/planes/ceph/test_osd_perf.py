"""The OSDs' load from their perf counters: each function against figures worked out by
hand; then a real run (fixtures/capture_osd_perf.py: 4 s of 4k random writes by fio's rbd
engine on the Ceph testbed with librbd's cache off, sampled every 0.5 s), whose OSD
counted every write fio made."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.host.sampler import read_samples
from harness.planes.ceph.osd_perf import counters_of, osd_loads, osd_perf_problem

FIXTURES = Path(__file__).parent / "fixtures"


def perf(t: float, reads: int, writes: int, r_lat: tuple[int, float], w_lat: tuple[int, float]):
    return {
        "t": t,
        "osd_perf": {
            "0": {
                "op_r": reads,
                "op_w": writes,
                "op_rw": 0,
                "op_out_bytes": reads * 4096,
                "op_in_bytes": writes * 4096,
                "op_r_latency": list(r_lat),
                "op_w_latency": list(w_lat),
            },
            "1": {"error": "ceph tell osd.1 perf dump failed (-110): timed out"},
        },
    }


SAMPLES = [
    perf(0.0, 0, 0, (0, 0.0), (0, 0.0)),
    perf(1.0, 100, 300, (100, 0.1), (300, 0.6)),
    perf(2.0, 400, 500, (400, 0.4), (500, 1.0)),
    {"t": 3.0, "error": "cannot connect to Ceph"},
    perf(4.0, 400, 500, (400, 0.4), (500, 1.0)),
]


def test_a_sample_keeps_the_counters_and_each_latencys_count_and_sum():
    dump = json.loads((FIXTURES / "osd-perf-dump.json").read_text())
    kept = counters_of(dump)
    osd = dump["osd"]
    assert kept["op_r"] == osd["op_r"] and kept["op_in_bytes"] == osd["op_in_bytes"]
    assert kept["op_w_latency"] == [osd["op_w_latency"]["avgcount"], osd["op_w_latency"]["sum"]]
    assert set(kept) == {
        "op_r",
        "op_w",
        "op_rw",
        "op_in_bytes",
        "op_out_bytes",
        "op_r_latency",
        "op_w_latency",
    }


def test_each_osd_that_answered_gets_means_peaks_and_latency_over_the_window():
    (load,) = osd_loads(SAMPLES, (0.0, 2.0))
    assert (load.osd, load.seconds) == ("osd.0", 2.0)
    assert load.reads_s_mean == 200 and load.reads_s_peak == 300
    assert load.writes_s_mean == 250 and load.writes_s_peak == 300
    assert load.read_kib_s_mean == 800 and load.write_kib_s_mean == 1000
    assert load.read_ms == pytest.approx(1.0) and load.write_ms == pytest.approx(2.0)
    (whole,) = osd_loads(SAMPLES, None)  # an unanswered sample is passed over
    assert whole.seconds == 4.0 and whole.reads_s_mean == 100
    (idle,) = osd_loads(SAMPLES, (2.0, 4.0))
    assert idle.reads_s_mean == 0 and idle.read_ms is None  # no read in the window


def test_why_no_osd_answered_is_kept():
    assert osd_perf_problem(SAMPLES).startswith("osd.1: ceph tell osd.1 perf dump failed")
    no_caps = [{"t": 0.0, "osd_perf": {"error": "ceph osd ls failed (-13): access denied"}}]
    assert osd_loads(no_caps, None) == []
    assert osd_perf_problem(no_caps) == "ceph osd ls failed (-13): access denied"
    assert osd_perf_problem([{"t": 0.0, "status": "HEALTH_OK"}]) == ""


def test_the_osd_counted_the_client_writes_fio_made():
    samples = read_samples(FIXTURES / "osd-perf-samples.jsonl")
    job = json.loads((FIXTURES / "fio-randwrite.json").read_text())["jobs"][0]
    ios = job["write"]["total_ios"]
    (whole,) = osd_loads(samples, None)  # the samples cover fio's run and a little more
    assert whole.writes_s_mean * whole.seconds == pytest.approx(ios, rel=0.01)
    assert whole.write_kib_s_mean * whole.seconds == pytest.approx(ios * 4, rel=0.01)
    assert whole.writes_s_peak > whole.writes_s_mean


def test_the_mean_is_over_the_window_itself_not_the_samples_inside_it():
    """The suite's own run of test_target_health on a loaded machine (run67, 2026-11-29:
    fixtures/osd-perf-ramp-samples.jsonl and fio-write-4m-ramp.json, as the step kept them):
    4M writes at iodepth 16 behind a 30 ms delay per op, no write done in fio's first second,
    more each second after. The samples inside fio's window missed that first second, so the
    OSD's mean over them was 11.7 % above fio's; read at fio's own start, it is fio's."""
    samples = read_samples(FIXTURES / "osd-perf-ramp-samples.jsonl")
    fio = json.loads((FIXTURES / "fio-write-4m-ramp.json").read_text())
    write = fio["jobs"][0]["write"]
    stop = fio["timestamp_ms"] / 1000
    start = stop - fio["jobs"][0]["job_runtime"] / 1000
    (load,) = osd_loads(samples, (start, stop))
    last = max(s["t"] for s in samples)  # the sampler of this run took none at the step's end
    assert load.seconds == pytest.approx(last - start)
    fio_kib_s = write["io_kbytes"] / (write["runtime"] / 1000)
    inside = [s for s in samples if start <= s["t"] <= stop]
    (sub,) = osd_loads(inside, None)  # what the mean was over before
    assert sub.write_kib_s_mean == pytest.approx(fio_kib_s * 1.117, rel=0.01)
    assert load.write_kib_s_mean == pytest.approx(fio_kib_s, rel=0.05)
    (ended,) = osd_loads(samples, (start, last - 1))  # a sample after the stop: read there too
    assert ended.seconds == pytest.approx(last - 1 - start)
