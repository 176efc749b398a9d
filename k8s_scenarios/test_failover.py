"""Failover: sysbench with 1-second reports against each database pod, from a client pod
of its own; every cycle deletes the database pods (grace period 0) and the StatefulSet
replaces each on its PVC. io-pause (no transaction acknowledged), the replacement pod's
time to Running and to Ready (serving) are events, averaged over the cycles."""

from __future__ import annotations

import json


def test_failover_io_pause(scenario_options, storage_class):
    scale = scenario_options.scale
    kills = scale["failover_kills"]
    outcome = scenario_options.run(
        "failover",
        storage_class,
        [
            {
                "name": "io-pause",
                "tool": "io-pause",
                "tables": scale["tables"],
                "table_size": scale["table_size"],
                "threads": [4],
                "kills": kills,
                "before": 5,
                "after": 5,  # from the resumption: volperf waits for it (planes/resumption.py)
                "recovery_timeout": scenario_options.pod_timeout,
            }
        ],
        [scale["failover_pods"]],
    )
    (result,) = outcome.results
    pods = scale["failover_pods"]
    by_kind = {
        kind: [e for e in result.events if e.event == kind]
        for kind in ("io-pause", "server-recovery", "pod-replaced")
    }
    assert {k: len(v) for k, v in by_kind.items()} == dict.fromkeys(by_kind, kills * pods)
    # transactions resumed after every deletion; 0 s: no whole empty 1-second interval,
    # only the lost time the detail gives
    unresolved = [e for e in by_kind["io-pause"] if e.seconds is None or e.seconds < 0]
    raw = outcome.store.root / "steps"
    kills_seen = [json.loads(p.read_text()) for p in raw.glob("*/raw/kills.json")]
    assert not unresolved, (unresolved, kills_seen)  # the kills say which addresses changed
    for replaced, ready in zip(by_kind["pod-replaced"], by_kind["server-recovery"], strict=True):
        assert 0 < replaced.seconds <= ready.seconds
