"""harness/planes/k8s/step.py on a real step: a row per pod with the figures of its own fio
output, PVC-bound and pod-running times from pods.json, a failed pod's row with why."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from harness.planes.k8s.step import is_k8s_step, k8s_step
from tests.harness.helpers import fio_json

STEP = Path(__file__).parent / "fixtures" / "two-pods"


def _plan(folder: Path) -> dict:
    return json.loads((folder / "step.json").read_text())


def test_each_pod_is_a_row_with_its_own_figures_and_times():
    step = k8s_step(STEP / "raw", "002", _plan(STEP), "k8s:local-path")
    assert [(r.context.consumer, r.context.rw, r.jobname) for r in step.records] == [
        ("c01", "randread", "c01-randread"),
        ("c02", "randwrite", "c02-randwrite"),
    ]
    reader = fio_json(STEP / "raw" / "pods" / "c01.out")["jobs"][0]
    assert step.records[0].read.iops == pytest.approx(reader["read"]["iops"])
    seen = json.loads((STEP / "raw" / "pods.json").read_text())["consumers"]["c02"]
    bound = next(e for e in step.events if e.consumer == "c02" and e.event == "k8s pvc-bound")
    assert bound.seconds == (seen["bound_ms"] - seen["created_ms"]) / 1000
    assert step.summary["pods"] == 2 and step.summary["pods_failed"] == 0
    assert not step.warnings and is_k8s_step(STEP / "raw")


def test_a_pod_without_output_keeps_its_reason(tmp_path):
    folder = tmp_path / "step"
    shutil.copytree(STEP, folder)
    (folder / "raw" / "pods" / "c02.out").unlink()
    pods = json.loads((folder / "raw" / "pods.json").read_text())
    pods["consumers"]["c02"]["error"] = "Pending (ErrImageNeverPull) after 3 s; pod events: x"
    (folder / "raw" / "pods.json").write_text(json.dumps(pods))
    step = k8s_step(folder / "raw", "002", _plan(folder), "b")
    ok, failed = step.records
    assert not ok.error and failed.read is None and failed.write is None
    assert failed.error == "pod c02: Pending (ErrImageNeverPull) after 3 s; pod events: x"
    assert step.summary["pods_failed"] == 1


def test_a_pod_signalled_after_the_shared_start_time_is_named_late(tmp_path):
    folder = tmp_path / "step"
    shutil.copytree(STEP, folder)
    pods = json.loads((folder / "raw" / "pods.json").read_text())
    at = 1_800_000_000
    pods["consumers"]["c01"].update(start_at=at, signalled_ms=at * 1000 - 1200)
    pods["consumers"]["c02"].update(start_at=at, signalled_ms=at * 1000 + 400)  # in time
    (folder / "raw" / "pods.json").write_text(json.dumps(pods))
    assert not k8s_step(folder / "raw", "002", _plan(folder), "b").warnings
    pods["consumers"]["c02"]["signalled_ms"] = at * 1000 + 2500
    (folder / "raw" / "pods.json").write_text(json.dumps(pods))
    [late] = k8s_step(folder / "raw", "002", _plan(folder), "b").warnings
    assert late.code == "late-start" and "pod c02" in late.message and "2.5 s" in late.message


CRASH = Path(__file__).parent / "fixtures" / "node-crash"  # capture.sh: a real node crash


def test_a_pod_on_a_node_the_faults_crashed_is_lost_to_them_and_said_so():
    step = k8s_step(CRASH / "step" / "raw", "001", _plan(CRASH / "step"), "k8s:local-path")
    pods = json.loads((CRASH / "step" / "raw" / "pods.json").read_text())["consumers"]
    [lost] = [name for name, seen in pods.items() if seen["node"] == "volperf-node-2"]
    [kept] = [name for name, seen in pods.items() if seen["node"] == "volperf-node"]
    rows = {r.context.consumer: r for r in step.records}
    assert rows[lost].error == (
        f"pod {lost}: lost to the fault crash-node volperf-node-2 at +5 s (it ran on "
        f"volperf-node-2): {pods[lost]['error']}"
    )
    assert not rows[kept].error and rows[kept].write.iops > 0
    assert step.summary["pods_lost"] == [lost]
    [warning] = [w for w in step.warnings if w.code == "pods-lost"]
    assert warning.message.startswith(f"pod {lost} ran on nodes the faults acted on")
