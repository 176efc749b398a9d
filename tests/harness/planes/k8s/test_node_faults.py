"""Node faults during a fio step, for real on the two-node testbed (`up --nodes 2`, back to
one node at the end), on local-path volumes, one pod on each node:

- examples/k8s-node-crash.yaml (on the suite's testbed), the second node crashed at +5 s
  and restored at +70 s, its step 200 s long rather than 130 (the testbed's `up`, which
  restores the node, took 78 s on a busy suite where it takes 18 s alone): its pod is lost
  to the fault and said so, the step is done with the other's figures; the phases come
  from Kubernetes' own state (the node NotReady when its lease ran out, Ready again
  after its restore), their boundaries within 2 s of the node controller's event and of
  the node's own Ready transition; the IOPS kept of the survivor as its own per-second
  log reads; the node Ready and schedulable, nothing left;
- volperf killed while the node is down, then `volperf cleanup`: the node is restored
  and Ready, the step's namespace gone, nothing noted."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from types import SimpleNamespace

import pytest
import yaml

from harness.campaign.run import run_campaign
from harness.core.faults import NodeFault
from harness.core.spec import validate
from harness.core.store import CampaignStore
from harness.host.sampler import read_samples
from harness.planes.base import TargetError
from harness.planes.k8s.node_faults import NOTE_KIND, NodeState, NodeSwitch
from harness.planes.k8s.node_states import STATES_FILE
from harness.planes.k8s.target import KubernetesTarget
from harness.records.phases import DEGRADED, HEALED, HEALTHY
from harness.testbeds.k8s.configs import NODES
from harness.testbeds.k8s.testbed import K8sTestbed
from harness.tools.fio.logs import LOG_AVG_MS
from tests.harness.helpers import REPO, run_killed_when, volperf

FIRST, SECOND = NODES
EXAMPLE = REPO / "examples" / "k8s-node-crash.yaml"
SHIPPED = yaml.safe_load(EXAMPLE.read_text())
RATE = SHIPPED["workloads"][0]["rate_iops"]  # IOPS a pod: steady, whatever the nodes share
CRASH_AT, RESTORE_AT = (f["at"] for f in SHIPPED["workloads"][0]["faults"])
RUNTIME_S = 200  # room for the node's restore on a busy machine, to be seen healed


def _document(k8s_testbed, **workload) -> dict:
    """The example as shipped, on the suite's testbed, its workload changed by
    ``workload``."""
    document = yaml.safe_load(EXAMPLE.read_text())
    document["target"].update(
        kubeconfig=str(k8s_testbed.kubeconfig), image_pull_policy="Never", pod_timeout=120
    )
    document["workloads"][0].update(workload)
    return document


def _core(k8s_testbed):
    from kubernetes import client

    return client.CoreV1Api(k8s_testbed.api())


def _node_back(core, name: str) -> None:
    node = core.read_node(name)
    assert not node.spec.unschedulable
    ready = [c.status for c in node.status.conditions if c.type == "Ready"]
    assert ready == ["True"]


def _epoch(moment) -> float:
    return moment.timestamp() if isinstance(moment, datetime) else float(moment)


def _not_ready_event(core, node: str, after: float) -> float:
    """When the node controller said the node was not ready (its event, whole seconds)."""
    events = core.list_namespaced_event(
        "default", field_selector=f"involvedObject.kind=Node,involvedObject.name={node}"
    ).items
    times = [
        _epoch(e.last_timestamp or e.event_time)
        for e in events
        if e.reason == "NodeNotReady" and _epoch(e.last_timestamp or e.event_time) >= after - 1
    ]
    assert times, [(e.reason, e.last_timestamp) for e in events]
    return min(times)


def _ios_between(log: Path, start: float, end: float) -> float:
    """The I/Os fio's own per-second IOPS log says completed in [start, end): each line
    is a second's average, stamped at its end (log_unix_epoch), read apart from volperf."""
    total = 0.0
    for line in log.read_text().splitlines():
        ms, iops = (float(v) for v in line.split(",")[:2])
        second_end = ms / 1000
        lo, hi = max(second_end - LOG_AVG_MS / 1000, start), min(second_end, end)
        total += iops * max(0.0, hi - lo)
    return total


def test_a_crashed_node_s_pod_is_lost_and_the_step_splits_at_kubernetes_own_times(
    two_nodes, tmp_path
):
    core = _core(two_nodes)
    spec = validate(_document(two_nodes, runtime=RUNTIME_S))
    outcome = run_campaign(spec, tmp_path, KubernetesTarget)
    [result] = outcome.results
    summary = result.summary
    assert summary["state"] == "done", summary.get("error")
    [raw] = outcome.store.root.glob("steps/*/raw")
    pods = json.loads((raw / "pods.json").read_text())["consumers"]
    # one pod on each node (the faulted step's spread); the second node's is lost
    assert sorted(p["node"] for p in pods.values()) == [FIRST.name, SECOND.name]
    [lost] = [name for name, p in pods.items() if p["node"] == SECOND.name]
    [kept] = [name for name, p in pods.items() if p["node"] == FIRST.name]
    warnings = {w["code"]: w["message"] for w in summary["warnings"]}
    assert warnings["pods-lost"] == (
        f"pod {lost} ran on nodes the faults acted on and gave no result: the step's "
        "figures are of the 1 other pod"
    )
    by_consumer = {r.context.consumer: r for r in result.records}
    assert by_consumer[lost].error.startswith(
        f"pod {lost}: lost to the fault crash-node {SECOND.name} at +{CRASH_AT} s"
    )
    assert not by_consumer[kept].error
    # both faults given on time from the pods' start, their commands kept
    faults = {f["action"]: f for f in summary["faults"]}
    assert set(faults) == {"crash-node", "restore-node"}
    assert all(f["error"] is None and f["on"] == f"node {SECOND.name}" for f in faults.values())
    # due from the pods' shared start (the time volperf's signal gave them), given on
    # time: the summary's at_s counts from the start of the pod that ran, whose fio may
    # begin later than that on a busy machine (1.7 s in a suite run)
    shared = min(float(p["start_at"]) for p in pods.values())
    for action, due in (("crash-node", CRASH_AT), ("restore-node", RESTORE_AT)):
        assert due - 0.5 <= faults[action]["given_t"] - shared < due + 1.5, faults[action]
    assert faults["crash-node"]["commands"] == [
        f"volperf testbed crash-node k8s {SECOND.name} --state {two_nodes.state}"
    ]
    # the phases, from Kubernetes' own state: healthy until the node controller called
    # the node not ready, degraded until it was Ready again, healed after
    phases = summary["phases"]
    states = [p["state"] for p in phases["phases"]]
    assert states[0] == HEALTHY and DEGRADED in states and states[-1] == HEALED, states
    start = min(r.start_ms for r in result.records if not r.error) / 1000
    [degraded] = [p for p in phases["phases"] if p["state"] == DEGRADED]
    not_ready = _not_ready_event(core, SECOND.name, shared + CRASH_AT)
    # each sample stamped when the API answered: a boundary after Kubernetes' own time by
    # up to the sampling interval and the answer's own time
    late = 2.0 + max(s["t"] - s["asked_t"] for s in read_samples(raw / STATES_FILE))
    assert -1.0 <= start + degraded["start_s"] - not_ready <= late, (degraded, not_ready - start)
    ready = next(
        c for c in core.read_node(SECOND.name).status.conditions if c.type == "Ready"
    ).last_transition_time.timestamp()
    degraded_end = start + degraded["start_s"] + degraded["seconds"]
    assert -1.0 <= degraded_end - ready <= late, (degraded_end - start, ready - start)
    assert phases["fault_to_healed_s"] is not None
    # the survivor's IOPS in each phase as its own per-second log reads, apart from volperf
    [log] = (raw / "pods" / f"{kept}.logs").glob("*_iops.1.log")
    for figures in phases["consumers"][kept]:
        begin = start + figures["start_s"]
        own = _ios_between(log, begin, begin + figures["seconds"]) / figures["seconds"]
        assert figures["iops"] == pytest.approx(own, abs=RATE * 1.5 / figures["seconds"] + 0.5)
    # each phase's share of the healthy phase's IOPS, from the I/Os and seconds (the IOPS
    # themselves are rounded to 0.1: a share of two of them can be 0.2 % off); what the
    # summary rounds (I/Os to a tenth, seconds to a thousandth, the share to a tenth: each
    # half of that off at most) bounds the difference: a phase of one second and 50 I/Os
    # can be 0.2 % off by its rounding alone (CI of 2026-12-06: 99.9 against 100.05)
    healthy = phases["sum"][0]
    for figures in phases["sum"]:
        iops = figures["ios"] / figures["seconds"]
        share = 100 * iops / (healthy["ios"] / healthy["seconds"])
        rounding = sum(
            0.05 / max(f["ios"], 0.05) + 0.0005 / f["seconds"] for f in (figures, healthy)
        )
        assert figures["kept_pct"] == pytest.approx(share, abs=0.05 + share * rounding + 1e-9)
    assert "backend-phases" in warnings
    # the node is back, Ready and schedulable; nothing of the campaign's is left
    _node_back(core, SECOND.name)
    assert CampaignStore(outcome.store.root).created() == {}
    assert not [
        n
        for n in core.list_namespace().items
        if n.metadata.name.startswith("volperf-k8s-node-crash")
    ]


def test_a_drained_node_s_pod_is_evicted_and_lost_and_the_node_cordoned_until_uncordoned(
    two_nodes, tmp_path
):
    faults = [
        {"action": "drain-node", "node": SECOND.name, "at": 3},
        {"action": "uncordon-node", "node": SECOND.name, "at": 15},
    ]
    document = {**_document(two_nodes, faults=faults, runtime=30), "name": "drained"}
    outcome = run_campaign(validate(document), tmp_path, KubernetesTarget)
    [result] = outcome.results
    summary = result.summary
    assert summary["state"] == "done", summary.get("error")
    [raw] = outcome.store.root.glob("steps/*/raw")
    pods = json.loads((raw / "pods.json").read_text())["consumers"]
    [lost] = [name for name, p in pods.items() if p["node"] == SECOND.name]
    drain = next(f for f in summary["faults"] if f["action"] == "drain-node")
    namespace = json.loads((raw / "pods.json").read_text())["namespace"]
    assert drain["commands"][1:] == [f"evict {namespace}/{lost}"], drain["commands"]
    assert [r.error for r in result.records if r.context.consumer == lost][0].startswith(
        f"pod {lost}: lost to the fault drain-node {SECOND.name} at +3 s"
    )
    # cordoned: degraded from the next sample after the drain until the uncordon, each
    # as given (its time from the start of the pods that ran to the end, as the phases'
    # are: the evicted pod, which began first, is not among them)
    # are: the evicted pod, which began first, is not among them); a sample is stamped
    # when the API answered, late by as long as the slowest answer took
    uncordon = next(f for f in summary["faults"] if f["action"] == "uncordon-node")
    samples = read_samples(raw / STATES_FILE)
    slowest = max(s["t"] - s["asked_t"] for s in samples)
    late = 2.5 + slowest
    [degraded] = [p for p in summary["phases"]["phases"] if p["state"] == DEGRADED]
    assert drain["at_s"] <= degraded["start_s"] <= drain["at_s"] + late, (degraded, drain)
    ended = degraded["start_s"] + degraded["seconds"]
    assert uncordon["at_s"] <= ended <= uncordon["at_s"] + uncordon["took_s"] + late, (
        degraded,
        uncordon,
        slowest,
    )
    assert summary["phases"]["phases"][-1]["state"] == HEALED
    _node_back(_core(two_nodes), SECOND.name)


def _crashed(store: CampaignStore, k8s_testbed) -> bool:
    """The crash noted in created.json, and the second node's kubelet gone."""
    if not store.root.exists():
        return False
    notes = [n for n in store.created().values() if n.get("kind") == NOTE_KIND]
    if not (notes and notes[0]["crashed"]):
        return False
    kubelet = next(d for d in K8sTestbed(k8s_testbed.state).daemons() if d.name == "kubelet-2")
    return kubelet.pid() is None


def test_cleanup_restores_a_node_a_killed_run_left_crashed(two_nodes, tmp_path):
    core = _core(two_nodes)
    faults = [{"action": "crash-node", "node": SECOND.name, "at": 2}]
    document = {**_document(two_nodes, faults=faults, runtime=60), "name": "killed"}
    spec = tmp_path / "spec.yaml"
    spec.write_text(yaml.safe_dump(document))
    store = CampaignStore(tmp_path / "results" / "killed")
    run_killed_when(
        spec, tmp_path, lambda: _crashed(store, two_nodes), "the crash was noted and given"
    )
    done = volperf("cleanup", str(store.root), cwd=tmp_path, timeout=600)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    said = done.stdout + done.stderr
    assert f"undone: node {SECOND.name} of the k8s testbed" in said, said
    _node_back(core, SECOND.name)
    assert store.created() == {}
    assert not [
        n for n in core.list_namespace().items if n.metadata.name.startswith("volperf-killed")
    ]


def test_a_nodes_state_after_each_action_and_what_puts_it_back():
    state = NodeState().after("crash-node").after("drain-node")
    assert state == NodeState(crashed=True, cordoned=True)
    assert state.undoing() == ["restore-node", "uncordon-node"]
    assert not NodeState(crashed=True).after("restore-node").changed
    assert NodeState(cordoned=True).either(NodeState(crashed=True)) == state


class _Nodes:
    """A cluster's node list, as the client's CoreV1Api gives it."""

    def __init__(self, *names: str):
        self.names = names

    def list_node(self):
        items = [SimpleNamespace(metadata=SimpleNamespace(name=n)) for n in self.names]
        return SimpleNamespace(items=items)


def test_faults_on_a_cluster_that_is_not_the_testbed_are_refused_naming_them(tmp_path):
    kubeconfig = tmp_path / "config"  # no testbed's marker beside it
    switch = NodeSwitch(kubeconfig, _Nodes("a", "b"))
    crash = NodeFault(action="crash-node", node="b", at=5)
    with pytest.raises(TargetError, match=r"faults crash-node b at \+5 s: volperf crashes"):
        switch.check([crash], allowed=True)
    drain = NodeFault(action="drain-node", node="b", at=5)
    with pytest.raises(TargetError) as refused:
        switch.check([drain], allowed=False)
    said = str(refused.value)
    assert "is not the volperf k8s testbed" in said and "allow_faults: true" in said
    assert f"+5 s: kubectl --kubeconfig {kubeconfig} cordon b" in said
    switch.check([drain], allowed=True)  # allowed, and the node is there
    missing = NodeFault(action="drain-node", node="c", at=5)
    with pytest.raises(TargetError, match=r"drain-node c at \+5 s: no such node; .* a, b"):
        switch.check([missing], allowed=True)
