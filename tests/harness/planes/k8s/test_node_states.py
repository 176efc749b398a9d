"""harness/planes/k8s/node_states.py: the cluster's state in each sample of its nodes and
the step's pods, as the API answered them (the nodes' and pods' JSON, cut to the fields
read), and through a real node crash (fixtures/node-crash/capture.sh)."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from harness.planes.k8s.node_states import (
    NodeStateSampler,
    node_sample,
    pod_sample,
    sampled_states,
    state_of,
)
from harness.records.phases import DEGRADED, HEALTHY, RECOVERING


def _node(ready: str, unschedulable: bool = False) -> dict:
    conditions = [
        {"type": "MemoryPressure", "status": "False"},
        {"type": "Ready", "status": ready, "reason": "KubeletReady"},
    ]
    return {"spec": {"unschedulable": unschedulable}, "status": {"conditions": conditions}}


def _pod(phase: str, ready: bool, ended: bool = False) -> dict:
    conditions = [{"type": "Ready", "status": "True" if ready else "False"}]
    state = {"terminated": {"exitCode": 0}} if ended else {"running": {}}
    status = {"phase": phase, "conditions": conditions, "containerStatuses": [{"state": state}]}
    return {"spec": {"nodeName": "n2"}, "status": status}


def _sample(nodes: dict, pods: dict) -> dict:
    return {
        "t": 1.0,
        "nodes": {name: node_sample(n) for name, n in nodes.items()},
        "pods": {name: pod_sample(p) for name, p in pods.items()},
    }


@pytest.mark.parametrize(
    "nodes, pods, state",
    [
        ({"n1": _node("True"), "n2": _node("True")}, {"c01": _pod("Running", True)}, HEALTHY),
        # the node controller has heard nothing for its grace period
        ({"n1": _node("True"), "n2": _node("Unknown")}, {"c01": _pod("Running", True)}, DEGRADED),
        ({"n1": _node("True"), "n2": _node("True", True)}, {}, DEGRADED),  # cordoned
        # back, but a pod not settled yet: placed again, or not ready on its node
        ({"n1": _node("True")}, {"c01": _pod("Pending", False)}, RECOVERING),
        ({"n1": _node("True")}, {"c01": _pod("Running", False)}, RECOVERING),
        # a pod that ended (lost with its node, or done) is settled, even before its
        # phase says so
        ({"n1": _node("True")}, {"c01": _pod("Failed", False, True)}, HEALTHY),
        ({"n1": _node("True")}, {"c01": _pod("Running", False, True)}, HEALTHY),
    ],
)
def test_the_clusters_state_in_a_sample(nodes, pods, state):
    assert state_of(_sample(nodes, pods)) == state


def test_a_sample_the_api_did_not_answer_says_nothing():
    assert state_of({"t": 1.0, "error": "MaxRetryError: ..."}) is None
    assert node_sample({"status": {}}) == {"ready": "Unknown", "cordoned": False}


def test_a_real_crash_reads_healthy_then_degraded_until_the_node_is_ready_again():
    raw = Path(__file__).parent / "fixtures" / "node-crash" / "step" / "raw"
    faults = json.loads((raw / "faults.json").read_text())
    started = faults["started_t"]
    crashed, restored = (g["given_t"] - started for g in faults["given"])
    changes = []
    for t, state in sampled_states(raw):
        if not changes or changes[-1][1] != state:
            changes.append((t - started, state))
    assert [state for _, state in changes][:4] == [HEALTHY, DEGRADED, RECOVERING, HEALTHY]
    # Kubernetes called the node not ready only once its lease ran out, 40 to 55 s after
    # the crash; ready again after the restore
    assert 40 <= changes[1][0] - crashed <= 55
    assert changes[2][0] > restored


class _SlowApi:
    """The JSON API's ``get``, answering a node and no pods after ``seconds``."""

    def __init__(self, seconds: float):
        self.seconds = seconds

    def get(self, path: str, **_: object) -> dict:
        time.sleep(self.seconds)
        return {"items": [{"metadata": {"name": "n1"}, **_node("True")}] if "nodes" in path else []}


def test_a_sample_is_stamped_when_the_api_answered_not_when_it_was_asked():
    sampler = NodeStateSampler(Path("unused"), None, "ns", lambda: 0.0)
    sampler.api = _SlowApi(0.2)
    before = time.time()
    sample = sampler.take()
    assert before <= sample["asked_t"] and sample["t"] - sample["asked_t"] >= 0.4
    assert state_of(sample) == HEALTHY
