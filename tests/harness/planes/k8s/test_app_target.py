"""An application project that cannot be made on the k8s testbed: the namespace volperf
would give it is someone else's (made here beforehand, without volperf's label, holding
data). That project fails with the API's answer; the other project of the step runs and
keeps its figures; the foreign namespace and its data are never touched, and cleanup
does not note it."""

from __future__ import annotations

import json

import pytest

from harness.campaign.run import run_campaign
from harness.core.spec import validate
from harness.planes.k8s.cluster import delete_namespace
from harness.planes.k8s.target import KubernetesTarget

pytestmark = pytest.mark.functional


def test_a_project_whose_namespace_is_someone_elses_fails_and_leaves_it_be(k8s_testbed, tmp_path):
    from kubernetes import client

    core = client.CoreV1Api(k8s_testbed.api())
    theirs = "volperf-taken-001-c02"  # the name volperf gives step 1's second project
    core.create_namespace({"metadata": {"name": theirs}})
    core.create_namespaced_config_map(theirs, {"metadata": {"name": "keep"}, "data": {"a": "1"}})
    try:
        spec = validate(
            {
                "name": "taken",
                "target": {
                    "type": "k8s",
                    "kubeconfig": str(k8s_testbed.kubeconfig),
                    "storage_class": "local-path",  # the static PVs stay as test_k8s expects
                    "image_pull_policy": "Never",
                    "node_load": False,
                },
                "workloads": [
                    {
                        "name": "git",
                        "tool": "git",
                        "repo": {"files": 50, "file_size": "4K", "commits": 2},
                        "iterations": 1,
                    }
                ],
                "sweep": [2],
            }
        )
        outcome = run_campaign(spec, tmp_path / "results", KubernetesTarget)
        (result,) = outcome.results
        assert result.summary["state"] == "failed"
        assert result.summary["error"].startswith("1 of 2 projects failed: c02: not created: ")
        assert "AlreadyExists" in result.summary["error"]
        app = result.summary["app"]
        assert (app["iterations"], app["failed_consumers"]) == (1, 1)  # c01's is kept
        rows = (outcome.store.root / "apps.csv").read_text().splitlines()[1:]
        assert {row.split(",")[2] for row in rows} == {"c01"} and len(rows) == 4
        assert core.read_namespaced_config_map("keep", theirs).data == {"a": "1"}
        assert json.loads((outcome.store.root / "created.json").read_text()) == {}
        names = {ns.metadata.name for ns in core.list_namespace().items}
        assert "volperf-taken-001-c01" not in names
    finally:
        assert delete_namespace(core, theirs, 120)
