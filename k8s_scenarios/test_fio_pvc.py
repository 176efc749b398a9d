"""fio on PVCs: at each step N pods start at once, each with its own PVC of the class, half
reading and half writing; one fio.csv row per pod, PVC-bound and pod-running times as
events; one campaign per StorageClass (`volperf compare` sets them side by side)."""

from __future__ import annotations

from harness.campaign import run_campaign
from harness.spec import validate
from harness.targets.k8s import K8sFioTarget


def test_fio_on_pvcs(scenario_options, storage_class):
    scale = scenario_options.scale
    spec = validate({
        "name": f"{scenario_options.campaign}-fio-{storage_class}",
        "target": scenario_options.target(storage_class),
        "workloads": [{"name": "randrw-4k", "rw": ["randread", "randwrite"], "bs": "4k",
                       "iodepth": 16, "size": scale["fio_size"],
                       "runtime": scale["fio_runtime"], "prefill": True}],
        "sweep": scale["fio_sweep"],
        "labels": {"storage_class": storage_class, "scenario": "fio-pvc"},
    })  # fmt: skip
    outcome = run_campaign(spec, scenario_options.results, K8sFioTarget)
    failed = {r.summary["step"]: r.summary.get("error") for r in outcome.results
              if r.summary["state"] != "done"}  # fmt: skip
    assert not failed, failed
    rows = [r for result in outcome.results for r in result.records]
    assert len(rows) == sum(scale["fio_sweep"])
    assert all(not r.error and (r.read or r.write) for r in rows)
