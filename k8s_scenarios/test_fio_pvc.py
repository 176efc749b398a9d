"""fio on PVCs: at each step N pods start at once, each with its own PVC of the class, half
reading and half writing; one fio.csv row per pod, PVC-bound and pod-running times as
events; one campaign per StorageClass (`volperf compare` sets them side by side)."""

from __future__ import annotations


def test_fio_on_pvcs(scenario_options, storage_class):
    scale = scenario_options.scale
    outcome = scenario_options.run(
        "fio",
        storage_class,
        [
            {
                "name": "randrw-4k",
                "rw": ["randread", "randwrite"],
                "bs": "4k",
                "iodepth": 16,
                "size": scale["fio_size"],
                "runtime": scale["fio_runtime"],
                "prefill": True,
            }
        ],
        scale["fio_sweep"],
    )
    rows = [r for result in outcome.results for r in result.records]
    assert len(rows) == sum(scale["fio_sweep"])
    assert all(not r.error and (r.read or r.write) for r in rows)
