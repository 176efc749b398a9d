"""A fleet of 64 hosts: 64 real `fio --server`s on loopback addresses, one consumer each,
through the hosts target. What volperf itself spends on the step (its own CPU and peak
memory, from summary.json's cost), and how long it takes to rebuild the step's records
from the client's output (parse, aggregate, common window of 64 consumers' logs) and to
write the campaign's page; the figures are kept in results/scale/hosts-fleet-64.json for
the docs' Scale page. About 1 minute."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from benchmarks.scale.measure import write_figures
from harness.campaign.results import build_step
from harness.campaign.run import run_campaign
from harness.core.spec import validate
from harness.planes.registry import make_target
from harness.report.render import write_report
from tests.harness.helpers import doc_source_copy, fio_servers

HOSTS = 64
KEPT = Path(__file__).resolve().parents[1] / "results" / "scale" / f"hosts-fleet-{HOSTS}.json"


@pytest.fixture(scope="module")
def campaign(tmp_path_factory):
    root = tmp_path_factory.mktemp("fleet")
    addresses = [f"127.0.1.{i}" for i in range(1, HOSTS + 1)]
    with fio_servers(addresses, root) as servers:
        spec = validate(
            {
                "name": "fleet-64",
                "target": {"type": "hosts", "hosts": [s.host() for s in servers]},
                "workloads": [
                    {
                        "name": "randrw-4k",
                        "rw": ["randread", "randwrite"],
                        "bs": "4k",
                        "iodepth": 1,
                        "ioengine": "psync",
                        "size": "4M",
                        "runtime": 5,
                    }
                ],
                "sweep": [HOSTS],
            }
        )
        started = time.monotonic()
        outcome = run_campaign(spec, root / "results", make_target)
        wall = time.monotonic() - started
    assert outcome.ok, [r.summary["error"] for r in outcome.results]
    return outcome.store, wall, root


def test_volperfs_own_cost_with_64_hosts(benchmark, campaign):
    store, wall, _ = campaign
    [step] = json.loads((store.root / "summary.json").read_text())["steps"]
    assert step["hosts"]["answered"] == HOSTS and step["window"]["seconds"] > 3
    cost = step["cost"]
    record = benchmark.pedantic(
        build_step, args=(store, step["step"], "bench", None), rounds=3, iterations=1
    )
    assert len(record.records) == HOSTS
    benchmark.extra_info.update(
        hosts=HOSTS,
        campaign_wall_s=round(wall, 1),
        step_wall_s=cost["wall_s"],
        volperf_cpu_s=cost["cpu_s"],
        volperf_cpu_share=round(cost["cpu_s"] / cost["wall_s"], 4),
        volperf_peak_rss_mib=round(cost["peak_rss_bytes"] / 2**20),
        iops_sum=round(step["read"]["iops_sum"] + step["write"]["iops_sum"]),
        window_s=step["window"]["seconds"],
        start_spread_s=step["window"]["start_spread_s"],
        overlap=round(step["overlap"], 3),
    )
    print(json.dumps(benchmark.extra_info))
    rebuild = {"rebuild_median_s": round(benchmark.stats.stats.median, 3)}
    KEPT.parent.mkdir(parents=True, exist_ok=True)
    write_figures(KEPT, {**benchmark.extra_info, **rebuild})


def test_the_page_of_64_hosts(benchmark, campaign, tmp_path):
    store, _, _ = campaign
    source = doc_source_copy(tmp_path)
    index = benchmark.pedantic(write_report, args=(store, source), rounds=3, iterations=1)
    assert "   * - 64\n" in index.read_text()  # the step of 64 consumers in its tables
