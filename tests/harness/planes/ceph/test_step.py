from __future__ import annotations

import json
from pathlib import Path

from harness.planes.ceph.health import sample_of
from harness.planes.ceph.step import ceph_step
from tests.harness.planes.ceph.fixtures import ceph_status


def _write_samples(raw: Path, kinds: list[str], start: float) -> None:
    names = {"ok": "status-ok", "slow": "status-slow-ops"}
    lines = [
        json.dumps({**sample_of(ceph_status(names[k]), start + i), "cpu_ms": 1, "wall_ms": 2})
        for i, k in enumerate(kinds)
    ]
    (raw / "ceph-health.jsonl").write_text("\n".join(lines) + "\n")


def test_health_checks_become_events_and_warnings(tmp_path: Path):
    _write_samples(tmp_path, ["ok", "slow", "slow", "ok"], start=2000.0)
    result = ceph_step(tmp_path, "001-w-c002-r1", step_start=1998.0)
    (event,) = result.events
    assert (event.step, event.consumer, event.event, event.index) == (
        "001-w-c002-r1",
        "cluster",
        "ceph SLOW_OPS",
        1,
    )
    assert event.start_ms == 2001000 and event.seconds == 2.0
    assert event.detail.startswith("SLOW_OPS (HEALTH_WARN) from +3 s to +4 s of the step")
    (warning,) = result.warnings
    assert warning.code == "ceph-health" and warning.message == event.detail
    health = result.summary["ceph_health"]
    assert health["samples"] == 4 and health["worst"] == "HEALTH_WARN"
    assert health["checks"] == {"SLOW_OPS": 1}


def test_a_healthy_step_has_a_summary_and_nothing_else(tmp_path: Path):
    _write_samples(tmp_path, ["ok", "ok"], start=10.0)
    result = ceph_step(tmp_path, "s", step_start=None)
    assert result.events == [] and result.warnings == []
    assert result.summary["ceph_health"]["worst"] == "HEALTH_OK"


def test_reads_of_images_not_written_in_full_are_flagged(tmp_path: Path):
    images = [
        {"consumer": "c01", "reads": True, "written_in_full": False},
        {"consumer": "c02", "reads": False, "written_in_full": False},
        {"consumer": "c03", "reads": True, "written_in_full": True},
    ]
    (tmp_path / "images.json").write_text(json.dumps(images))
    (warning,) = ceph_step(tmp_path, "s", None).warnings
    assert warning.code == "unwritten-reads"
    assert warning.message.startswith("c01 read RBD images not written in full first")


def test_a_step_without_ceph_files_adds_nothing(tmp_path: Path):
    result = ceph_step(tmp_path, "s", 1.0)
    assert (result.summary, result.events, result.warnings) == ({}, [], [])
