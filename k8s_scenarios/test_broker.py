"""A message broker in every project, as the seed study ran a JBoss AMQ broker with its
throughput test on each project's volume: each project a namespace with a PVC and a pod
running its own NATS server (JetStream), its stream's files on the PVC (each message
fsynced before it is acknowledged, at both scales), under NATS's own benchmark client in
a second pod (nats bench: publishers, then consumers acknowledging every message);
messages per second and publishing latencies as nats bench measured them; the projects
grow until the class gives out."""

from __future__ import annotations


def test_broker_projects(scenario_options, storage_class):
    scale = scenario_options.scale
    workload = {"tool": "broker", **scale["broker"]}
    outcome = scenario_options.run_projects("broker", storage_class, workload)
    for result in outcome.results:
        app = result.summary.get("app") or {}
        assert app.get("publish_ops_s") is None or app["publish_ops_s"] > 0
        assert app.get("consume_ops_s") is None or app["consume_ops_s"] > 0
