"""Issue 52's study of a Kubernetes node's crash during a fio step: examples/k8s-node-crash.yaml
as shipped (two pods on local-path volumes, one on each node, 4k random writes at 50 IOPS
each for 130 s; the second node crashed 5 s after the pods' start and restored at 70 s)
on a two-node k8s testbed, its phases from Kubernetes' own state (the nodes' Ready and
cordon, the step's pods).

Brings up its own k8s testbed with two nodes (base port 23800) in pytest's temporary
folder and purges it at the end. Writes results/k8s-node-crash/: the campaign, its
testbed's and this checkout's paths written <testbed> and <checkout>, and pages.yaml,
from which every documentation build writes its page (test_results/k8s-node-crash/:
IOPS per second with the phases as bands and the faults as marks, the per-phase table).
About 6 minutes on 2 cores. Run alone on the machine (the testbed's bridges have fixed
names):

    .venv/bin/python -m pytest benchmarks/test_k8s_node_crash.py -s
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from benchmarks.scale.measure import ROOT, keep_campaign, volperf
from harness.records.phases import DEGRADED, HEALED, HEALTHY
from harness.report.render import KEPT_PAGES

OUT = ROOT / "results" / "k8s-node-crash"
EXAMPLE = ROOT / "examples" / "k8s-node-crash.yaml"
K8S_BASE_PORT = "23800"  # off the suite's and the other benchmarks'


@pytest.fixture(scope="module")
def testbed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The state folder of a k8s testbed with two nodes."""
    state = tmp_path_factory.mktemp("k8s-node-crash") / "k8s"
    purge: list[str] = []
    try:
        up = ("testbed", "up", "k8s", "--nodes", "2", "--state", str(state))
        volperf(*up, "--base-port", K8S_BASE_PORT, timeout=3600)
        purge = ["--purge"]
        yield state
    finally:
        volperf("testbed", "down", "k8s", "--state", str(state), *purge)


def test_k8s_node_crash(testbed: Path, tmp_path: Path) -> None:
    spec = yaml.safe_load(EXAMPLE.read_text())
    # the testbed's images are on its nodes already: nothing is pulled
    kubeconfig = str(testbed / "admin.kubeconfig")
    spec["target"].update(kubeconfig=kubeconfig, image_pull_policy="Never")
    path = tmp_path / "spec.yaml"
    path.write_text(yaml.safe_dump(spec, sort_keys=False))
    run = volperf("run", str(path), "--results", str(tmp_path / "results"))
    print(run.stdout)
    campaign = tmp_path / "results" / spec["name"]
    summary = json.loads((campaign / "summary.json").read_text())
    (step,) = summary["steps"]
    assert "pods-lost" in {w["code"] for w in step["warnings"]}, step["warnings"]
    states = [p["state"] for p in step["phases"]["phases"]]
    assert states[0] == HEALTHY and DEGRADED in states and states[-1] == HEALED, states
    if OUT.exists():
        shutil.rmtree(OUT)
    OUT.mkdir(parents=True)
    keep_campaign(campaign, OUT / spec["name"], testbed)
    # the page is written anew from the campaign by every documentation build
    (OUT / KEPT_PAGES).write_text(yaml.safe_dump({"campaigns": [spec["name"]]}))
