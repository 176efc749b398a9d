"""Report generation (tables and plots) for a campaign of 200 consumers (target < 5 s)."""

from __future__ import annotations

import shutil
from pathlib import Path

from benchmarks.conftest import fio_output_of
from harness.core.spec import validate
from harness.core.store import CampaignStore, StepStatus, atomic_write_json
from harness.report.render import write_report

CONSUMERS = 200


def campaign_of(root: Path, output: Path) -> CampaignStore:
    spec = validate(
        {
            "name": "bench200",
            "target": {"type": "local", "dir": str(root)},
            "sweep": [CONSUMERS],
            "workloads": [
                {
                    "name": "bench",
                    "rw": ["randread", "randwrite"],
                    "bs": "4k",
                    "size": "256k",
                    "runtime": 1,
                    "ioengine": "psync",
                    "direct": False,
                }
            ],
        }
    )
    store = CampaignStore(root / "results" / spec.name)
    step = f"001-bench-c{CONSUMERS:03d}-r1"
    store.raw_dir(step).mkdir(parents=True)
    shutil.copy(output, store.raw_dir(step) / "fio.out")
    store.write_status(StepStatus(step, state="done"))
    atomic_write_json(
        store.step_dir(step) / "step.json",
        {
            "workload": spec.workloads[0].model_dump(mode="json"),
            "concurrency": CONSUMERS,
            "repeat": 1,
            "consumers": [],
        },
    )
    store.write_campaign(spec.to_dict(), {"host": "bench"}, "bench")
    return store


def test_report_of_200_consumers(benchmark, bench_dir, tmp_path):
    store = campaign_of(tmp_path, fio_output_of(CONSUMERS, bench_dir / str(CONSUMERS)))
    (tmp_path / "doc").mkdir()
    index = benchmark.pedantic(write_report, args=(store, tmp_path / "doc"), rounds=3)
    assert "Sum over consumers" in index.read_text()
    assert benchmark.stats.stats.max < 5.0
