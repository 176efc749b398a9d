"""The tool registry takes a tool of the user's own: volperf_tiny (tiny_tool/, a module
and its script that exist only in the tests) named in VOLPERF_TOOLS runs through `volperf
run` and `volperf report` from spec to page, its records what its script printed; a
module that declares no tool, or one volperf already has, is refused by its name."""

from __future__ import annotations

import csv
import json
import os
import statistics
from pathlib import Path

import pytest
import yaml

from harness.core.spec import SpecError, validate
from harness.core.workloads.registry import BUILT_IN, ToolPluginError, plugins
from tests.harness.helpers import doc_source_copy, volperf

TINY = Path(__file__).with_name("tiny_tool")
SPEC = {
    "name": "tiny",
    "workloads": [{"name": "tiny", "tool": "tiny", "blocks": 1024, "iterations": 2}],
    "sweep": [1, 2],
}


def _with_tiny() -> dict[str, str]:
    path = os.pathsep.join(filter(None, [str(TINY), os.environ.get("PYTHONPATH")]))
    return {"VOLPERF_TOOLS": "volperf_tiny", "PYTHONPATH": path}


def _printed(out: Path) -> dict[tuple[str, str], float]:
    """The script's phase lines, (iteration, phase) -> seconds, read by hand."""
    found = {}
    for line in out.read_text().splitlines():
        fields = dict(p.split("=", 1) for p in line.split()[1:] if "=" in p)
        if "phase" in fields and "seconds" in fields:
            assert fields["status"] == "ok", line
            found[(fields["iteration"], fields["phase"])] = float(fields["seconds"])
    return found


@pytest.mark.functional
def test_a_tool_of_the_tests_own_runs_from_spec_to_page(tmp_path):
    (tmp_path / "dir").mkdir()
    spec = {**SPEC, "target": {"type": "local", "dir": str(tmp_path / "dir")}}
    (tmp_path / "spec.yaml").write_text(yaml.safe_dump(spec))
    run = volperf("run", "spec.yaml", "--results", "results", cwd=tmp_path, env=_with_tiny())
    assert run.returncode == 0, run.stdout + run.stderr
    assert "tiny: 2 x copy, read, rm of 1024 blocks" in run.stderr
    root = tmp_path / "results" / "tiny"
    steps = json.loads((root / "summary.json").read_text())["steps"]
    assert [(s["app"]["tool"], s["concurrency"], s["state"]) for s in steps] == [
        ("tiny", 1, "done"),
        ("tiny", 2, "done"),
    ]
    with (root / "apps.csv").open() as handle:
        rows = list(csv.DictReader(handle))
    for step in steps:
        outputs = sorted((root / "steps" / step["step"] / "raw" / "app").glob("c*.out"))
        assert len(outputs) == step["concurrency"]
        printed = {out.stem: _printed(out) for out in outputs}
        mine = {
            r["consumer"]: {}
            for r in rows
            if r["step"] == step["step"]  # one row per consumer, iteration and phase
        }
        for r in (r for r in rows if r["step"] == step["step"]):
            mine[r["consumer"]][(r["iteration"], r["phase"])] = float(r["seconds"])
        assert mine == printed
        assert {phase for _, phase in printed["c01"]} == {"copy", "read", "rm"}
        app = step["app"]
        for phase in ("copy", "read", "rm"):
            times = [s for found in printed.values() for (_, p), s in found.items() if p == phase]
            assert app[f"{phase}_s"] == pytest.approx(statistics.fmean(times), abs=0.001)
        assert app["source"] == {"blocks": 1024}
    campaign = yaml.safe_load((root / "campaign.yaml").read_text())
    assert "dd (coreutils)" in json.dumps(campaign)
    assert list((tmp_path / "dir").iterdir()) == []
    assert json.loads((root / "created.json").read_text()) == {}

    source = doc_source_copy(tmp_path)
    report = volperf(
        "report", "results/tiny", "--doc-source", str(source), cwd=tmp_path, env=_with_tiny()
    )
    assert report.returncode == 0, report.stderr
    page = (source / "test_results" / "tiny" / "index.rst").read_text()
    assert "tiny: per step" in page and "w1-app.png" in page
    assert "each consumer copies a file of 1024 random 4 KiB blocks" in page
    for step in steps:
        assert f"     - {step['app']['iteration_s']:.2f}\n" in page
    assert (source / "test_results" / "tiny" / "w1-app.png").stat().st_size > 1000
    # without its module, volperf says which tools it knows and where a new one is named
    unknown = volperf("report", "results/tiny", "--doc-source", str(source), cwd=tmp_path)
    assert unknown.returncode == 1
    assert "unknown tool; one of fio, " in unknown.stderr
    assert "or a tool of your own named in VOLPERF_TOOLS" in unknown.stderr


def test_without_its_module_the_spec_does_not_know_the_tool(tmp_path):
    spec = {**SPEC, "target": {"type": "local", "dir": str(tmp_path)}}
    with pytest.raises(SpecError, match="unknown tool; one of fio, "):
        validate(spec)


def test_a_module_that_declares_no_tool_or_a_known_one_is_refused_by_name(monkeypatch):
    monkeypatch.syspath_prepend(str(TINY))
    known = [t.tag for t in BUILT_IN]
    assert [t.tag for t in plugins(" volperf_tiny, ", known)] == ["tiny"]
    with pytest.raises(ToolPluginError, match="'volperf_nothing' could not be imported"):
        plugins("volperf_nothing", known)
    with pytest.raises(ToolPluginError, match="module 'json' declares no TOOL"):
        plugins("json", known)
    with pytest.raises(ToolPluginError, match="tool 'tiny' is already declared"):
        plugins("volperf_tiny,volperf_tiny", known)
