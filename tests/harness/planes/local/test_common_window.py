"""A local campaign whose consumers start one second apart (start_stagger): the step's
figures over the common window equal those recomputed here from fio's raw per-second
logs by a reading of their own, and differ from the whole-run figures."""

from __future__ import annotations

import csv
from collections import defaultdict
from pathlib import Path

import pytest

from harness.campaign.run import run_campaign
from harness.planes.local.fio_target import LocalFioTarget
from harness.tools.fio.histogram import bucket_value
from tests.harness.helpers import tiny_spec

pytestmark = [pytest.mark.functional, pytest.mark.quiet]  # start spreads and windows in seconds


def independent_window(logs: Path) -> tuple[float, float, dict[tuple[str, str, str], float]]:
    """(start, end) of the time all consumers ran, in ms, and each consumer's mean of each
    log over it, by (consumer, kind, direction): each log line "time, value, direction,
    …" covers the second before its time."""
    times: dict[str, list[int]] = defaultdict(list)
    points: dict[tuple[str, str, str], list[tuple[int, float]]] = defaultdict(list)
    for path in logs.glob("*.log"):
        if "_hist." in path.name:
            continue
        consumer, kind = path.name.split("_")[0], path.name.split("_")[1].split(".")[0]
        for line in csv.reader(path.open()):
            t, value = int(line[0]), float(line[1])
            times[consumer].append(t)
            direction = {"0": "read", "1": "write"}[line[2].strip()]
            points[(consumer, kind, direction)].append((t, value))
    start = max(min(ts) - 1000 for ts in times.values())
    end = min(max(ts) for ts in times.values())
    means = {}
    for key, series in points.items():
        within = [v for t, v in series if start <= t - 500 <= end]
        means[key] = sum(within) / len(within)
    return start, end, means


def independent_p99_ms(logs: Path, start: float, end: float) -> float:
    """The 99th percentile of the readers' I/Os completed in the window, from their
    histogram logs: "time, direction, block size, count per bucket …"."""
    counts: dict[int, int] = defaultdict(int)
    for path in logs.glob("*randread_clat_hist.*.log"):
        for line in csv.reader(path.open()):
            if start <= int(line[0]) - 500 <= end:
                buckets = [int(c) for c in line[3:]]
                for index, count in enumerate(buckets):
                    counts[bucket_value(index, len(buckets) // 64)] += count
    total, seen = sum(counts.values()), 0
    for value in sorted(counts):
        seen += counts[value]
        if seen >= 0.99 * total:
            return value / 1e6
    raise AssertionError("no I/Os in the window")


def test_staggered_consumers_are_summed_over_their_common_window(tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    spec = tiny_spec(
        data,
        sweep=[3],
        workload={"runtime": 4, "start_stagger": 1, "prefill": False, "histogram_logs": True},
    )
    outcome = run_campaign(spec, tmp_path / "results", LocalFioTarget)
    assert outcome.ok, [r.summary for r in outcome.results]
    [result] = outcome.results
    summary, store = result.summary, outcome.store
    raw = store.raw_dir(summary["step"])
    assert "startdelay=2" in (raw / "fio.job").read_text()

    start, end, means = independent_window(raw / "logs")
    readers = {c: v for (c, kind, d), v in means.items() if kind == "iops" and d == "read"}
    window = summary["window"]
    assert (window["start_ms"], window["end_ms"]) == (start, end)
    assert window["seconds"] == pytest.approx(2.0, abs=0.3)  # 4 s runs, 2 s apart
    assert window["start_spread_s"] == pytest.approx(2.0, abs=0.3)
    assert set(readers) == {"c01-randread", "c03-randread"}
    assert window["read"]["iops_sum"] == pytest.approx(sum(readers.values()))
    # every figure of both directions: sums of IOPS and KiB/s, the mean of mean latencies
    for direction in ("read", "write"):
        of = {
            kind: [v for (c, k, d), v in means.items() if k == kind and d == direction]
            for kind in ("iops", "bw", "clat")
        }
        figures = window[direction]
        assert figures["consumers"] == len(of["iops"])
        assert figures["iops_sum"] == pytest.approx(sum(of["iops"]))
        assert figures["bandwidth_sum"] == pytest.approx(sum(of["bw"]))
        clat_ms = sum(of["clat"]) / len(of["clat"]) / 1e6  # fio 3 logs nanoseconds
        assert figures["clat_mean_avg"] == pytest.approx(clat_ms)
    assert window["read"]["p99_merged"] == pytest.approx(
        independent_p99_ms(raw / "logs", start, end)
    )
    # the whole-run sum counts c01 alone at the start and c03 alone at the end
    assert window["read"]["iops_sum"] != pytest.approx(summary["read"]["iops_sum"], rel=0.01)
    assert summary["overlap"] < 0.9 and not summary["overlap_estimated"]
    assert "low-overlap" in {w["code"] for w in summary["warnings"]}

    rows = {r["jobname"]: r for r in csv.DictReader((store.root / "fio.csv").open())}
    for jobname, mean in readers.items():
        assert float(rows[jobname]["window_read_iops"]) == pytest.approx(mean)
    assert float(rows["c02-randwrite"]["window_write_iops"]) > 0
    assert rows["c02-randwrite"]["window_read_iops"] == ""


def test_fio_ends_a_run_that_attained_steady_state_and_says_so(tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    steady = {"criterion": "iops:50%", "duration": 3, "ramp": 1}
    spec = tiny_spec(data, sweep=[2], workload={"runtime": 30, "steadystate": steady})
    outcome = run_campaign(spec, tmp_path / "results", LocalFioTarget)
    assert outcome.ok, [r.summary for r in outcome.results]
    [result] = outcome.results
    found = result.summary["steadystate"]
    assert found["criterion"].startswith("iops:50") and found["duration_s"] == 3
    assert found["attained"] == 2, found
    assert all(r.stop_ms - r.start_ms < 20_000 for r in result.records)  # not the 30 s
    assert "not-steady" not in {w["code"] for w in result.summary["warnings"]}
