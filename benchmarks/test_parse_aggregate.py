"""Parsing, recording and aggregating many consumers' json+ output (results.build_step)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from benchmarks.conftest import fio_output_of
from harness.campaign.results import build_step
from harness.core.store import CampaignStore, StepStatus, atomic_write_json
from tests.harness.helpers import fio_json

STEP = "001-bench"


def store_with_step(root, output, consumers: int) -> CampaignStore:
    store = CampaignStore(root)
    store.raw_dir(STEP).mkdir(parents=True, exist_ok=True)
    shutil.copy(output, store.raw_dir(STEP) / "fio.out")
    store.write_status(StepStatus(STEP, state="done"))
    atomic_write_json(
        store.step_dir(STEP) / "step.json",
        {
            "workload": {"name": "bench", "bs": "4k", "iodepth": 1},
            "concurrency": consumers,
            "repeat": 1,
            "consumers": [],
        },
    )
    return store


@pytest.mark.parametrize("consumers", [200, 2000])
def test_parse_and_aggregate(benchmark, bench_dir, tmp_path, consumers):
    output = fio_output_of(consumers, bench_dir / str(consumers))
    store = store_with_step(tmp_path / "c", output, consumers)
    result = benchmark.pedantic(build_step, args=(store, STEP, "bench", None), rounds=3)
    assert len(result.records) == consumers
    assert result.summary["read"]["consumers"] + result.summary["write"]["consumers"] == consumers
    benchmark.extra_info["consumers"] = consumers
    benchmark.extra_info["output_mib"] = round(output.stat().st_size / 2**20, 1)
    if consumers == 200:
        assert benchmark.stats.stats.max < 3.0


LOG_SECONDS = 600
FIXTURE_LOGS = Path(__file__).parents[1] / "tests" / "harness" / "tools" / "fio" / "fixtures"


def write_long_logs(raw: Path, jobnames: list[str], seconds: int) -> int:
    """Per-second logs of ``seconds`` for every consumer, their values cycled from a real
    fio 3.33 log (fixtures/logs), each consumer starting a few ms after the one before;
    returns the bytes written."""
    logs = raw / "logs"
    logs.mkdir(exist_ok=True)
    real = FIXTURE_LOGS / "logs"
    written = 0
    for number, jobname in enumerate(jobnames, 1):
        direction = 0 if "randread" in jobname else 1
        role = "reader" if direction == 0 else "writer"
        start = 1_795_412_804_818 + number * 3
        for kind in ("iops", "bw", "clat", "lat", "slat"):
            source = next(real.glob(f"fio-3.33-{role}_{kind}.*.log")).read_text().splitlines()
            values = [line.split(",")[1].strip() for line in source]
            text = "".join(
                f"{start + 1000 * (i + 1)}, {values[i % len(values)]}, {direction}, 0, 0\n"
                for i in range(seconds)
            )
            (logs / f"{jobname}_{kind}.{number}.log").write_text(text)
            written += len(text)
    return written


@pytest.mark.parametrize("logs", [False, True], ids=["whole-run", "with-600s-logs"])
def test_parse_and_aggregate_with_per_second_logs(benchmark, bench_dir, tmp_path, logs):
    """200 consumers' json+ output alone (the whole-run path) and with 600 s of per-second
    logs each (the common window): run one after the other in one session to compare."""
    consumers = 200
    output = fio_output_of(consumers, bench_dir / str(consumers))
    store = store_with_step(tmp_path / "c", output, consumers)
    jobnames = [j["jobname"] for j in fio_json(output)["jobs"]]
    if logs:
        size = write_long_logs(store.raw_dir(STEP), jobnames, LOG_SECONDS)
        benchmark.extra_info["logs_mib"] = round(size / 2**20, 1)
    result = benchmark.pedantic(build_step, args=(store, STEP, "bench", None), rounds=3)
    window = result.summary.get("window")
    if logs:
        assert window is not None and window["seconds"] > LOG_SECONDS - 2
        assert window["read"]["consumers"] + window["write"]["consumers"] == consumers
        assert benchmark.stats.stats.max < 5.0
    else:
        assert window is None
    benchmark.extra_info["consumers"] = consumers
