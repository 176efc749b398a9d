"""The migration workload on the two-node testbed (`up --nodes 2`, shared by these tests,
back to one node at the end), 2 MariaDB pods each time:
- drain, through the k8s_scenarios test as a user runs it, on ceph-fs: the pods move
  from the first node to the second; per pod Running and Ready times, io-pause, the
  all-back time; the rows counted before and after are the tables' rows; the node is
  schedulable again; the page has the table and the timeline;
- crash of the second node (`volperf testbed crash-node`, then the out-of-service taint):
  the pods come back on the first; the node is restarted, Ready and untainted;
- drain on local-static (node-bound): the step fails quoting the scheduler ("volume node
  affinity conflict"); the node is brought back, the pods run there again and their rows
  are all there;
- a run that died with the node drained or crashed: `volperf cleanup` uncordons it and
  takes the taint off, from the campaign's created.json."""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from pathlib import Path

import pytest

from harness.campaign.cleanup import remove_created
from harness.campaign.run import run_campaign
from harness.core.spec import validate
from harness.core.store import CampaignStore
from harness.planes.k8s.node_failure import NODE_KIND, OUT_OF_SERVICE
from harness.planes.k8s.target import KubernetesTarget
from harness.testbeds.k8s.configs import NODES
from tests.harness.helpers import (
    REPO,
    doc_source_copy,
    k8s_scenarios_argv,
    k8s_status,
)

FIRST, SECOND = NODES
TABLES, TABLE_SIZE = 2, 2000  # k8s_scenarios' small scale
EVERY_ROW = {"before": TABLES * TABLE_SIZE, "after": TABLES * TABLE_SIZE}  # of a database


def _core(k8s_testbed):
    from kubernetes import client

    return client.CoreV1Api(k8s_testbed.api())


def _rows(path: Path) -> list[dict[str, str]]:
    with path.open() as handle:
        return list(csv.DictReader(handle))


def _raw(campaign: Path) -> Path:
    [raw] = campaign.glob("steps/*/raw")
    return raw


def _node_back(core, name: str) -> None:
    node = core.read_node(name)
    assert not node.spec.unschedulable
    assert OUT_OF_SERVICE["key"] not in {t.key for t in node.spec.taints or []}
    ready = [c.status for c in node.status.conditions if c.type == "Ready"]
    assert ready == ["True"]


def _spec(k8s_testbed, name: str, storage_class: str, **workload):
    return validate(
        {
            "name": name,
            "target": {
                "type": "k8s",
                "kubeconfig": str(k8s_testbed.kubeconfig),
                "storage_class": storage_class,
                "image_pull_policy": "Never",
                "pod_timeout": 120,
                "node_load": False,
            },
            "workloads": [
                {
                    "name": "move",
                    "tool": "migration",
                    "tables": TABLES,
                    "table_size": TABLE_SIZE,
                    "threads": [2],
                    "recovery_timeout": 180,
                    **workload,
                }
            ],
            "sweep": [2],
        }
    )


def test_a_drained_node_s_database_pods_run_on_the_other_with_their_rows(two_nodes, tmp_path):
    """The k8s_scenarios test, run as a user runs it, on ceph-fs."""
    doc_source_copy(tmp_path)
    argv = k8s_scenarios_argv(
        two_nodes,
        tmp_path,
        str(REPO / "k8s_scenarios" / "test_migration.py"),
        "--volperf-campaign",
        "ci",
        "--volperf-storage-class",
        "ceph-fs",
    )
    done = subprocess.run(argv, cwd=tmp_path, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert "1 passed" in done.stdout
    campaign = tmp_path / "results" / "ci-migration-ceph-fs"
    raw = _raw(campaign)
    kills = json.loads((raw / "kills.json").read_text())
    # the first Ready node by name failed; both pods came back on the other one
    assert [(k["old_node"], k["new_node"]) for k in kills] == [(FIRST.name, SECOND.name)] * 2
    events = _rows(campaign / "events.csv")
    by = {(e["consumer"], e["event"]): e for e in events}
    for kill in kills:
        consumer = kill["consumer"]
        ready = float(by[(consumer, "server-recovery")]["seconds"])
        running = float(by[(consumer, "pod-replaced")]["seconds"])
        assert ready == pytest.approx(kill["ready_at"] - kill["killed_at"])
        assert 0 < running <= ready
        assert by[(consumer, "io-pause")]["seconds"] != ""  # its client's transactions resumed
    back = float(by[("all", "all-back")]["seconds"])
    assert back == max(float(e["seconds"]) for e in events if e["event"] == "server-recovery")
    rows = json.loads((raw / "rows.json").read_text())
    assert rows == {"c01": EVERY_ROW, "c02": EVERY_ROW}
    _node_back(_core(two_nodes), FIRST.name)
    page = tmp_path / "doc" / "source" / "test_results" / campaign.name / "index.rst"
    text = page.read_text()
    assert "all back s" in text and f"{back:.2f}" in text
    assert (page.parent / "w1-migration.png").exists()


def test_a_crashed_node_s_pods_come_back_on_the_other_after_the_out_of_service_taint(
    two_nodes, tmp_path
):
    state = str(two_nodes.state)
    volperf_cli = [sys.executable, "-m", "harness.cli"]
    spec = _spec(
        two_nodes,
        "crash",
        "ceph-fs",
        failure="crash",
        node=SECOND.name,
        crash_command=[*volperf_cli, "testbed", "crash-node", "k8s", "{node}", "--state", state],
        restore_command=[*volperf_cli, "testbed", "up", "k8s", "--state", state],
    )
    core = _core(two_nodes)
    before = {d["name"]: d["pid"] for d in k8s_status(two_nodes)["daemons"]}
    outcome = run_campaign(spec, tmp_path, KubernetesTarget)
    [result] = outcome.results
    assert result.summary["state"] == "done", result.summary.get("error")
    raw = _raw(outcome.store.root)
    kills = json.loads((raw / "kills.json").read_text())
    assert [(k["old_node"], k["new_node"]) for k in kills] == [(SECOND.name, FIRST.name)] * 2
    (back,) = [e for e in result.events if e.event == "all-back"]
    assert back.seconds == max(k["ready_at"] for k in kills) - kills[0]["killed_at"]
    assert back.detail == f"node {SECOND.name} crash: 2 pods ({SECOND.name} → {FIRST.name})"
    rows = json.loads((raw / "rows.json").read_text())
    assert rows == {"c01": EVERY_ROW, "c02": EVERY_ROW}
    # the second node was killed and started again; the first kept its daemons
    after = {d["name"]: d["pid"] for d in k8s_status(two_nodes)["daemons"]}
    assert after["kubelet-2"] != before["kubelet-2"] and after["kubelet"] == before["kubelet"]
    _node_back(core, SECOND.name)


def test_on_a_node_bound_class_the_pods_stay_pending_and_nothing_is_lost(two_nodes, tmp_path):
    spec = _spec(two_nodes, "bound", "local-static", failure="drain", node=FIRST.name)
    outcome = run_campaign(spec, tmp_path, KubernetesTarget)
    [result] = outcome.results
    assert result.summary["state"] == "failed"
    error = result.summary["error"]
    assert error.startswith(f"node {FIRST.name} drain: pod mariadb-c002-m-")
    assert "Pending: 0/2 nodes are available:" in error
    assert "1 node(s) had volume node affinity conflict" in error, error
    recovery = [e for e in result.events if e.event == "server-recovery"]
    assert [e.seconds for e in recovery] == [None, None]
    assert all("volume node affinity conflict" in e.detail for e in recovery)
    # the node came back, the pods ran on it again: every row is there
    raw = _raw(outcome.store.root)
    rows = json.loads((raw / "rows.json").read_text())
    assert rows == {"c01": EVERY_ROW, "c02": EVERY_ROW}
    _node_back(_core(two_nodes), FIRST.name)


def test_cleanup_brings_back_a_node_a_dead_run_left_failed(two_nodes, tmp_path):
    """As a migration leaves it when volperf is killed mid-step: noted, then cordoned and
    tainted (a crash: the node was Ready again by the time of the cleanup)."""
    core = _core(two_nodes)
    store = CampaignStore(tmp_path / "dead")
    key = f"{NODE_KIND}:{two_nodes.kubeconfig}:{SECOND.name}"
    done = ["cordoned", "crashed", "tainted"]
    store.record_created(
        key, kind=NODE_KIND, kubeconfig=str(two_nodes.kubeconfig), node=SECOND.name, done=done
    )
    assert not core.read_node(SECOND.name).spec.taints  # a Ready node of the testbed's
    core.patch_node(SECOND.name, {"spec": {"unschedulable": True, "taints": [OUT_OF_SERVICE]}})
    assert OUT_OF_SERVICE["key"] in {t.key for t in core.read_node(SECOND.name).spec.taints}
    said = remove_created(store)
    assert said == [f"node {SECOND.name}'s cordon and out-of-service taint"]
    assert store.created() == {}
    _node_back(core, SECOND.name)
