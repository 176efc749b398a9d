"""PVC provisioning at 50, 100 and 250 namespaces (1 PVC of 64Mi + 1 pod each), through
`volperf run` and through kube-burner on the same cluster, the same StorageClass and the
same objects, one after the other, at each scale in both orders (files of the run with
kube-burner first end in -kube-burner-first), everything deleted between runs;
`kube-burner measure` watches volperf's own objects as a third view. For each tool:
Bound and Ready P50/P95/P99/max/avg, its CPU seconds and peak RSS (the process's own
rusage, read by the same wait4 for both) and its wall time. Writes
results/scale/k8s-namespaces/ (the volperf campaigns, kube-burner's quantile documents,
comparison-*.json stamped with the code that measured them, and comparison.csv).

Brings up its own k8s testbed (state in pytest's temporary directory, 260 static PVs,
base port 23600) and purges it at the end; builds kube-burner once (kube_burner.py).
About 45 minutes on 2 cores. Run alone on the machine:

    .venv/bin/python -m pytest benchmarks/scale/test_k8s_namespaces.py -s   (or tox -e scale)

Definitions (the comparison states them): volperf's Bound runs from its own PVC create
request to the watch event showing Bound, its Ready from its own pod create request to the
watch event showing Ready, both on this host's clock in ms; kube-burner's Bound from its
informer's first sight of the PVC to the update showing Bound (this host's clock, ms), its
Ready from the pod's creationTimestamp to its Ready condition's lastTransitionTime, both
whole seconds stamped by the API server. volperf keeps the server's stamps too, so its
objects are also given by kube-burner's definition ("volperf, server stamps").
"""

from __future__ import annotations

import csv
import gzip
import json
import shutil
import subprocess
import sys
import time
from dataclasses import asdict
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
import yaml

from benchmarks.scale.kube_burner import VERSION, ensure_kube_burner
from benchmarks.scale.measure import ROOT, keep_gzipped, run_measured, volperf, write_figures
from harness.records.stats import sample_percentile
from harness.testbeds.k8s.images import PAUSE

OUT = ROOT / "results" / "scale" / "k8s-namespaces"
BASE_PORT = "23600"
STATIC_PVS = 260
CLASS = "local-static"
SIZE = "64Mi"
SCALES = (50, 100, 250)
# both tools' client rate limit (kube-burner's qps and burst, volperf's pvc-provision
# qps): the objects' latencies depend on how fast they arrive; each tool's achieved
# creation time is in the comparison (creation_s)
QPS = 50
# how long `kube-burner measure` watches volperf's run: past the last pod's Ready
MEASURE_S = {50: 150, 100: 240, 250: 480}


def refresh_pvs(state: Path) -> None:
    """`testbed up` again: the static PVs a run released are made anew, data wiped."""
    volperf("testbed", "up", "k8s", "--state", str(state), "--static-pvs", str(STATIC_PVS))


@pytest.fixture(scope="module")
def testbed(tmp_path_factory):
    """The testbed's state directory, its admin kubeconfig inside."""
    state = tmp_path_factory.mktemp("scale-k8s") / "state"
    volperf(
        "testbed",
        "up",
        "k8s",
        "--state",
        str(state),
        "--base-port",
        BASE_PORT,
        "--static-pvs",
        str(STATIC_PVS),
        timeout=3600,
    )
    yield state
    volperf("testbed", "down", "k8s", "--state", str(state), "--purge")


def spread(values: list[float]) -> dict[str, float | None]:
    """P50/P95/P99/max/avg in seconds, as each tool's figures are compared."""
    if not values:
        return dict.fromkeys(("p50", "p95", "p99", "max", "avg"))
    return {
        "p50": round(sample_percentile(values, 50), 3),
        "p95": round(sample_percentile(values, 95), 3),
        "p99": round(sample_percentile(values, 99), 3),
        "max": round(max(values), 3),
        "avg": round(sum(values) / len(values), 3),
    }


def volperf_figures(campaign: Path) -> dict[str, Any]:
    """Bound and Ready from the step's raw provision.json, by volperf's definition and,
    for Ready, by kube-burner's (the API server's whole-second stamps)."""
    [raw] = campaign.glob("steps/*/raw/provision.json")
    claims = json.loads(raw.read_text())["pvcs"]
    bound = [(c["bound_ms"] - c["created_ms"]) / 1000 for c in claims]
    ready = [(c["ready_ms"] - c["pod_created_ms"]) / 1000 for c in claims]
    ready_server = [c["ready_server_s"] - c["pod_created_server_s"] for c in claims]
    [step] = json.loads((campaign / "summary.json").read_text())["steps"]
    created = [c["created_ms"] / 1000 for c in claims]
    first_ms = min(c["created_ms"] for c in claims)
    return {
        "objects": len(claims),
        "creation_s": round(max(created) - min(created), 2),
        "all_bound_s": round((max(c["bound_ms"] for c in claims) - first_ms) / 1000, 2),
        "bound": spread(bound),
        "ready": spread(ready),
        "ready_server_stamps": spread(ready_server),
        "step_cost": step["cost"],
    }


def quantiles(folder: Path, measurement: str, name: str) -> dict[str, float | None]:
    """kube-burner's quantile document (its local indexer's file) for one condition, in
    seconds (it writes milliseconds)."""
    [path] = folder.glob(f"{measurement}QuantilesMeasurement-*.json")
    for document in json.loads(path.read_text()):
        if document["quantileName"] == name:
            return {
                "p50": document["P50"] / 1000,
                "p95": document["P95"] / 1000,
                "p99": document["P99"] / 1000,
                "max": document["max"] / 1000,
                "avg": document["avg"] / 1000,
            }
    raise AssertionError(f"no {name} quantiles in {path}")


def burner_pvcs(folder: Path) -> list[tuple[float, float]]:
    """Each PVC's (first seen, Bound) on this host's clock, in seconds, from kube-burner's
    per-object documents (its informer's add time and its bindingLatency, in ms); read
    from a run's folder or from the kept, gzipped copy."""
    [path] = folder.glob("pvcLatencyMeasurement-*.json*")
    raw = path.read_bytes()
    documents = json.loads(gzip.decompress(raw) if path.suffix == ".gz" else raw)
    seen = [datetime.fromisoformat(d["timestamp"]).timestamp() for d in documents]
    return [(t, t + d["bindingLatency"] / 1000) for t, d in zip(seen, documents, strict=True)]


def creation_s(folder: Path) -> float:
    """From the first PVC to the last, as kube-burner's informer saw them added."""
    seen = [first for first, _ in burner_pvcs(folder)]
    return round(max(seen) - min(seen), 2)


def all_bound_s(folder: Path) -> float:
    """From the first PVC seen to the last one Bound: how long the cluster took to bind
    them all, whoever sent them."""
    pvcs = burner_pvcs(folder)
    return round(max(bound for _, bound in pvcs) - min(first for first, _ in pvcs), 2)


def kube_burner_config(namespaces: int, metrics: Path, work: Path) -> Path:
    """A job of the same shape as volperf's step: ``namespaces`` iterations, each its own
    namespace with one PVC of the class and one pod mounting it, pause image, deleted at
    the end (gc) and waited for."""
    (work / "pvc.yml").write_text(
        yaml.safe_dump(
            {
                "apiVersion": "v1",
                "kind": "PersistentVolumeClaim",
                "metadata": {"name": "pvc-{{.Replica}}"},
                "spec": {
                    "accessModes": ["ReadWriteOnce"],
                    "storageClassName": CLASS,
                    "resources": {"requests": {"storage": SIZE}},
                },
            }
        )
    )
    (work / "pod.yml").write_text(
        yaml.safe_dump(
            {
                "apiVersion": "v1",
                "kind": "Pod",
                "metadata": {"name": "pvc-{{.Replica}}"},
                "spec": {
                    "terminationGracePeriodSeconds": 0,
                    "containers": [
                        {
                            "name": "idle",
                            "image": PAUSE,
                            "imagePullPolicy": "Never",
                            "volumeMounts": [{"name": "data", "mountPath": "/data"}],
                        }
                    ],
                    "volumes": [
                        {"name": "data", "persistentVolumeClaim": {"claimName": "pvc-{{.Replica}}"}}
                    ],
                },
            }
        )
    )
    config = {
        # relative to the work dir kube-burner runs in, so the kept config names no machine path
        "metricsEndpoints": [{"indexer": {"type": "local", "metricsDirectory": metrics.name}}],
        "global": {
            "gc": True,
            "gcMetrics": False,
            "measurements": [{"name": "pvcLatency"}, {"name": "podLatency"}],
        },
        "jobs": [
            {
                "name": "provision",
                "jobIterations": namespaces,
                "namespacedIterations": True,
                "namespace": f"kb-provision-{namespaces}",
                "qps": QPS,
                "burst": QPS,
                "preLoadImages": False,
                "podWait": False,
                "waitWhenFinished": True,
                "maxWaitTimeout": "20m",
                "verifyObjects": True,
                "errorOnVerify": True,
                "objects": [
                    {"objectTemplate": "pvc.yml", "replicas": 1},
                    {"objectTemplate": "pod.yml", "replicas": 1},
                ],
            }
        ],
    }
    path = work / "config.yml"
    path.write_text(yaml.safe_dump(config, sort_keys=False))
    return path


def measure_config(metrics: Path, work: Path) -> Path:
    path = work / "measure.yml"
    path.write_text(
        yaml.safe_dump(
            {
                "metricsEndpoints": [
                    {"indexer": {"type": "local", "metricsDirectory": metrics.name}}
                ],
                "global": {"measurements": [{"name": "pvcLatency"}, {"name": "podLatency"}]},
            }
        )
    )
    return path


def volperf_spec(namespaces: int, name: str, work: Path) -> Path:
    """The spec of volperf's run (its kubeconfig from $KUBECONFIG, so the campaign's
    record names no machine path)."""
    path = work / f"volperf-{namespaces}.yaml"
    path.write_text(
        yaml.safe_dump(
            {
                "name": name,
                "target": {
                    "type": "k8s",
                    "storage_class": CLASS,
                    "image_pull_policy": "Never",
                    "pod_timeout": 1200,
                },
                "workloads": [
                    {
                        "name": "provision",
                        "tool": "pvc-provision",
                        "pvcs": 1,
                        "size": SIZE,
                        "pods": True,
                        "pod_image": PAUSE,
                        "qps": QPS,
                    }
                ],
                "sweep": [namespaces],
            }
        )
    )
    return path


def keep(source: Path, target: Path) -> None:
    """kube-burner's documents, the large per-object ones gzipped."""
    for path in source.glob("*.json"):
        keep_gzipped(path, target)


def run_volperf(
    testbed: Path, binary: Path, namespaces: int, suffix: str, tmp_path: Path
) -> dict[str, Any]:
    """volperf's run, with kube-burner measure watching its objects."""
    kubeconfig = testbed / "admin.kubeconfig"
    name = f"k8s-namespaces-{namespaces}{suffix}"
    watched = tmp_path / "measure-metrics"
    # it has no signal handling: it watches for its whole --duration, then writes
    measure = subprocess.Popen(
        [
            str(binary),
            "measure",
            "-c",
            str(measure_config(watched, tmp_path)),
            "--kubeconfig",
            str(kubeconfig),
            "--selector",
            f"volperf-campaign={name}",
            "--duration",
            f"{MEASURE_S[namespaces]}s",
            "--skip-log-file",
        ],
        cwd=tmp_path,
        stdout=(tmp_path / "measure.log").open("w"),
        stderr=subprocess.STDOUT,
    )
    time.sleep(3)  # its informers synced before the first object
    campaign = OUT / name
    shutil.rmtree(campaign, ignore_errors=True)
    cost, _ = run_measured(
        [
            sys.executable,
            "-m",
            "harness.cli",
            "run",
            str(volperf_spec(namespaces, name, tmp_path)),
            "--results",
            str(OUT),
        ],
        ROOT,
        tmp_path / "volperf.log",
        {"KUBECONFIG": str(kubeconfig)},
    )
    assert measure.wait(timeout=MEASURE_S[namespaces] + 120) == 0, tmp_path / "measure.log"
    keep(watched, OUT / f"kube-burner-measure-{namespaces}{suffix}")
    refresh_pvs(testbed)
    return {
        "volperf": {**volperf_figures(campaign), "process": asdict(cost)},
        "kube_burner_measure_of_volperf": {
            "bound": quantiles(watched, "pvcLatency", "Bound"),
            "ready": quantiles(watched, "podLatency", "Ready"),
        },
    }


def run_kube_burner(
    testbed: Path, binary: Path, namespaces: int, suffix: str, tmp_path: Path
) -> dict[str, Any]:
    """kube-burner's own run of the same objects."""
    metrics = tmp_path / "kube-burner-metrics"
    cost, _ = run_measured(
        [
            str(binary),
            "init",
            "-c",
            str(kube_burner_config(namespaces, metrics, tmp_path)),
            "--kubeconfig",
            str(testbed / "admin.kubeconfig"),
            "--uuid",
            f"volperf-scale-{namespaces}{suffix}",
            "--skip-log-file",
        ],
        tmp_path,
        tmp_path / "kube-burner.log",
    )
    kept = OUT / f"kube-burner-{namespaces}{suffix}"
    keep(metrics, kept)
    shutil.copy(tmp_path / "config.yml", kept / "config.yml")
    refresh_pvs(testbed)
    return {
        "kube_burner": {
            "version": VERSION,
            "creation_s": creation_s(metrics),
            "all_bound_s": all_bound_s(metrics),
            "bound": quantiles(metrics, "pvcLatency", "Bound"),
            "ready": quantiles(metrics, "podLatency", "Ready"),
            "process": asdict(cost),
        }
    }


RUNS = {"volperf": run_volperf, "kube-burner": run_kube_burner}


@pytest.mark.parametrize("first", list(RUNS))
@pytest.mark.parametrize("namespaces", SCALES)
def test_volperf_against_kube_burner(testbed, namespaces, first, tmp_path):
    """Both tools at one scale, one after the other, in the order ``first`` says (each
    scale runs in both orders: the cluster's state after a run can favour the next)."""
    binary = ensure_kube_burner()
    OUT.mkdir(parents=True, exist_ok=True)
    order = [first, *(tool for tool in RUNS if tool != first)]
    suffix = "" if first == "volperf" else f"-{first}-first"
    figures: dict[str, Any] = {
        "namespaces": namespaces,
        "storage_class": CLASS,
        "size": SIZE,
        "order": order,
    }
    for tool in order:
        figures.update(RUNS[tool](testbed, binary, namespaces, suffix, tmp_path))
    write_figures(OUT / f"comparison-{namespaces}{suffix}.json", figures)
    write_table()
    print(json.dumps(figures, indent=2))
    assert figures["volperf"]["objects"] == namespaces


def write_table() -> None:
    """comparison.csv: a row per scale, tool and figure, from the comparison files."""
    rows = []
    for path in sorted(
        OUT.glob("comparison-*.json"), key=lambda p: (int(p.stem.split("-")[1]), p.stem)
    ):
        data = json.loads(path.read_text())
        first = data.get("order", ["volperf"])[0]  # the files kept before both orders ran
        vp, kb = data["volperf"], data["kube_burner"]
        views = (  # (tool, the run it comes from, bound, ready)
            ("volperf", "volperf", vp["bound"], vp["ready"]),
            ("volperf, server stamps", "volperf", None, vp["ready_server_stamps"]),
            (
                "kube-burner measure of volperf's objects",
                "volperf",
                *data["kube_burner_measure_of_volperf"].values(),
            ),
            ("kube-burner", "kube-burner", kb["bound"], kb["ready"]),
        )
        for tool, run, bound, ready in views:
            for figure, values in (("bound", bound), ("ready", ready)):
                if values:
                    rows.append(
                        {
                            "namespaces": data["namespaces"],
                            "ran_first": run == first,
                            "tool": tool,
                            "figure": figure,
                            **values,
                        }
                    )
        for figures, tool in ((vp, "volperf"), (kb, "kube-burner")):
            rows.append(
                {
                    "namespaces": data["namespaces"],
                    "ran_first": tool == first,
                    "tool": tool,
                    "figure": "process",
                    "creation_s": figures["creation_s"],
                    "all_bound_s": figures["all_bound_s"],
                    **figures["process"],
                }
            )
    fields = [
        "namespaces",
        "ran_first",
        "tool",
        "figure",
        "p50",
        "p95",
        "p99",
        "max",
        "avg",
        "creation_s",
        "all_bound_s",
        "wall_s",
        "cpu_s",
        "peak_rss_mib",
    ]
    with (OUT / "comparison.csv").open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fields)
        writer.writeheader()
        writer.writerows(rows)
