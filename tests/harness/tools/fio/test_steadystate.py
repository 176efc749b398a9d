"""fio's own steady-state detection, parsed from real runs (fixtures/steadystate/capture.sh):
a job that attained it and was ended early, one that could not; and the step's view."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from harness.records.steadystate import step_steadystate
from harness.tools.fio.parse import parse_file

FIXTURES = Path(__file__).parent / "fixtures" / "steadystate"
VERSIONS = ["fio-3.33", "fio-3.41"]


@pytest.mark.parametrize("version", VERSIONS)
def test_a_job_that_attained_steady_state_ended_early(version):
    [job] = parse_file(FIXTURES / f"{version}-attained.json").jobs
    ss = job.steadystate
    assert ss is not None and ss.attained and ss.criterion.startswith("iops:20")
    assert ss.duration_s == 4
    assert job.runtime_ms is not None and job.runtime_ms < 30_000  # runtime was 30 s
    assert job.read is not None
    assert ss.iops_mean == pytest.approx(job.read.iops, rel=0.25)  # its last 4 s
    assert ss.bw_mean_kib == pytest.approx(ss.iops_mean * 4, rel=0.01)  # 4 KiB blocks


@pytest.mark.parametrize("version", VERSIONS)
def test_a_job_that_did_not_ran_its_whole_runtime(version):
    [job] = parse_file(FIXTURES / f"{version}-not-attained.json").jobs
    assert job.steadystate is not None and not job.steadystate.attained
    assert job.runtime_ms is not None and job.runtime_ms >= 5_900


def test_without_steadystate_there_is_none():
    jobs = parse_file(FIXTURES.parent / "fio-3.33-jsonplus-reader-writer.out").jobs
    assert all(j.steadystate is None for j in jobs)
    assert step_steadystate(jobs) is None


def test_the_step_counts_attained_consumers_and_names_the_others():
    attained = parse_file(FIXTURES / "fio-3.33-attained.json").jobs[0]
    missed = parse_file(FIXTURES / "fio-3.33-not-attained.json").jobs[0]
    step = step_steadystate([attained])
    assert step is not None and step.attained == 1 and step.warning() is None
    renamed = replace(missed, jobname="c02-randread")
    step = step_steadystate([attained, renamed])
    assert step is not None and step.attained == 1
    warning = step.warning()
    assert warning is not None and warning.code == "not-steady"
    assert "c02-randread" in warning.message and "c01-randread" not in warning.message
