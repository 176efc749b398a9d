"""The stop rules of an open-ended sweep, one function at a time, on what volperf
recorded of real steps (fixtures/no-space/, captured by its capture.py; the k8s
provisioning step of tests/harness/planes/k8s/fixtures/provision/)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.core.spec import StopWhen
from harness.planes.k8s.provision_step import provision_step
from harness.records.stats import sample_percentile
from harness.records.sweep_stop import (
    PROBLEM_CHARS,
    StepFigures,
    bound_p95,
    failure_pct,
    no_space,
    space_quote,
    step_figures,
    stop_reason,
)

FIXTURES = Path(__file__).parent / "fixtures" / "no-space"
PROVISION = Path(__file__).parents[1] / "planes" / "k8s" / "fixtures" / "provision"


def _captured(name: str) -> StepFigures:
    document = json.loads((FIXTURES / name).read_text())
    document.pop("step")
    document["bound_s"] = tuple(document["bound_s"])
    document["problems"] = tuple(document["problems"])
    return StepFigures(**document)


def _step(**changes) -> StepFigures:
    base = {"consumers": 4, "failed": 0, "bound_s": (), "throughput": 400.0, "problems": ()}
    return StepFigures(**{**base, **changes})


@pytest.mark.parametrize("name", ["local-enospc.json", "k8s-no-pv.json"])
def test_no_space_finds_the_words_of_a_full_disk_and_of_a_class_without_volumes(name):
    step = _captured(name)
    assert no_space(step.problems) == step.problems[0]


def test_no_space_is_not_any_failure():
    """A pod whose image cannot be had failed its step (its PVC bound), not for space."""
    step = _captured("k8s-no-image.json")
    assert step.failed == step.consumers == 1 and step.problems
    assert no_space(step.problems) is None


def test_step_figures_of_a_provisioning_step_count_its_pvcs():
    events, summary, _ = provision_step(PROVISION, "002-pvcs-c004-r1")
    figures = step_figures({"state": "done", "error": "", **summary}, [], [], events)
    seen = json.loads((PROVISION / "provision.json").read_text())["pvcs"]
    assert figures.consumers == len(seen) and figures.failed == 0
    assert sorted(figures.bound_s) == pytest.approx(
        sorted((p["bound_ms"] - p["created_ms"]) / 1000 for p in seen)
    )
    assert figures.throughput is None and figures.problems == ()


def test_bound_p95_counts_a_pvc_never_bound_as_the_slowest():
    assert bound_p95(()) is None
    assert bound_p95((1.0, 2.0, 3.0)) == sample_percentile([1.0, 2.0, 3.0], 95)
    assert bound_p95((1.0, None, 3.0, 2.0)) == float("inf")  # p95 falls between 3 s and it
    forty = tuple(float(s) for s in range(1, 40)) + (None,)
    assert bound_p95(forty) == pytest.approx(38 + 0.05 * (39 - 38))  # it is past p95


def test_failure_pct():
    assert failure_pct(_step(failed=1)) == 25
    assert failure_pct(_step(consumers=0)) is None


def test_no_rule_ends_a_healthy_sweep():
    rules = StopWhen(
        no_space=True, failures_above_pct=0, bound_p95_above_s=30, per_consumer_below_pct=50
    )
    assert stop_reason(rules, _step(bound_s=(1.0, 2.0)), _step()) is None


def test_no_space_ends_it_quoting_the_storage():
    """The reason quotes the problem's first clause and the one that says why."""
    step = _captured("k8s-no-pv.json")
    assert stop_reason(StopWhen(no_space=True), step, _step()) == (
        "no space: 3 of 4 PVCs not done after 15 s; …; pod events: FailedScheduling: 0/1 "
        "nodes are available: 1 node(s) didn't find available persistent volumes to bind. "
        "preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling."
    )
    assert stop_reason(StopWhen(), step, _step()) is None  # only when asked
    fio = _captured("local-enospc.json")
    assert stop_reason(StopWhen(no_space=True), fio, _step()) == (
        "no space: 2 of 3 prefill jobs failed: prefill-c03-randwrite (No space left on "
        "device), prefill-c04-randwrite (No space left on device)"
    )


def test_a_long_quote_is_cut_and_keeps_the_words_that_say_no_space():
    quote = space_quote("x" * 400 + "; no space left on device")
    assert len(quote) <= PROBLEM_CHARS and quote.endswith("no space left on device")
    assert quote.startswith("x" * (PROBLEM_CHARS // 3) + "…")
    quote = space_quote("x" * 400 + "; no space left on device: " + "y" * 400)
    assert len(quote) == PROBLEM_CHARS and "no space left on device" in quote
    assert quote.endswith("no space left on device…")
    assert space_quote("x" * 400) == "x" * (PROBLEM_CHARS - 1) + "…"  # nothing to keep


def test_a_long_clause_whose_words_come_late_keeps_them():
    """As git's phases said it when tar ran out of room (a suite run, 2026-11-26): the
    first consumer's tar could not open files whose folders it could not make, the
    second's said ENOSPC, all in one clause."""
    problem = (
        "git phases failed: c01: iteration=1 phase=untar: tar: clone/src/d13/f00013.c: "
        "Cannot open: No such file or directory / tar: Exiting with failure status due to "
        "previous errors, c02: iteration=1 phase=tar: tar: <tmp>/pytest-48/popen-gw2/"
        "test_a_sweep_ends_where_the_cl0/disk/volperf-git-full-w1-s2/c02/"
        "clone.tar: Cannot write: No space left on device / tar: Error is not recoverable: "
        "exiting now"
    )
    assert len(problem) > PROBLEM_CHARS
    quote = space_quote(problem)
    assert len(quote) <= PROBLEM_CHARS
    assert quote.startswith("git phases failed: c01: iteration=1 phase=untar")
    assert "clone.tar: Cannot write: No space left on device" in quote


def test_failures_above_the_limit_end_it():
    rules = StopWhen(failures_above_pct=20)
    assert stop_reason(rules, _step(failed=1), _step()) == "1 of 4 failed (25 %, above 20 %)"
    assert stop_reason(rules, _step(consumers=5, failed=1), _step()) is None  # 20 %: not above


def test_a_reason_prints_enough_digits_to_be_true_as_printed():
    # 21 of 200 failed is 10.5 %, and 49.6 % of the first step's: whole, 10 % and 50 %
    failures = StopWhen(failures_above_pct=10)
    assert stop_reason(failures, _step(consumers=200, failed=21), _step()) == (
        "21 of 200 failed (10.5 %, above 10 %)"
    )
    slow = _step(bound_s=(10.04,))
    assert stop_reason(StopWhen(bound_p95_above_s=10), slow, _step()) == (
        "PVC bound p95 10.04 s, above 10 s"
    )
    rules = StopWhen(per_consumer_below_pct=50)
    first = _step(consumers=1, throughput=1000.0)
    assert stop_reason(rules, _step(consumers=10, throughput=4960.0), first) == (
        "496 per consumer, 49.6 % of the first step's 1000 (below 50 %)"
    )


def test_slow_binding_ends_it():
    rules = StopWhen(bound_p95_above_s=10)
    slow = _step(bound_s=(2.0, 4.0, 30.0))
    assert stop_reason(rules, slow, _step()) == (
        f"PVC bound p95 {sample_percentile([2.0, 4.0, 30.0], 95):.1f} s, above 10 s"
    )
    never = _step(bound_s=(2.0, None))
    assert stop_reason(rules, never, _step()) == "PVC bound p95 a PVC never bound, above 10 s"


def test_throughput_per_consumer_against_the_first_step():
    rules = StopWhen(per_consumer_below_pct=50)
    first = _step(consumers=1, throughput=1000.0)
    assert stop_reason(rules, _step(consumers=4, throughput=2400.0), first) is None  # 60 %
    assert stop_reason(rules, _step(consumers=8, throughput=3200.0), first) == (
        "400 per consumer, 40 % of the first step's 1000 (below 50 %)"
    )
    assert stop_reason(rules, _step(throughput=None), first) is None  # no figure: no verdict


def test_the_first_rule_that_holds_is_the_reason():
    rules = StopWhen(no_space=True, failures_above_pct=10)
    step = _captured("local-enospc.json")
    assert stop_reason(rules, step, _step()).startswith("no space: ")
