"""Redis under YCSB in every project, as the seed study ran Redis with YCSB on each
project's volume: each project a namespace with a PVC and a pod running its own
redis-server, its append-only file on the PVC (fsynced as the scale says), loaded and run
by go-ycsb's core workload a (volperf-ycsb); throughput and latencies as go-ycsb measured
them; the projects grow until the class gives out."""

from __future__ import annotations


def test_redis_projects(scenario_options, storage_class):
    scale = scenario_options.scale
    workload = {"tool": "redis", "workload": "a", **scale["redis"]}
    outcome = scenario_options.run_projects("redis", storage_class, workload)
    for result in outcome.results:
        app = result.summary.get("app") or {}
        assert app.get("run_ops_s") is None or app["run_ops_s"] > 0
        assert not app.get("run_failed_operations") and not app.get("load_failed_operations")
