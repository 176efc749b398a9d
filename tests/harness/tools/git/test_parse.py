"""workload.sh's output parsed, on real runs (fixtures/git/capture.sh)."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.tools.git.parse import PHASES, GitOutputError, parse

GIT = Path(__file__).parents[1] / "fixtures" / "git"


def test_a_run_has_every_phase_of_every_iteration_as_printed():
    run = parse((GIT / "run.out").read_text())
    assert [(p.iteration, p.phase) for p in run.phases] == [(i, n) for i in (1, 2) for n in PHASES]
    assert [p.seconds for p in run.phases] == [0.48, 0.01, 0.35, 0.09, 0.34, 0.01, 0.26, 0.07]
    assert all(p.ok for p in run.phases)
    assert run.finished and run.failed == 0 and run.errors == ()


def test_the_repository_line():
    assert parse((GIT / "generate.out").read_text()).repo == {
        "files": 300,
        "size": 4096,
        "commits": 3,
        "pack_kib": 478,
    }


def test_a_full_file_system_fails_a_phase_each_iteration_quoting_tar():
    run = parse((GIT / "no-space.out").read_text())
    assert [(p.iteration, p.phase, p.ok) for p in run.phases] == [
        (1, "clone", True),
        (1, "tar", False),
        (2, "clone", True),
        (2, "tar", False),
    ]
    assert run.failed == 2 and run.finished
    assert "Wrote only 8192 of 10240 bytes" in run.errors[0]
    assert run.errors[0].startswith("iteration=1 phase=tar: tar: <work>/small/run/clone.tar")
    assert run.errors[0].endswith("its file system is out of space (0 KiB free)")


def test_a_killed_run_has_no_done_line():
    run = parse((GIT / "killed.out").read_text())
    assert not run.finished and run.failed == 0
    assert [(p.iteration, p.phase) for p in run.phases][-1] == (2, "tar")


def test_other_lines_are_skipped_and_a_broken_line_is_named():
    assert parse("warning: something\n").phases == ()
    with pytest.raises(GitOutputError, match=r"line 2 is not workload.sh's: 'volperf-git itera"):
        parse("x\nvolperf-git iteration=1 phase=clone seconds=abc status=ok\n")
    with pytest.raises(GitOutputError, match="line 1"):
        parse("volperf-git iteration=1 phase=push seconds=1 status=ok\n")
