"""A capacity search (sweep.search) on the k8s target, small: pods of local-path PVCs,
each asked for RATE writes a second, at 1 and 2 pods. Far below what a local-path volume
does, every count meets the objective and the search ends at its max; each pod's lag
behind its schedule is what an independent reading of its own per-second log gives."""

from __future__ import annotations

import json

import pytest

from harness.campaign.run import run_campaign
from harness.core.spec import validate
from harness.core.store import CampaignStore
from harness.planes.k8s.target import KubernetesTarget
from harness.report.render import write_report
from tests.harness.helpers import check_pace_against_its_logs, doc_source_copy

pytestmark = pytest.mark.functional

# 300 I/Os a pod: by Poisson arrivals alone a pod the volume keeps up with falls below 75 %
# of its rate about once in 40,000
RATE = 25
RUNTIME_S = 12


def test_a_capacity_search_on_pvcs_states_its_answer_from_each_pods_own_log(k8s_testbed, tmp_path):
    spec = validate(
        {
            "name": "k8s-search",
            "target": {
                "type": "k8s",
                "kubeconfig": str(k8s_testbed.kubeconfig),
                "storage_class": "local-path",
                "image_pull_policy": "Never",
                "pod_timeout": 300,
            },
            "workloads": [
                {
                    "name": "w",
                    "rw": "randwrite",
                    "size": "16M",
                    "iodepth": 4,
                    "runtime": RUNTIME_S,
                    "rate_iops": RATE,
                }
            ],
            "sweep": {"start": 1, "max": 2, "search": {"p99_ms": 2000, "achieved_pct": 75}},
        }
    )
    outcome = run_campaign(spec, tmp_path / "results", KubernetesTarget)
    root = outcome.store.root
    summary = json.loads((root / "summary.json").read_text())
    (found,) = summary["capacity"]
    assert found["done"] and not found["warnings"], found
    assert [(t["count"], t["met"]) for t in found["trials"]] == [(1, True), (2, True)], found
    assert found["answer"].startswith(f"2 consumers × {RATE} IOPS at p99 ≤ 2000 ms")
    assert "every count up to the max (2) met it" in found["answer"]
    for step in summary["steps"]:
        assert len(step["pace"]["consumers"]) == step["concurrency"]
        check_pace_against_its_logs(root, step, RATE)
    page = write_report(CampaignStore(root), doc_source_copy(tmp_path)).read_text()
    assert f"**{found['answer']}.**" in page
    assert "w1-capacity.png" in page and "w1-pace.png" in page  # the knee, each second
    assert json.loads((root / "created.json").read_text()) == {}
