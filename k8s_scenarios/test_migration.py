"""Migration: the failover scenario's database pods (MariaDB with sysbench, 1-second
reports from client pods of their own) all start on one node, which is then drained
(cordoned, the pods evicted); each pod's time to Running and Ready on another node and
its client's io-pause are events, and so is the time until all are back, the seed
study's figure (15 s on GlusterFS against 421 s on EBS). The node is brought back at the
end; the rows each database had before the move are all there after it.

Needs two Ready, schedulable nodes and a class whose volumes follow a pod to another
node (a node-bound one fails the step, quoting why the pods stayed Pending)."""

from __future__ import annotations


def test_migration_drain(scenario_options, storage_class):
    scale = scenario_options.scale
    pods = scale["migration_pods"]
    outcome = scenario_options.run(
        "migration",
        storage_class,
        [
            {
                "name": "drain",
                "tool": "migration",
                "failure": "drain",
                "tables": scale["tables"],
                "table_size": scale["table_size"],
                "threads": [4],
                "before": 5,
                "after": 10,
                "recovery_timeout": scenario_options.pod_timeout,
            }
        ],
        [pods],
    )
    (result,) = outcome.results
    kinds = [e.event for e in result.events]
    assert {k: kinds.count(k) for k in set(kinds)} == {
        "server-recovery": pods,
        "pod-replaced": pods,
        "io-pause": pods,
        "all-back": 1,
    }
    (back,) = [e for e in result.events if e.event == "all-back"]
    ready = [e.seconds for e in result.events if e.event == "server-recovery"]
    assert back.seconds is not None and back.seconds == max(ready)
    warnings = result.summary["warnings"]
    assert not [w for w in warnings if w["code"] == "rows-changed"], warnings
