"""k8s_scenarios/test_fio_pvc.py run as a user runs it (`pytest k8s_scenarios ...`) on the
k8s testbed, on both StorageClasses: a campaign per class whose fio.csv has a row per pod
with the figures of the pod's own fio output, PVC and pod times as events, and a page."""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.harness.helpers import doc_source_copy, fio_json, volperf

REPO = Path(__file__).parents[2]
CLASSES = ("local-path", "local-static")


@pytest.fixture(scope="module")
def scenario_run(k8s_testbed, tmp_path_factory):
    work = tmp_path_factory.mktemp("k8s-fio")
    argv = [sys.executable, "-m", "pytest", str(REPO / "k8s_scenarios" / "test_fio_pvc.py"),
            "-p", "no:cacheprovider", "-q", "--kubeconfig", str(k8s_testbed.kubeconfig),
            "--scale", "small", "--campaign", "ci", "--results", str(work / "results"),
            "--image-pull-policy", "Never", "--rootdir", str(REPO / "k8s_scenarios"),
            "--basetemp", str(work / "basetemp")]  # fmt: skip
    for storage_class in CLASSES:
        argv += ["--storage-class", storage_class]
    done = subprocess.run(argv, cwd=work, capture_output=True, text=True, timeout=1200)
    return work, done


def _rows(path: Path) -> list[dict[str, str]]:
    with path.open() as handle:
        return list(csv.DictReader(handle))


def test_each_class_gets_a_campaign_with_a_row_per_pod(scenario_run):
    work, done = scenario_run
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert "2 passed" in done.stdout
    for storage_class in CLASSES:
        campaign = work / "results" / f"ci-fio-{storage_class}"
        rows = _rows(campaign / "fio.csv")
        assert [(r["concurrency"], r["consumer"], r["rw"]) for r in rows] == [
            ("1", "c01", "randread"), ("2", "c01", "randread"),
            ("2", "c02", "randwrite")]  # fmt: skip
        for row in rows:
            assert not row["error"] and row["backend"] == f"k8s:{storage_class}"
            log = campaign / "steps" / row["step"] / "raw" / "pods" / f"{row['consumer']}.out"
            job = fio_json(log)["jobs"][0]
            direction = "read" if row["rw"] == "randread" else "write"
            assert float(row[f"{direction}_iops"]) == pytest.approx(job[direction]["iops"])
        events = _rows(campaign / "events.csv")
        assert {e["event"] for e in events} == {"k8s pvc-bound", "k8s pod-running"}
        assert len(events) == 2 * len(rows)
        assert json.loads((campaign / "created.json").read_text()) == {}


def test_the_campaigns_pages_build_and_the_classes_compare(scenario_run, tmp_path):
    work, _ = scenario_run
    source = doc_source_copy(tmp_path)
    for storage_class in CLASSES:
        built = volperf("report", str(work / "results" / f"ci-fio-{storage_class}"),
                        "--doc-source", str(source), "--build", str(tmp_path / "html"),
                        cwd=tmp_path, timeout=600)  # fmt: skip
        assert built.returncode == 0, built.stderr[-2000:]
    compared = volperf("compare", str(work / "results" / "ci-fio-local-path"),
                       str(work / "results" / "ci-fio-local-static"), "--no-page", "--json",
                       cwd=tmp_path)  # fmt: skip
    assert compared.returncode == 0, compared.stderr[-2000:]
    deltas = json.loads(compared.stdout)["ci-fio-local-static"]
    assert {(d["concurrency"], d["direction"]) for d in deltas} >= {(1, "read"), (2, "write")}
