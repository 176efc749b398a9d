"""MySQL (MariaDB) + sysbench on a StatefulSet: N replicas, each pod its own server on a
PVC of the class with sysbench beside it (as the StatefulSet study ran it); prepare
once, then sysbench OLTP read/write at each thread count of the sweep. db.csv has TPS
per pod; the report shows TPS per pod and for the whole set."""

from __future__ import annotations


def test_mysql_sysbench_statefulset(scenario_options, storage_class):
    scale = scenario_options.scale
    outcome = scenario_options.run(
        "sysbench",
        storage_class,
        [
            {
                "name": "oltp-rw",
                "tool": "sysbench-oltp",
                "engine": "mariadb",
                "test": "read_write",
                "tables": scale["tables"],
                **scenario_options.data_size("table_size", scale["table_size"]),
                "threads": scale["db_threads"],
                "runtime": scale["db_runtime"],
            }
        ],
        scale["db_sweep"],
    )
    steps = len(scale["db_sweep"]) * len(scale["db_threads"])
    assert len(outcome.results) == steps
    for result in outcome.results:
        runs = [r for r in result.db_records if r.phase == "run"]
        assert len(runs) == result.summary["concurrency"]
        assert all(not r.error and r.tps and r.tps > 0 for r in runs)
        assert abs(result.summary["db"]["tps_total"] - sum(r.tps for r in runs)) < 1e-6
