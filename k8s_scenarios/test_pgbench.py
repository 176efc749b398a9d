"""PostgreSQL + pgbench on a StatefulSet: each pod its own PostgreSQL on a PVC of the
class with pgbench beside it; the init (-i) at the scale factor is timed as the load
time, then TPS and latency at each client count."""

from __future__ import annotations


def test_pgbench_statefulset(scenario_options, storage_class):
    scale = scenario_options.scale
    outcome = scenario_options.run(
        "pgbench",
        storage_class,
        [
            {
                "name": "tpcb",
                "tool": "pgbench",
                **scenario_options.data_size("scale", scale["pgbench_scale"]),
                "threads": scale["db_threads"],
                "runtime": scale["db_runtime"],
            }
        ],
        scale["db_sweep"],
    )
    loads = [r for result in outcome.results for r in result.db_records if r.phase == "load"]
    assert len(loads) == sum(scale["db_sweep"])  # loaded once per pod, kept for the sweep
    assert all(r.load_time_s and r.load_time_s > 0 and not r.error for r in loads)
    for result in outcome.results:
        runs = [r for r in result.db_records if r.phase == "run"]
        assert runs and all(r.tps and r.tps > 0 and r.latency_avg_ms for r in runs)
