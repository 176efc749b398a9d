"""sysbench fileio on a StatefulSet's PVCs: each pod runs sysbench on its own files in a
folder of its claim, as seed 002 measured file I/O on bare metal, hostPath and Rook/Ceph
(random reads and writes at once, O_DIRECT so the page cache does not answer); files
made once, then the run with the sweep's pod counts."""

from __future__ import annotations


def test_sysbench_fileio_statefulset(scenario_options, storage_class):
    scale = scenario_options.scale
    outcome = scenario_options.run(
        "fileio",
        storage_class,
        [
            {
                "name": "rndrw",
                "tool": "sysbench-fileio",
                "test": "rndrw",
                "file_total_size": scale["fileio_size"],
                "threads": scale["fileio_threads"],
                "runtime": scale["db_runtime"],
            }
        ],
        scale["fileio_sweep"],
    )
    for result in outcome.results:
        runs = [r for r in result.db_records if r.phase == "run"]
        assert len(runs) == result.summary["concurrency"]
        assert all(not r.error and r.reads_per_s and r.writes_per_s for r in runs)
        db = result.summary["db"]
        assert abs(db["reads_per_s_total"] - sum(r.reads_per_s for r in runs)) < 1e-6
        assert not db["memory_not_storage"]  # O_DIRECT: nothing to keep in memory
    loads = [r for result in outcome.results for r in result.db_records if r.phase == "load"]
    assert len(loads) == sum(scale["fileio_sweep"])  # the files made once per pod
