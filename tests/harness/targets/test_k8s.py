"""The k8s target's bad input on the real testbed: an unknown StorageClass is refused
before anything is made, naming the classes there are; a pod whose image cannot be had
ends its step within pod_timeout with the pod's phase, reason and events in its row, and
the step's namespace is gone."""

from __future__ import annotations

import json

import pytest

from harness.campaign import run_campaign
from harness.spec import validate
from harness.targets.base import TargetError
from harness.targets.k8s import K8sFioTarget


def _spec(k8s_testbed, name: str, **target):
    return validate({
        "name": name,
        "target": {"type": "k8s", "kubeconfig": str(k8s_testbed.kubeconfig),
                   "storage_class": "local-path", "image_pull_policy": "Never",
                   "pod_timeout": 30, **target},
        "workloads": [{"name": "w", "rw": "randwrite", "size": "16M", "runtime": 2}],
        "sweep": [1],
    })  # fmt: skip


def test_an_unknown_storage_class_is_refused_naming_the_ones_there(k8s_testbed, tmp_path):
    spec = _spec(k8s_testbed, "no-such-class", storage_class="gold")
    with pytest.raises(TargetError, match=r"StorageClass 'gold' does not exist .*local-path"):
        run_campaign(spec, tmp_path, K8sFioTarget)


def test_an_image_that_cannot_be_had_fails_the_pod_with_its_events(k8s_testbed, tmp_path):
    from kubernetes import client

    spec = _spec(k8s_testbed, "no-image", fio_image="registry.local/missing:1")
    outcome = run_campaign(spec, tmp_path, K8sFioTarget)
    [result] = outcome.results
    assert result.summary["state"] == "failed"
    [row] = result.records
    assert row.error.startswith("pod c01: Pending (ErrImageNeverPull)")
    assert "pod events:" in row.error and "ErrImageNeverPull" in row.error.split("pod events:")[1]
    assert json.loads((outcome.store.root / "created.json").read_text()) == {}
    names = {ns.metadata.name for ns in client.CoreV1Api(k8s_testbed.api()).list_namespace().items}
    assert not any(n.startswith("volperf-no-image") for n in names)
