"""Namespaces volperf makes (harness/planes/k8s/cluster.py make_namespace), on the k8s
testbed: one of the name it would use that someone else made (no campaign label, holding
data) is never touched by any target, nor noted for cleanup, and the step (or, for the
databases' namespace, the campaign) fails saying so; one a killed run of the campaign
left is made anew."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from harness.campaign.run import run_campaign
from harness.core.spec import validate
from harness.core.store import CampaignStore
from harness.planes.base import TargetError
from harness.planes.k8s.cluster import (
    LABEL,
    NAMESPACE_KIND,
    delete_namespace,
    k8s_name,
    make_namespace,
)
from harness.planes.k8s.target import KubernetesTarget

pytestmark = pytest.mark.functional

GIT = {
    "name": "git",
    "tool": "git",
    "repo": {"files": 50, "file_size": "4K", "commits": 2},
    "iterations": 1,
}
FIO = {"name": "fio", "rw": "randwrite", "size": "16M", "runtime": 2}
PVCS = {"name": "pvcs", "tool": "pvc-provision", "pvcs": 1, "size": "16M"}
OLTP = {"name": "oltp", "tool": "sysbench-oltp", "runtime": 2}


def _theirs(core: Any, name: str) -> None:
    core.create_namespace({"metadata": {"name": name}})
    core.create_namespaced_config_map(name, {"metadata": {"name": "keep"}, "data": {"a": "1"}})


def _run(k8s_testbed, tmp_path: Path, name: str, workload: dict, node_load: bool = False):
    spec = validate(
        {
            "name": name,
            "target": {
                "type": "k8s",
                "kubeconfig": str(k8s_testbed.kubeconfig),
                "storage_class": "local-path",  # the static PVs stay as test_k8s expects
                "image_pull_policy": "Never",
                "pod_timeout": 30,
                "node_load": node_load,
            },
            "workloads": [workload],
            "sweep": [2],
        }
    )
    return run_campaign(spec, tmp_path / "results", KubernetesTarget)


@pytest.mark.parametrize(
    ("workload", "taken", "node_load"),
    [
        (GIT, "001-c02", False),  # a project's namespace: that project fails, c01 runs
        (PVCS, "001-c02", False),  # a namespace of PVCs: the step fails
        (FIO, "001", True),  # the step's namespace, and the node samplers'
    ],
    ids=["git", "pvc-provision", "fio"],
)
def test_someone_elses_namespace_of_a_steps_name_fails_the_step_and_is_left_be(
    k8s_testbed, tmp_path, workload, taken, node_load
):
    from kubernetes import client

    core = client.CoreV1Api(k8s_testbed.api())
    name = f"taken-{workload['name']}"
    theirs = [f"volperf-{name}-{taken}"] + ([f"volperf-{name}-nodes"] if node_load else [])
    for namespace in theirs:
        _theirs(core, namespace)
    try:
        outcome = _run(k8s_testbed, tmp_path, name, workload, node_load)
        (result,) = outcome.results
        assert result.summary["state"] == "failed"
        said = f"namespace {theirs[0]} is there already and is not campaign {name}'s"
        assert said in result.summary["error"]
        if workload is GIT:  # the other project ran and kept its figures
            assert result.summary["error"].startswith("1 of 2 projects failed: c02: namespace")
            app = result.summary["app"]
            assert (app["iterations"], app["failed_consumers"]) == (1, 1)
        if node_load:
            (note,) = [n for n in result.summary["notes"] if "nodes' load" in n]
            assert f"namespace {theirs[1]} is there already" in note
        for namespace in theirs:
            assert core.read_namespaced_config_map("keep", namespace).data == {"a": "1"}
        assert json.loads((outcome.store.root / "created.json").read_text()) == {}
        left = {ns.metadata.name for ns in core.list_namespace().items}
        assert not {n for n in left if n.startswith(f"volperf-{name}")} - set(theirs)
    finally:
        for namespace in theirs:
            assert delete_namespace(core, namespace, 120)


def test_someone_elses_namespace_of_the_databases_name_ends_the_campaign(k8s_testbed, tmp_path):
    from kubernetes import client

    core = client.CoreV1Api(k8s_testbed.api())
    theirs = "volperf-taken-db-db"
    _theirs(core, theirs)
    try:
        with pytest.raises(TargetError, match=f"namespace {theirs} is there already"):
            _run(k8s_testbed, tmp_path, "taken-db", OLTP)
        assert core.read_namespaced_config_map("keep", theirs).data == {"a": "1"}
        store = CampaignStore(tmp_path / "results" / "taken-db")
        assert store.created() == {}
    finally:
        assert delete_namespace(core, theirs, 120)


def test_a_killed_runs_namespace_is_made_anew(k8s_testbed, tmp_path):
    """Labelled with the campaign (volperf made it, the run was killed before deleting
    it): deleted with what it held, made again, and noted."""
    from kubernetes import client

    core = client.CoreV1Api(k8s_testbed.api())
    namespace = "volperf-killed-001"
    labels = {LABEL: k8s_name("killed")}
    core.create_namespace({"metadata": {"name": namespace, "labels": labels}})
    core.create_namespaced_config_map(namespace, {"metadata": {"name": "old"}, "data": {}})
    store = CampaignStore(tmp_path / "killed")
    store.root.mkdir(parents=True)
    kubeconfig = str(k8s_testbed.kubeconfig)
    try:
        make_namespace(core, store, kubeconfig, namespace, "killed", labels)
        maps = core.list_namespaced_config_map(namespace).items
        assert "old" not in {m.metadata.name for m in maps}
        assert core.read_namespace(namespace).metadata.labels[LABEL] == "killed"
        assert list(store.created()) == [f"{NAMESPACE_KIND}:{kubeconfig}:{namespace}"]
    finally:
        assert delete_namespace(core, namespace, 120)
