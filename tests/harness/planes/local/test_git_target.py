"""The git workload on the local target, run for real (git, tar on this machine): a
campaign of 1 and 2 consumers through the CLI, its records equal to what workload.sh
printed, its page, nothing left behind; and a sweep on a small ext4 that ends where the
consumers' clones, tars and copies no longer fit."""

from __future__ import annotations

import csv
import json
import statistics
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from harness.campaign.run import run_campaign
from harness.core.spec import validate
from harness.planes.local.target import LocalTarget
from tests.harness.helpers import doc_source_copy, small_ext4, volperf

pytestmark = pytest.mark.functional

REPO = {"files": 300, "file_size": "4K", "commits": 3}


def _spec(directory: Path, name: str, sweep: object, repo: dict = REPO) -> dict:
    return {
        "name": name,
        "target": {"type": "local", "dir": str(directory)},
        "workloads": [{"name": "git", "tool": "git", "repo": repo, "iterations": 2}],
        "sweep": sweep,
    }


def _printed(path: Path) -> list[list[str]]:
    """workload.sh's phase lines as (iteration, phase, seconds, status), read by hand."""
    rows = []
    for line in path.read_text().splitlines():
        fields = dict(p.split("=", 1) for p in line.split()[1:] if "=" in p)
        if "phase" in fields and "seconds" in fields:
            rows.append([fields["iteration"], fields["phase"], fields["seconds"], fields["status"]])
    return rows


@pytest.fixture(scope="module")
def campaign(tmp_path_factory) -> tuple[Path, Path]:
    work = tmp_path_factory.mktemp("git-local")
    (work / "dir").mkdir()
    (work / "spec.yaml").write_text(yaml.safe_dump(_spec(work / "dir", "git-local", [1, 2])))
    run = volperf("run", "spec.yaml", "--results", "results", cwd=work)
    assert run.returncode == 0, run.stdout + run.stderr
    return work, work / "results" / "git-local"


def test_each_step_is_done_and_nothing_is_left_behind(campaign):
    work, root = campaign
    states = [p.read_text() for p in sorted(root.glob("steps/*/status.json"))]
    assert len(states) == 2 and all('"state": "done"' in s for s in states)
    assert list((work / "dir").iterdir()) == []  # the repository and the work folders
    assert (root / "created.json").read_text().strip() == "{}"


def test_git_csv_holds_what_workload_sh_printed(campaign):
    _, root = campaign
    with (root / "git.csv").open() as handle:
        rows = list(csv.DictReader(handle))
    for step in sorted(root.glob("steps/*")):
        for out in sorted((step / "raw" / "git").glob("c*.out")):
            mine = [
                [r["iteration"], r["phase"], r["seconds"], "ok" if r["ok"] == "True" else "failed"]
                for r in rows
                if r["step"] == step.name and r["consumer"] == out.stem
            ]
            printed = _printed(out)
            assert len(printed) == 8  # 2 iterations of clone, tar, untar, rm
            assert [[i, p, f"{float(s):g}", st] for i, p, s, st in mine] == [
                [i, p, f"{float(s):g}", st] for i, p, s, st in printed
            ]


def test_the_summary_and_the_page_give_the_mean_iteration(campaign):
    work, root = campaign
    summary = json.loads((root / "summary.json").read_text())
    step = summary["steps"][1]
    printed = [
        _printed(out)
        for out in sorted((root / "steps" / step["step"] / "raw" / "git").glob("c*.out"))
    ]
    whole = [sum(float(r[2]) for r in rows if r[0] == str(i)) for rows in printed for i in (1, 2)]
    assert step["git"]["iteration_s"] == pytest.approx(statistics.fmean(whole), abs=0.001)
    assert step["git"]["repo"]["files"] == 300 and step["git"]["repo"]["pack_kib"] > 0
    source = doc_source_copy(work)
    report = volperf("report", "results/git-local", "--doc-source", str(source), cwd=work)
    assert report.returncode == 0, report.stderr
    page = (source / "test_results" / "git-local" / "index.rst").read_text()
    assert "git: per step" in page and "w1-git.png" in page
    assert f"     - {step['git']['iteration_s']:.2f}\n" in page


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    with small_ext4(tmp_path) as mount:
        yield mount


def test_a_sweep_ends_where_the_clones_no_longer_fit(small_disk, tmp_path):
    # a consumer holds a clone (3.2 MB of files and its .git), its tar and a copy: one
    # fits the 24 MiB ext4, two do not
    repo = {"files": 200, "file_size": "16K", "commits": 2}
    sweep = {"counts": [1, 2, 4], "stop_when": {"no_space": True}}
    spec = validate(_spec(small_disk, "git-full", sweep, repo))
    outcome = run_campaign(spec, tmp_path / "results", LocalTarget)
    states = [r.summary["state"] for r in outcome.results]
    assert states == ["done", "failed", "skipped"]
    full = outcome.results[1].summary
    assert full["ended_sweep"].startswith("no space: git phases failed: ")
    assert full["ended_sweep"].endswith("its file system is out of space (0 KiB free)")
    assert full["git"]["failed"] > 0
    assert outcome.results[0].summary["git"]["iterations"] == 2  # kept
    assert [p.name for p in small_disk.iterdir()] == ["lost+found"]
