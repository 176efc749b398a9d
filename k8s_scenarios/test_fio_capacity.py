"""How many pods, each with its own PVC of the class and asked for the same rate of random
4 KiB writes (fio's rate_iops, Poisson arrivals), the class holds at p99 <= X ms with
every pod achieving its share of the rate: volperf's capacity search (sweep.search),
doubling the pods, then bisecting, up to a maximum. The scale sets the rate, the
objective and the maximum; --volperf-capacity-rate-iops, --volperf-capacity-p99-ms,
--volperf-capacity-p50-ms, --volperf-capacity-achieved-pct, --volperf-capacity-max-pods and
--volperf-capacity-runtime set them instead.
The campaign's page states the answer ("N consumers × R IOPS at p99 <= X ms") with its
knee and each pod's pace; one campaign per class, which `volperf compare` sets side by
side capacity against capacity."""

from __future__ import annotations

import json


def test_fio_capacity_on_pvcs(scenario_options, storage_class):
    workloads, sweep = scenario_options.capacity_search()
    outcome = scenario_options.run("capacity", storage_class, workloads, sweep)
    summary = json.loads((outcome.store.root / "summary.json").read_text())
    (found,) = summary["capacity"]
    assert found["done"], found
    print(f"{storage_class}: {found['answer']}")
