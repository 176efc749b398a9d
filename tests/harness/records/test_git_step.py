"""A git step's records and figures from real workload.sh output (tools/fixtures/git),
and a Kubernetes project whose pod never ran."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from harness.records.git_step import GIT_CSV, GIT_DIR, PROJECTS_FILE, REPO_OUT, git_csv, git_step
from harness.records.step import RawStep
from harness.records.sweep_stop import no_space, step_figures

GIT = Path(__file__).parents[1] / "tools" / "fixtures" / "git"


def _step(tmp_path: Path, outputs: dict[str, str], projects: dict | None = None) -> RawStep:
    raw = tmp_path / "raw"
    (raw / GIT_DIR).mkdir(parents=True)
    shutil.copyfile(GIT / "generate.out", raw / GIT_DIR / REPO_OUT)
    for consumer, fixture in outputs.items():
        shutil.copyfile(GIT / fixture, raw / GIT_DIR / f"{consumer}.out")
    if projects is not None:
        document = {"storage_class": "local-path", "projects": projects}
        (raw / GIT_DIR / PROJECTS_FILE).write_text(json.dumps(document))
    plan = {"concurrency": len(outputs), "consumers": [{"name": c} for c in outputs]}
    return RawStep(raw, "001-git-c002-r1", plan, "local:ext4:vda", None)


def _seconds(fixture: str, phase: str) -> list[float]:
    """The phase's seconds as the fixture prints them, read without the parser."""
    found = []
    for line in (GIT / fixture).read_text().splitlines():
        fields = dict(part.split("=", 1) for part in line.split()[1:] if "=" in part)
        if fields.get("phase") == phase and fields.get("status") == "ok":
            found.append(float(fields["seconds"]))
    return found


def test_two_consumers_one_on_a_full_file_system(tmp_path):
    parts = git_step(_step(tmp_path, {"c01": "run.out", "c02": "no-space.out"}))
    git = parts.summary["git"]
    clones = _seconds("run.out", "clone") + _seconds("no-space.out", "clone")
    assert git["clone_s"] == round(sum(clones) / len(clones), 3)
    assert git["clone_s_max"] == max(clones)
    assert git["untar_s"] == round(sum(_seconds("run.out", "untar")) / 2, 3)
    whole = [
        sum(_seconds("run.out", p)[i] for p in ("clone", "tar", "untar", "rm")) for i in (0, 1)
    ]
    assert git["iterations"] == 2  # c02's iterations never got past tar
    assert git["iteration_s"] == round(sum(whole) / 2, 3)
    assert git["failed"] == 2 and git["failed_consumers"] == 1
    assert git["repo"] == {"files": 300, "size": 4096, "commits": 3, "pack_kib": 478}
    rows = parts.rows[GIT_CSV]
    assert len(rows) == 8 + 4
    assert [w.code for w in parts.warnings] == ["git-failed", "git-failed"]
    text = git_csv(rows)
    assert text.splitlines()[0] == (
        "step,consumer,concurrency,iteration,phase,seconds,ok,backend,repeat"
    )
    failed_tars = [line for line in text.splitlines() if ",c02,2," in line and ",tar," in line]
    assert [line.split(",")[6] for line in failed_tars] == ["False", "False"]


def test_the_sweep_rules_see_the_full_file_system_and_the_failed_consumer(tmp_path):
    parts = git_step(_step(tmp_path, {"c01": "run.out", "c02": "no-space.out"}))
    error = "git phases failed: c02: " + parts.warnings[0].message
    summary = {**parts.summary, "concurrency": 2, "state": "failed", "error": error}
    figures = step_figures(summary, [], [], parts.events)
    assert (figures.consumers, figures.failed) == (2, 1)
    assert figures.per_consumer == 1 / parts.summary["git"]["iteration_s"]
    assert "out of space" in (no_space(figures.problems) or "")


def test_a_killed_run_counts_its_consumer_failed(tmp_path):
    git = git_step(_step(tmp_path, {"c01": "killed.out"})).summary["git"]
    assert git["iterations"] == 1 and git["failed"] == 1 and git["failed_consumers"] == 1


def test_a_project_whose_pod_never_ran_is_failed_with_its_reason_and_bound_times(tmp_path):
    reason = "Pending after 15 s; pod events: FailedScheduling: 0/1 nodes are available"
    projects = {
        "c01": {"namespace": "ns-1", "created_ms": 1000, "bound_ms": 1750, "phase": "Succeeded"},
        "c02": {"namespace": "ns-2", "created_ms": 1100, "phase": "Pending", "error": reason},
    }
    parts = git_step(_step(tmp_path, {"c01": "run.out", "c02": "run.out"}, projects))
    assert [(e.consumer, e.event, e.seconds, e.detail) for e in parts.events] == [
        ("c01", "k8s pvc-bound", 0.75, ""),
        ("c02", "k8s pvc-bound", None, reason),
    ]
    assert parts.summary["git"]["failed_consumers"] == 1
    assert parts.summary["storage_class"] == "local-path"
    assert {r.consumer for r in parts.rows[GIT_CSV]} == {"c01"}
    assert parts.warnings[0].message == f"c02: {reason}"
