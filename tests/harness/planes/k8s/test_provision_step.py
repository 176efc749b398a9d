"""A PVC-provisioning step's records on a captured real step (4 namespaces × 2 PVCs of
local-path on the k8s testbed): one event per PVC and per pod, seconds recomputed by
hand from the raw times, p50/p95/max as the report shows them."""

from __future__ import annotations

import json
import shutil
import statistics
from pathlib import Path

import pytest

from harness.planes.k8s.provision_step import PROVISION_FILE, is_provision_step, provision_step

FIXTURE = Path(__file__).parent / "fixtures" / "provision"


def test_an_event_per_pvc_and_pod_with_the_seconds_from_the_raw_times():
    events, summary, warnings = provision_step(FIXTURE, "002-pvcs-c004-r1")
    raw = json.loads((FIXTURE / PROVISION_FILE).read_text())["pvcs"]
    assert is_provision_step(FIXTURE) and warnings == []
    bound = [e for e in events if e.event == "pvc-bound"]
    ready = [e for e in events if e.event == "pod-ready"]
    assert len(bound) == len(ready) == len(raw) == 8
    for claim, event in zip(raw, bound, strict=True):
        assert event.seconds == pytest.approx((claim["bound_ms"] - claim["created_ms"]) / 1000)
        assert event.consumer == claim["consumer"] and claim["name"] in event.detail
    figures = summary["provision"]
    assert figures["pvcs"] == 8 and figures["namespaces"] == 4
    seconds = sorted(e.seconds for e in ready)
    assert figures["pod-ready"]["p50_s"] == pytest.approx(statistics.median(seconds))
    assert figures["pod-ready"]["max_s"] == seconds[-1]
    assert seconds[-2] <= figures["pod-ready"]["p95_s"] <= seconds[-1]
    assert all(r <= b for r, b in zip(sorted(e.seconds for e in bound), seconds, strict=True))


def test_a_pvc_that_never_bound_is_an_unresolved_event_with_its_reason(tmp_path):
    shutil.copy(FIXTURE / PROVISION_FILE, tmp_path)
    data = json.loads((tmp_path / PROVISION_FILE).read_text())
    stuck = data["pvcs"][0]
    del stuck["bound_ms"], stuck["ready_ms"]
    stuck["error"] = "PVC not bound after 30 s; PVC events: ProvisioningFailed: no space"
    data["namespaces_left"] = [stuck["namespace"]]
    (tmp_path / PROVISION_FILE).write_text(json.dumps(data))
    events, summary, warnings = provision_step(tmp_path, "s")
    first = [e for e in events if e.index == 1]
    assert [e.seconds for e in first] == [None, None]
    assert "ProvisioningFailed: no space" in first[0].detail
    assert summary["provision"]["pvc-bound"]["count"] == 8
    assert summary["provision"]["pvc-bound"]["ended"] == 7
    assert [w.code for w in warnings] == ["k8s-namespace"]


def test_a_pods_ready_time_counts_from_its_own_create_request(tmp_path):
    """Campaigns that kept the pod's own request time (pod_created_ms) count pod-ready
    from it, not from the PVC's; older ones from the PVC's, as they were made."""
    data = json.loads((FIXTURE / PROVISION_FILE).read_text())
    for claim in data["pvcs"]:
        claim["pod_created_ms"] = claim["created_ms"] + 40
    (tmp_path / PROVISION_FILE).write_text(json.dumps(data))
    events, _, _ = provision_step(tmp_path, "s")
    ready = [e for e in events if e.event == "pod-ready"]
    bound = [e for e in events if e.event == "pvc-bound"]
    for claim, r, b in zip(data["pvcs"], ready, bound, strict=True):
        assert r.seconds == pytest.approx((claim["ready_ms"] - claim["pod_created_ms"]) / 1000)
        assert b.seconds == pytest.approx((claim["bound_ms"] - claim["created_ms"]) / 1000)
