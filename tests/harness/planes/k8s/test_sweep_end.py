"""An open-ended sweep on the k8s testbed that runs out of volumes: pvc-provision (a PVC
and a pod per namespace) on a class with 4 local PVs, counts 1, 2, 4, 8. Steps 1 and 2
take 3 PVs; at 4 only one is left, so three pods are never scheduled: the scheduler's
own words end the sweep with "no space", 8 is skipped, the earlier steps' bound times
are kept (equal to what volperf saw, read from raw/ independently) and nothing is left.
Namespaces are created and deleted at the workload's pace."""

from __future__ import annotations

import csv
import json
from itertools import pairwise

import pytest

from harness.campaign.run import run_campaign
from harness.core.spec import validate
from harness.planes.k8s.target import KubernetesTarget
from harness.report import data as report_data
from harness.report.render import method_lines
from tests.harness.planes.k8s.few_pvs import few_pvs_class

pytestmark = pytest.mark.functional


def test_a_sweep_ends_with_no_space_where_the_class_has_no_volume_left(k8s_testbed_alone, tmp_path):
    """On the cluster alone: its pods get 30 s to start (a pod's first mount may wait for
    the node authorizer to know its PVC, and the kubelet's retry came after 10 s in a warm
    suite run: 'no relationship found between node and this object'), and its pace is
    timed."""
    from kubernetes import client

    k8s_testbed = k8s_testbed_alone
    kubeconfig = str(k8s_testbed.kubeconfig)
    with few_pvs_class(kubeconfig, tmp_path / "pvs", pvs=4) as storage_class:
        spec = validate(
            {
                "name": "grows",
                "target": {
                    "type": "k8s",
                    "kubeconfig": kubeconfig,
                    "storage_class": storage_class,
                    "image_pull_policy": "Never",
                    "pod_timeout": 30,
                    "node_load": False,
                },
                "workloads": [
                    {
                        "tool": "pvc-provision",
                        "name": "projects",
                        "pace": {"create_per_min": 120, "delete_per_min": 120},
                    }
                ],
                "sweep": {
                    "start": 1,
                    "factor": 2,
                    "max": 8,
                    "stop_when": {"no_space": True, "bound_p95_above_s": 60},
                },
            }
        )
        outcome = run_campaign(spec, tmp_path / "results", KubernetesTarget)
    store = outcome.store
    summaries = [r.summary for r in outcome.results]
    assert [s["state"] for s in summaries] == ["done", "done", "failed", "skipped"]
    assert outcome.ok and outcome.failed_steps == []

    full = summaries[2]
    assert full["ended_sweep"].startswith("no space: ")
    assert "didn't find available persistent volumes to bind" in full["ended_sweep"]
    bound = full["provision"]["pvc-bound"]
    assert (bound["count"], bound["ended"]) == (4, 1)
    assert summaries[3]["error"].startswith(
        f"not run: the sweep of projects ended at 4 consumers ({full['step']}): no space: "
    )

    # the earlier steps' figures are kept: each PVC's bound time in events.csv equals
    # what volperf saw (raw/provision.json: its create request to Bound)
    with (store.root / "events.csv").open() as handle:
        events = [e for e in csv.DictReader(handle) if e["event"] == "pvc-bound"]
    for summary in summaries[:2]:
        seen = json.loads((store.raw_dir(summary["step"]) / "provision.json").read_text())
        expected = sorted((p["bound_ms"] - p["created_ms"]) / 1000 for p in seen["pvcs"])
        mine = sorted(float(e["seconds"]) for e in events if e["step"] == summary["step"])
        assert mine == pytest.approx(expected) and len(mine) == summary["concurrency"]

    # paced: the 4 namespaces' create and delete requests went 0.5 s apart at the least
    seen = json.loads((store.raw_dir(full["step"]) / "provision.json").read_text())
    for key, over in (("created_ms", "created_over_s"), ("delete_ms", "deleted_over_s")):
        times = sorted(p[key] for p in seen["projects"].values())
        assert len(times) == 4 and min(b - a for a, b in pairwise(times)) >= 495
        assert full["provision"][over] == (times[-1] - times[0]) / 1000

    line = next(m for m in method_lines(report_data.load(store)) if m.startswith("Consumers"))
    assert line.startswith(
        "Consumers per step: 1, 2, 4, 8, until a step runs out of space or PVCs take over "
        "60 s to bind (p95); the sweep of projects ended at 4 consumers (no space: "
    )
    assert "), so 8 did not run;" in line

    # nothing left: no namespace of the campaign, nothing noted to remove
    assert json.loads((store.root / "created.json").read_text()) == {}
    core = client.CoreV1Api(k8s_testbed.api())
    names = [n.metadata.name for n in core.list_namespace().items]
    assert not [n for n in names if n.startswith("volperf-grows")]
