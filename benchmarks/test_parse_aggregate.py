"""Parsing, recording and aggregating many consumers' json+ output (results.build_step)."""

from __future__ import annotations

import shutil

import pytest

from benchmarks.conftest import fio_output_of
from harness.campaign.results import build_step
from harness.core.store import CampaignStore, StepStatus, atomic_write_json

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
