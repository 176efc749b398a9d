"""Ceph reports SLOW_OPS for real during a step: the event reaches the step, events.csv and
the page.

osd_op_complaint_time lowered to 20 ms under 4M writes (as the testbed notes found) made only a
few ops slow on this machine and none on a quieter one, so the OSD also delays every op it
dispatches by 30 ms with its own fault injection (osd_debug_inject_dispatch_delay_*): every op
in flight is then older than the threshold whatever the machine's speed."""

from __future__ import annotations

import csv
import json
import subprocess

import pytest
import yaml

from harness.testbeds.ceph import CephTestbed
from tests.conftest import CephTestbedInfo
from tests.harness.helpers import volperf
from tests.harness.planes.ceph.test_target import rbd_spec


def ceph(testbed: CephTestbedInfo, *args: str) -> None:
    argv = ["ceph", "-c", str(testbed.conf), *args]
    subprocess.run(argv, check=True, capture_output=True, timeout=60)


@pytest.fixture
def slow_ops_threshold(ceph_testbed: CephTestbedInfo):
    settings = {
        "osd_op_complaint_time": "0.02",
        "osd_debug_inject_dispatch_delay_duration": "0.03",
        "osd_debug_inject_dispatch_delay_probability": "1",
    }
    for name, value in settings.items():
        ceph(ceph_testbed, "config", "set", "osd", name, value)
    yield
    for name in settings:
        ceph(ceph_testbed, "config", "rm", "osd", name)
    CephTestbed(ceph_testbed.state).wait_ready(180, lambda line: None)  # healthy for what follows


def test_slow_ops_reach_the_step_events_and_report(ceph_testbed, slow_ops_threshold, tmp_path):
    workload = {
        "name": "write-4m",
        "rw": "write",
        "bs": "4M",
        "iodepth": 16,
        "size": "64M",
        "runtime": 12,
    }
    spec = rbd_spec(ceph_testbed, "slow", [workload], sweep=[1])
    spec["target"]["user"] = "admin"  # may ask the OSDs for their own counters
    (tmp_path / "spec.yaml").write_text(yaml.safe_dump(spec))
    run = volperf("run", "spec.yaml", "--results", "results", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    root = tmp_path / "results" / "slow"

    (step,) = json.loads((root / "summary.json").read_text())["steps"]
    assert step["state"] == "done" and step["write"]["iops_sum"] > 0  # figures kept
    assert step["ceph_health"]["worst"] == "HEALTH_WARN"
    assert step["ceph_health"]["checks"]["SLOW_OPS"] >= 1
    warnings = [w["message"] for w in step["warnings"] if w["code"] == "ceph-health"]
    assert warnings and warnings[0].startswith("SLOW_OPS (HEALTH_WARN)")
    assert "slow ops" in warnings[0] and "of the step" in warnings[0]
    assert "warning 001-write-4m-c001-r1: SLOW_OPS" in " ".join(run.stderr.split())

    events = list(csv.DictReader((root / "events.csv").open()))
    slow = [e for e in events if e["event"] == "ceph SLOW_OPS"]
    assert slow and slow[0]["consumer"] == "cluster" and slow[0]["detail"] == warnings[0]
    samples = [
        json.loads(line)
        for line in (root / "steps" / step["step"] / "raw" / "ceph-health.jsonl")
        .read_text()
        .splitlines()
    ]
    assert any("SLOW_OPS" in s.get("checks", {}) for s in samples)  # raw, as Ceph said it
    # the OSD's own count over fio's run: each 4M write one op, and at most one object-map
    # update per object of the 64M image (16) and a few of the image's lock
    (osd,) = step["ceph_osds"]
    assert osd["osd"] == "osd.0" and osd["reads_s_mean"] < osd["writes_s_mean"] / 10  # librbd's own
    fio = json.loads((root / "steps" / step["step"] / "raw" / "fio.out").read_text())
    write = fio["jobs"][0]["write"]
    assert osd["seconds"] == pytest.approx(write["runtime"] / 1000, abs=0.5), osd  # fio's window
    ops = osd["writes_s_mean"] * osd["seconds"]
    assert write["total_ios"] * 0.9 <= ops <= write["total_ios"] * 1.1 + 16 + 4, (osd, write)
    assert osd["write_kib_s_mean"] == pytest.approx(step["write"]["bandwidth_sum"], rel=0.1)
    assert osd["write_ms"] > 30  # every op delayed 30 ms by the injected fault

    (tmp_path / "doc").mkdir()
    (tmp_path / "doc" / "conf.py").write_text("project = 't'\n")
    page = volperf("report", str(root), "--doc-source", "doc", cwd=tmp_path)
    assert page.returncode == 0, page.stderr
    text = (tmp_path / "doc" / "test_results" / "slow" / "index.rst").read_text()
    rst = warnings[0].replace("_", "\\_")  # as reStructuredText writes it
    assert f"- 001-write-4m-c001-r1: {rst}" in text  # the page's warnings
    assert "- ceph SLOW\\_OPS" in text  # the events table
    assert "Ceph OSDs (their own counters)" in text and "     - osd.0\n" in text
