"""The k8s target's bad input on the real testbed: an unknown StorageClass is refused
before anything is made, naming the classes there are; a pod whose image cannot be had
ends its step within pod_timeout with the pod's phase, reason and events in its row (its
node samplers' failure in the step's notes), and the step's namespace is gone; a PVC that
never binds and a database pod that crash-loops end their steps the same way. volume_mode
Block is refused by a class that cannot make raw devices and measured on local-block."""

from __future__ import annotations

import csv
import json

import pytest

from harness.campaign.run import run_campaign
from harness.core.spec import validate
from harness.planes.base import TargetError
from harness.planes.k8s.target import KubernetesTarget
from tests.harness.helpers import fio_json


def _spec(k8s_testbed, name: str, **target):
    return validate(
        {
            "name": name,
            "target": {
                "type": "k8s",
                "kubeconfig": str(k8s_testbed.kubeconfig),
                "storage_class": "local-path",
                "image_pull_policy": "Never",
                "pod_timeout": 30,
                **target,
            },
            "workloads": [{"name": "w", "rw": "randwrite", "size": "16M", "runtime": 2}],
            "sweep": [1],
        }
    )


def test_an_unknown_storage_class_is_refused_naming_the_ones_there(k8s_testbed, tmp_path):
    spec = _spec(k8s_testbed, "no-such-class", storage_class="gold")
    with pytest.raises(TargetError, match=r"StorageClass 'gold' does not exist .*local-path"):
        run_campaign(spec, tmp_path, KubernetesTarget)


def test_an_image_that_cannot_be_had_fails_the_pod_with_its_events(k8s_testbed, tmp_path):
    from kubernetes import client

    # volperf gives up on the pod as soon as it waits for ErrImageNeverPull, which comes
    # only once its PVC is bound: local-path took 35 s to bind it in a loaded suite run,
    # past a pod_timeout of 30 s, and the pod was reported as merely Pending
    spec = _spec(k8s_testbed, "no-image", fio_image="registry.local/missing:1", pod_timeout=300)
    outcome = run_campaign(spec, tmp_path, KubernetesTarget)
    [result] = outcome.results
    assert result.summary["state"] == "failed"
    [row] = result.records
    assert row.error.startswith("pod c01: Pending (ErrImageNeverPull)")
    assert "pod events:" in row.error and "ErrImageNeverPull" in row.error.split("pod events:")[1]
    # the node samplers (of the same image) could not start either: said, and no figures
    (note,) = [n for n in result.summary["notes"] if "nodes' load" in n]
    assert note.startswith("the nodes' load was not sampled: its pod volperf-node-load-")
    assert "ErrImageNeverPull" in note and result.summary["nodes"] is None
    assert json.loads((outcome.store.root / "created.json").read_text()) == {}
    names = {ns.metadata.name for ns in client.CoreV1Api(k8s_testbed.api()).list_namespace().items}
    assert not any(n.startswith("volperf-no-image") for n in names)


def test_a_pvc_that_never_binds_ends_the_step_with_its_events(k8s_testbed, tmp_path):
    """A class whose provisioner does not exist: the PVC stays Pending; the step ends
    after pod_timeout naming the pod and quoting the PVC's events."""
    from kubernetes import client

    storage = client.StorageV1Api(k8s_testbed.api())
    storage.create_storage_class(
        {
            "metadata": {"name": "volperf-test-never"},
            "provisioner": "volperf.test/nobody",
            "volumeBindingMode": "Immediate",
        }
    )
    try:
        spec = _spec(k8s_testbed, "never-bound", storage_class="volperf-test-never", pod_timeout=10)
        outcome = run_campaign(spec, tmp_path, KubernetesTarget)
    finally:
        storage.delete_storage_class("volperf-test-never")
    [result] = outcome.results
    assert result.summary["state"] == "failed"
    [row] = result.records
    assert row.error.startswith("pod c01: Pending after ")
    assert "volperf.test/nobody" in row.error.split("PVC events:")[1]  # the provisioner named
    assert json.loads((outcome.store.root / "created.json").read_text()) == {}


def test_a_database_pod_that_crash_loops_is_reported_with_its_log(k8s_testbed, tmp_path):
    """mariadbd refuses an unknown option: the StatefulSet's pod crash-loops; the step
    fails naming the pod, its state and events and the server's last words, and the
    campaign's namespace is deleted."""
    from kubernetes import client

    spec = validate(
        {
            "name": "crash-loop",
            "target": {
                "type": "k8s",
                "kubeconfig": str(k8s_testbed.kubeconfig),
                "storage_class": "local-path",
                "image_pull_policy": "Never",
                "pod_timeout": 120,
            },
            "databases": {"mariadb": {"options": {"volperf_no_such_option": 1}}},
            "workloads": [{"name": "oltp", "tool": "sysbench-oltp", "runtime": 2}],
            "sweep": [1],
        }
    )
    outcome = run_campaign(spec, tmp_path, KubernetesTarget)
    [result] = outcome.results
    assert result.summary["state"] == "failed"
    error = result.summary["error"]
    assert error.startswith("pod volperf-crash-loop-db/mariadb-c001-0 not ready after")
    assert "CrashLoopBackOff" in error and "BackOff" in error.split("pod events:")[1]
    assert "volperf-no-such-option" in error.split("its server said:")[1]
    assert json.loads((outcome.store.root / "created.json").read_text()) == {}
    names = {ns.metadata.name for ns in client.CoreV1Api(k8s_testbed.api()).list_namespace().items}
    assert "volperf-crash-loop-db" not in names


def test_block_volume_mode_on_a_class_without_it_quotes_the_provisioner(k8s_testbed, tmp_path):
    """volume_mode Block asks for raw-device PVCs; local-path cannot make them and says
    so in the PVC's events, which end the step's row."""
    spec = _spec(k8s_testbed, "block-mode", volume_mode="Block", pod_timeout=10)
    outcome = run_campaign(spec, tmp_path, KubernetesTarget)
    [result] = outcome.results
    assert result.summary["state"] == "failed"
    [row] = result.records
    assert "does not support block volume provisioning" in row.error.split("PVC events:")[1]
    assert json.loads((outcome.store.root / "created.json").read_text()) == {}


def test_block_volume_mode_on_local_block_measures_the_raw_devices(k8s_testbed, tmp_path):
    """Each pod's PVC is a loop device of the testbed handed to fio as a raw device: the
    rows are each pod's own fio JSON, its job file names the device, the PVCs were
    Block-mode ones of local-block, and nothing is left."""
    from kubernetes import client

    spec = _spec(k8s_testbed, "block-raw", volume_mode="Block", storage_class="local-block")
    outcome = run_campaign(spec, tmp_path, KubernetesTarget)
    assert [r.summary["state"] for r in outcome.results] == ["done"]
    with (outcome.store.root / "fio.csv").open() as handle:
        rows = list(csv.DictReader(handle))
    assert [r["consumer"] for r in rows] == ["c01"]
    for row in rows:
        pods = outcome.store.raw_dir(row["step"]) / "pods"
        assert "filename=/dev/volperf-data" in (pods / f"{row['consumer']}.job").read_text()
        job = fio_json(pods / f"{row['consumer']}.out")["jobs"][0]
        assert job["job options"]["filename"] == "/dev/volperf-data"
        assert (
            float(row["write_iops"]) == pytest.approx(job["write"]["iops"])
            and job["write"]["iops"] > 0
        )
        assert row["backend"] == "k8s:local-block" and not row["error"]
    pvs = client.CoreV1Api(k8s_testbed.api()).list_persistent_volume(
        label_selector="volperf-block=true"
    )
    claimed = [
        pv
        for pv in pvs.items
        if pv.spec.claim_ref and pv.spec.claim_ref.namespace.startswith("volperf-block-raw")
    ]
    assert len(claimed) == 1 and claimed[0].spec.volume_mode == "Block"
    assert json.loads((outcome.store.root / "created.json").read_text()) == {}
