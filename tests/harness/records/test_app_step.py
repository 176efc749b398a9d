"""An application step's records and figures from real git.sh and build.sh output
(tools/fixtures/apps), and a Kubernetes project whose pod never ran."""

from __future__ import annotations

import json
import shutil
import statistics
from pathlib import Path

from harness.records.app_step import (
    APP_DIR,
    APPS_CSV,
    PROJECTS_FILE,
    SOURCE_OUT,
    app_step,
    apps_csv,
)
from harness.records.step import RawStep
from harness.records.sweep_stop import no_space, step_figures

APPS = Path(__file__).parents[1] / "tools" / "fixtures" / "apps"


def _step(
    tmp_path: Path, tool: str, outputs: dict[str, str], projects: dict | None = None
) -> RawStep:
    raw = tmp_path / "raw"
    (raw / APP_DIR).mkdir(parents=True)
    shutil.copyfile(APPS / f"{tool}-generate.out", raw / APP_DIR / SOURCE_OUT)
    for consumer, fixture in outputs.items():
        shutil.copyfile(APPS / fixture, raw / APP_DIR / f"{consumer}.out")
    if projects is not None:
        document = {"storage_class": "local-path", "projects": projects}
        (raw / APP_DIR / PROJECTS_FILE).write_text(json.dumps(document))
    plan = {
        "workload": {"tool": tool},
        "concurrency": len(outputs),
        "consumers": [{"name": c} for c in outputs],
    }
    return RawStep(raw, f"001-{tool}-c002-r1", plan, "local:ext4:vda", None)


def _printed(fixture: str) -> list[tuple[str, str, float, str]]:
    """(iteration, phase, seconds, status) as the fixture prints them, without the parser."""
    found = []
    for line in (APPS / fixture).read_text().splitlines():
        fields = dict(part.split("=", 1) for part in line.split()[1:] if "=" in part)
        if "phase" in fields and "seconds" in fields:
            found.append(
                (fields["iteration"], fields["phase"], float(fields["seconds"]), fields["status"])
            )
    return found


def _ok(fixture: str, phase: str) -> list[float]:
    return [s for _, p, s, status in _printed(fixture) if p == phase and status == "ok"]


def test_two_git_consumers_one_on_a_full_file_system(tmp_path):
    parts = app_step(_step(tmp_path, "git", {"c01": "git-run.out", "c02": "git-no-space.out"}))
    app = parts.summary["app"]
    clones = _ok("git-run.out", "clone") + _ok("git-no-space.out", "clone")
    assert app["tool"] == "git"
    assert app["clone_s"] == round(statistics.fmean(clones), 3)
    assert app["clone_s_max"] == max(clones)
    assert app["untar_s"] == round(statistics.fmean(_ok("git-run.out", "untar")), 3)
    whole = [
        sum(s for i, _, s, _ in _printed("git-run.out") if i == iteration) for iteration in "12"
    ]
    assert app["iterations"] == 2  # c02's iterations never got past tar
    assert app["iteration_s"] == round(statistics.fmean(whole), 3)
    assert app["failed"] == 2 and app["failed_consumers"] == 1
    assert app["source"] == {"files": 300, "size": 4096, "commits": 3, "pack_kib": 478}
    rows = parts.rows[APPS_CSV]
    assert [(r.consumer, r.iteration, r.phase, r.seconds, r.ok) for r in rows] == [
        ("c01", int(i), p, s, st == "ok") for i, p, s, st in _printed("git-run.out")
    ] + [("c02", int(i), p, s, st == "ok") for i, p, s, st in _printed("git-no-space.out")]
    assert [w.code for w in parts.warnings] == ["git-failed", "git-failed"]
    text = apps_csv(rows)
    assert text.splitlines()[0] == (
        "step,tool,consumer,concurrency,iteration,phase,seconds,ok,backend,repeat,"
        "operations,ops_per_s,latency_avg_ms,latency_p95_ms,latency_p99_ms,failed_operations"
    )


def _totals(fixture: str) -> dict[tuple[int, str], dict[str, str]]:
    """go-ycsb's TOTAL and errors of each (iteration, phase), read from its JSON by hand."""
    found = {}
    for line in (APPS / fixture).read_text().splitlines():
        if line.startswith("volperf-app measurements "):
            fields = dict(p.split("=", 1) for p in line.split()[2:4])
            items = json.loads(line[line.index("[") :])
            total = next((m for m in items if m["Operation"] == "TOTAL"), {})
            errors = sum(int(m["Count"]) for m in items if m["Operation"].endswith("_ERROR"))
            found[(int(fields["iteration"]), fields["phase"])] = {**total, "errors": errors}
    return found


def test_a_redis_step_sums_go_ycsbs_throughput_and_counts_lost_operations(tmp_path):
    outputs = {"c01": "redis-run.out", "c02": "redis-no-space.out"}
    parts = app_step(_step(tmp_path, "redis", outputs))
    app = parts.summary["app"]
    good, full = _totals("redis-run.out"), _totals("redis-no-space.out")
    runs = [float(good[(i, "run")]["OPS"]) for i in (1, 2)]
    loads = [float(good[(i, "load")]["OPS"]) for i in (1, 2)]
    assert app["run_ops_s"] == round(statistics.fmean(runs), 1)  # c02 ran none
    assert app["run_ops_s_per_consumer"] == round(statistics.fmean(runs), 1)
    assert app["load_ops_s"] == round(statistics.fmean(loads) + float(full[(1, "load")]["OPS"]), 1)
    assert app["load_failed_operations"] == full[(1, "load")]["errors"] > 0
    assert app["run_p95_ms_max"] == max(int(good[(i, "run")]["95th(us)"]) for i in (1, 2)) / 1000
    assert (app["iterations"], app["failed"], app["failed_consumers"]) == (2, 1, 1)
    rows = [r for r in parts.rows[APPS_CSV] if r.consumer == "c01"]
    assert [(r.iteration, r.phase, r.ops_per_s, r.operations) for r in rows] == [
        (i, p, float(good[(i, p)]["OPS"]), int(good[(i, p)]["Count"]))
        for i in (1, 2)
        for p in ("load", "run")
    ]
    c02_run = next(r for r in parts.rows[APPS_CSV] if r.consumer == "c02" and r.phase == "run")
    assert (c02_run.ok, c02_run.ops_per_s) == (False, None)  # refused before its first operation
    assert (
        step_figures(parts.summary | {"concurrency": 2}, [], [], []).throughput == app["run_ops_s"]
    )


def test_a_broker_step_sums_nats_benchs_messages_per_second(tmp_path):
    outputs = {"c01": "broker-run.out", "c02": "broker-one.out", "c03": "broker-no-space.out"}
    parts = app_step(_step(tmp_path, "broker", outputs))
    app = parts.summary["app"]
    # read by hand: c01's two publishing rates, and c02's one, as nats bench printed them
    c01_publish, c02_publish = [4658.0, 4897.0], [134636.0]
    c01_consume, c02_consume = [154288.0, 170777.0], [159015.0]
    means = [statistics.fmean(c01_publish), statistics.fmean(c02_publish)]
    assert app["publish_ops_s"] == round(sum(means), 1)  # c03 published none
    assert app["publish_ops_s_per_consumer"] == round(statistics.fmean(means), 1)
    consumed = [statistics.fmean(c01_consume), statistics.fmean(c02_consume)]
    assert app["consume_ops_s"] == round(sum(consumed), 1)
    assert app["publish_latency_avg_ms"] == round(
        statistics.fmean([209.09175, 204.12767, 3.70485]), 3
    )
    assert app["publish_p99_ms_max"] == 297.85429  # c01's first iteration
    assert app["publish_p95_ms_max"] is None  # nats bench gives none
    assert app["consume_latency_avg_ms"] is None
    assert (app["iterations"], app["failed"], app["failed_consumers"]) == (3, 1, 1)
    rows = [r for r in parts.rows[APPS_CSV] if r.consumer == "c01"]
    assert [(r.phase, r.operations, r.ops_per_s) for r in rows] == [
        ("publish", 10000, 4658.0),
        ("consume", 10000, 154288.0),
        ("publish", 10000, 4897.0),
        ("consume", 10000, 170777.0),
    ]
    assert (
        step_figures(parts.summary | {"concurrency": 3}, [], [], []).throughput
        == (app["publish_ops_s"])
    )


def test_a_build_step_counts_its_failed_builds(tmp_path):
    outputs = {"c01": "build-run.out", "c02": "build-no-space.out"}
    app = app_step(_step(tmp_path, "build", outputs)).summary["app"]
    assert app["tool"] == "build"
    assert app["build_s"] == round(statistics.fmean(_ok("build-run.out", "build")), 3)
    assert app["unpack_s_max"] == max(
        _ok("build-run.out", "unpack") + _ok("build-no-space.out", "unpack")
    )
    assert app["clean_s"] == round(statistics.fmean(_ok("build-run.out", "clean")), 3)
    assert (app["iterations"], app["failed"], app["failed_consumers"]) == (2, 2, 1)
    assert app["source"] == {"files": 200, "size": 4096, "tar_kib": 1040}


def test_the_sweep_rules_see_the_full_file_system_and_the_failed_consumer(tmp_path):
    parts = app_step(_step(tmp_path, "git", {"c01": "git-run.out", "c02": "git-no-space.out"}))
    error = "git phases failed: c02: " + parts.warnings[0].message
    summary = {**parts.summary, "concurrency": 2, "state": "failed", "error": error}
    figures = step_figures(summary, [], [], parts.events)
    assert (figures.consumers, figures.failed) == (2, 1)
    assert figures.per_consumer == 1 / parts.summary["app"]["iteration_s"]
    assert "out of space" in (no_space(figures.problems) or "")


def test_a_killed_run_counts_its_consumer_failed(tmp_path):
    app = app_step(_step(tmp_path, "git", {"c01": "git-killed.out"})).summary["app"]
    assert app["iterations"] == 1 and app["failed"] == 1 and app["failed_consumers"] == 1


def test_a_project_whose_pod_never_ran_is_failed_with_its_reason_and_bound_times(tmp_path):
    reason = "Pending after 15 s; pod events: FailedScheduling: 0/1 nodes are available"
    projects = {
        "c01": {"namespace": "ns-1", "created_ms": 1000, "bound_ms": 1750, "phase": "Succeeded"},
        "c02": {"namespace": "ns-2", "created_ms": 1100, "phase": "Pending", "error": reason},
    }
    outputs = {"c01": "git-run.out", "c02": "git-run.out"}
    parts = app_step(_step(tmp_path, "git", outputs, projects))
    assert [(e.consumer, e.event, e.seconds, e.detail) for e in parts.events] == [
        ("c01", "k8s pvc-bound", 0.75, ""),
        ("c02", "k8s pvc-bound", None, reason),
    ]
    assert parts.summary["app"]["failed_consumers"] == 1
    assert parts.summary["storage_class"] == "local-path"
    assert {r.consumer for r in parts.rows[APPS_CSV]} == {"c01"}
    assert parts.warnings[0].message == f"c02: {reason}"


def test_a_pods_log_gives_the_source_it_made(tmp_path):
    """On Kubernetes each pod's log is the source's line, then the phases (no
    source.out): the step's source is read from it."""
    step = _step(tmp_path, "git", {"c01": "git-run.out"})
    (step.raw / APP_DIR / SOURCE_OUT).unlink()
    log = (APPS / "git-generate.out").read_text() + (APPS / "git-run.out").read_text()
    (step.raw / APP_DIR / "c01.out").write_text(log)
    app = app_step(step).summary["app"]
    assert app["source"] == {"files": 300, "size": 4096, "commits": 3, "pack_kib": 478}
    assert app["iterations"] == 2
