"""When an open-ended sweep ends: a step's figures held against the spec's stop rules
(spec.StopWhen), as small pure functions. The campaign runner asks after every step; the
first rule that holds ends the workload's sweep, and its reason is kept with the step."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from harness.core.spec import StopWhen
from harness.core.workloads.registry import BY_TAG
from harness.records.db import DbRecord, EventRecord
from harness.records.fio import FioConsumerRecord
from harness.records.rounding import beside
from harness.records.stats import sample_percentile

# what storage says when it has no room, lower case: the kernel (ENOSPC), the scheduler
# when no PV is left for a claim, CSI drivers and provisioners, quotas (Kubernetes, Cinder)
NO_SPACE_SIGNS = (
    "no space left on device",
    "didn't find available persistent volumes",
    "no persistent volumes available",
    "insufficient capacity",
    "insufficient storage",
    "not enough space",
    "out of space",
    "exceeded quota",
    "quota exceeded",
    "resourceexhausted",
    "volumesizeexceedsavailablequota",
)
PROBLEM_CHARS = 300  # of the problem quoted in a reason


@dataclass(frozen=True)
class StepFigures:
    """What the stop rules read of one step."""

    consumers: int  # what failures count over: fio jobs, database clients, PVCs
    failed: int
    bound_s: tuple[float | None, ...]  # each PVC's seconds to Bound; None: never bound
    throughput: float | None  # IOPS of fio, TPS of databases, applications' iterations a second
    problems: tuple[str, ...]  # the step's error and each failure's reason

    @property
    def per_consumer(self) -> float | None:
        if self.throughput is None or not self.consumers:
            return None
        return self.throughput / self.consumers


def _fio_throughput(summary: Mapping[str, Any]) -> float | None:
    sums = [(summary.get(d) or {}).get("iops_sum") for d in ("read", "write")]
    known = [s for s in sums if s is not None]
    return sum(known) if known else None


def step_figures(
    summary: Mapping[str, Any],
    fio_records: Sequence[FioConsumerRecord],
    db_records: Sequence[DbRecord],
    events: Iterable[EventRecord],
) -> StepFigures:
    """A step's figures for the rules, from its summary and records (campaign/results)."""
    events = list(events)
    runs = [r for r in db_records if r.phase == "run"]
    bound = [e for e in events if e.event.endswith("pvc-bound")]
    error = str(summary.get("error") or "")
    problems = [error] if error else []
    throughput: float | None = None
    if fio_records:
        consumers, failed = len(fio_records), sum(1 for r in fio_records if r.error)
        problems += [r.error for r in fio_records if r.error]
        throughput = _fio_throughput(summary)
    elif runs:
        consumers, failed = len(runs), sum(1 for r in runs if r.error)
        problems += [r.error for r in runs if r.error]
        tps = [r.tps for r in runs if r.tps is not None]
        throughput = sum(tps) if tps else None
    elif app := summary.get("app"):  # consumers whose iterations all ran; iterations a second
        consumers, failed = int(summary.get("concurrency") or 0), int(app["failed_consumers"])
        seconds = app.get("iteration_s")
        throughput = consumers / seconds if seconds else None
        declared = BY_TAG.get(str(app.get("tool")))
        if declared and declared.throughput:  # its client's operations a second, summed
            throughput = app.get(declared.throughput)
    elif bound:  # pvc-provision: its PVCs (bound, and their pods ready) succeed or fail
        unresolved = {(e.consumer, e.index) for e in events if e.seconds is None}
        consumers, failed = len(bound), sum(1 for e in bound if (e.consumer, e.index) in unresolved)
    else:
        consumers = int(summary.get("concurrency") or 0)
        failed = consumers if summary.get("state") == "failed" else 0
    problems += [e.detail for e in events if e.seconds is None and e.detail]
    once = tuple(dict.fromkeys(problems))  # a PVC's and its pod's reason are one
    return StepFigures(consumers, failed, tuple(e.seconds for e in bound), throughput, once)


def _says_no_space(text: str) -> bool:
    return _sign_span(text) is not None


def no_space(problems: Iterable[str]) -> str | None:
    """The first problem that says storage ran out of room, or None."""
    return next((problem for problem in problems if _says_no_space(problem)), None)


def space_quote(problem: str) -> str:
    """What a reason quotes of a no-space problem: its first clause and, when that is not
    the one, the clause that says so ('; ' apart), at most PROBLEM_CHARS characters, in
    which the words that say so are always kept."""
    clauses = " ".join(problem.split()).split("; ")
    saying = next((c for c in clauses if _says_no_space(c)), clauses[0])
    text = clauses[0] if saying == clauses[0] else f"{clauses[0]}; …; {saying}"
    return _cut_keeping(text, PROBLEM_CHARS, _sign_span(text))


def _sign_span(text: str) -> tuple[int, int] | None:
    """Where the first words that say storage ran out of room are in TEXT."""
    lower = text.lower()
    found = [(lower.find(sign), sign) for sign in NO_SPACE_SIGNS if sign in lower]
    if not found:
        return None
    start, sign = min(found)
    return start, start + len(sign)


def _cut_keeping(text: str, limit: int, keep: tuple[int, int] | None) -> str:
    """TEXT in at most LIMIT characters: its head, and when the span KEEP lies past it,
    the span with what leads up to it; '…' where text was left out."""
    if len(text) <= limit:
        return text
    if keep is None or keep[1] <= limit - 1:
        return text[: limit - 1] + "…"
    head = text[: limit // 3]
    room = limit - len(head) - 2  # the two '…' around the window
    start = max(len(head), keep[1] - room)
    window = text[start : start + room]
    return f"{head}…{window}" + ("…" if start + room < len(text) else "")


def bound_p95(bound_s: Sequence[float | None]) -> float | None:
    """p95 of the PVCs' bound times, a PVC never bound counting as slower than any (inf
    when the percentile falls on or past one)."""
    if not bound_s:
        return None
    ordered = sorted(math.inf if s is None else s for s in bound_s)
    rank = (len(ordered) - 1) * 95 / 100
    low = int(rank)
    if rank == low or math.isinf(ordered[low + 1]):
        return ordered[low] if rank == low else math.inf
    return sample_percentile(ordered, 95)


def failure_pct(step: StepFigures) -> float | None:
    return 100 * step.failed / step.consumers if step.consumers else None


def stop_reason(rules: StopWhen, step: StepFigures, first: StepFigures) -> str | None:
    """Why the sweep ends at this step (the first rule that holds, in the order no
    space, failures, PVC-bound p95, throughput per consumer against the sweep's first
    step), or None to go on."""
    if rules.no_space:
        problem = no_space(step.problems)
        if problem is not None:
            return f"no space: {space_quote(problem)}"
    failures = failure_pct(step)
    limit = rules.failures_above_pct
    if limit is not None and failures is not None and failures > limit:
        shown = beside(failures, limit, 0)
        return f"{step.failed} of {step.consumers} failed ({shown} %, above {limit:g} %)"
    p95 = bound_p95(step.bound_s)
    seconds = rules.bound_p95_above_s
    if seconds is not None and p95 is not None and p95 > seconds:
        shown = "a PVC never bound" if math.isinf(p95) else f"{beside(p95, seconds)} s"
        return f"PVC bound p95 {shown}, above {seconds:g} s"
    mine, theirs = step.per_consumer, first.per_consumer
    if rules.per_consumer_below_pct is not None and mine is not None and theirs:
        share = 100 * mine / theirs
        if share < rules.per_consumer_below_pct:
            return (
                f"{mine:.0f} per consumer, {beside(share, rules.per_consumer_below_pct, 0)} % "
                f"of the first step's {theirs:.0f} "
                f"(below {rules.per_consumer_below_pct:g} %)"
            )
    return None
