"""A capacity search: how many consumers, each asked for the same rate, the storage holds
within an objective (sweep.search: p99, optionally p50, and the share of the asked rate
every consumer must achieve). Each step is judged on latency and achieved rate together
(``judge``); the next count is chosen from the steps judged so far (``next_count``): it
grows by the sweep's factor while every step met the objective, then is bisected between
the last count that met it and the first that did not, the count the failed step's
achieved rate could hold tried first when it lies between them, until the two are within
``within_pct`` of each other (or 1 consumer); ``answer`` states what was found."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from harness.core.spec import CapacitySearch
from harness.records.rounding import beside


@dataclass(frozen=True)
class Trial:
    """One step of the search, judged."""

    step: str
    count: int
    met: bool
    why: str  # what missed the objective ('' when it was met)
    p99_ms: float | None
    p50_ms: float | None
    worst_achieved_pct: float | None  # the consumer furthest from its asked rate
    achieved_iops: float  # all consumers together
    most_behind_s: float | None  # the furthest any consumer fell behind its schedule


def judge(
    search: CapacitySearch,
    step: str,
    count: int,
    p99_ms: float | None,
    p50_ms: float | None,
    worst_achieved_pct: float | None,
    achieved_iops: float,
    most_behind_s: float | None = None,
    failed: str = "",
) -> Trial:
    """A step against the objective: latency and achieved rate together. A step that
    failed, or whose figures are missing, does not meet it."""
    missed = [failed] if failed else []
    if p99_ms is None:
        missed.append("no p99 latency measured")
    elif p99_ms > search.p99_ms:
        missed.append(f"p99 {beside(p99_ms, search.p99_ms, 2)} ms > {search.p99_ms:g} ms")
    if search.p50_ms is not None:
        if p50_ms is None:
            missed.append("no p50 latency measured")
        elif p50_ms > search.p50_ms:
            missed.append(f"p50 {beside(p50_ms, search.p50_ms, 2)} ms > {search.p50_ms:g} ms")
    if worst_achieved_pct is None:
        missed.append("no achieved rate measured")
    elif worst_achieved_pct < search.achieved_pct:
        missed.append(
            "a consumer achieved "
            f"{beside(worst_achieved_pct, search.achieved_pct)} % of its asked rate "
            f"< {search.achieved_pct:g} %"
        )
    return Trial(
        step=step,
        count=count,
        met=not missed,
        why="; ".join(missed),
        p99_ms=p99_ms,
        p50_ms=p50_ms,
        worst_achieved_pct=worst_achieved_pct,
        achieved_iops=achieved_iops,
        most_behind_s=most_behind_s,
    )


def bounds(trials: Sequence[Trial]) -> tuple[int, int | None]:
    """The most consumers that met the objective (0: none did) and the fewest that did
    not (None: every count tried met it)."""
    good = max((t.count for t in trials if t.met), default=0)
    bad = min((t.count for t in trials if not t.met), default=None)
    return good, bad


def close_enough(good: int, bad: int, within_pct: float) -> bool:
    """The last good and first bad counts are within the search's resolution."""
    return bad - good <= max(1, math.floor(good * within_pct / 100))


def held_by(trial: Trial, rate_iops: float, achieved_pct: float) -> int:
    """How many consumers, asked for rate_iops each, the failed step's achieved rate could
    serve at the objective's share."""
    return math.floor(trial.achieved_iops / (rate_iops * achieved_pct / 100))


def next_count(
    search: CapacitySearch,
    start: int,
    factor: float,
    most: int,
    rate_iops: float,
    trials: Sequence[Trial],
) -> int | None:
    """The next consumer count to try, or None when the search is over."""
    if not trials:
        return start
    good, bad = bounds(trials)
    if bad is None:  # every count met it: grow, up to the max
        last = max(t.count for t in trials)
        return None if last >= most else min(most, max(last + 1, round(last * factor)))
    if close_enough(good, bad, search.within_pct):
        return None
    first_bad = next(t for t in trials if t.count == bad)
    held = held_by(first_bad, rate_iops, search.achieved_pct)
    return held if good < held < bad else (good + bad) // 2


FALSE_MISS_WARNED = 0.01  # a search warns when chance alone fails a step this often


def chance_of_false_miss(
    rate_iops: float, seconds: float, achieved_pct: float, consumers: int
) -> float:
    """The chance that, on storage that holds every consumer's rate, at least one of
    ``consumers`` still achieves less than ``achieved_pct`` % of it, by its arrivals alone:
    over ``seconds``, a consumer whose I/Os arrive as a Poisson process of rate_iops
    (fio's rate_process=poisson) gets a Poisson count of them, of mean rate × seconds."""
    from scipy import stats  # imported here: it takes a while, and most runs never search

    expected = rate_iops * seconds
    fewest = math.ceil(expected * achieved_pct / 100 - 1e-9)  # the fewest that meet it
    one = float(stats.poisson.cdf(fewest - 1, expected))
    return 1.0 if one >= 1 else -math.expm1(consumers * math.log1p(-one))


def runtime_for(
    rate_iops: float, achieved_pct: float, consumers: int, chance: float = FALSE_MISS_WARNED
) -> int:
    """The shortest runtime (s) at which that chance is below ``chance``."""
    low, high = 0, 1
    while chance_of_false_miss(rate_iops, high, achieved_pct, consumers) >= chance:
        low, high = high, high * 2
    while high - low > 1:
        middle = (low + high) // 2
        if chance_of_false_miss(rate_iops, middle, achieved_pct, consumers) >= chance:
            low = middle
        else:
            high = middle
    return high


def arrivals_warning(
    search: CapacitySearch, rate_iops: float, seconds: float | None, process: str, most: int
) -> str | None:
    """A warning when Poisson arrivals alone would make a step the storage holds miss the
    achieved share too often to judge it, at the search's most consumers."""
    if process != "poisson" or seconds is None:
        return None  # linear arrivals are fio's schedule exactly; size mode has no runtime
    chance = chance_of_false_miss(rate_iops, seconds, search.achieved_pct, most)
    if chance < FALSE_MISS_WARNED:
        return None
    return (
        f"{rate_iops:g} IOPS for {seconds:g} s is {rate_iops * seconds:.0f} I/Os a consumer: "
        f"by their Poisson arrivals alone, one of {most} consumers achieves less than "
        f"{search.achieved_pct:g} % of its rate in {chance * 100:.3g} % of steps the storage "
        f"holds; a runtime of {runtime_for(rate_iops, search.achieved_pct, most)} s, or a lower "
        "achieved_pct, makes that under 1 %"
    )


@dataclass(frozen=True)
class Capacity:
    """What the search found."""

    workload: str
    rate_iops: float  # asked of each consumer
    objective: str  # in words
    search: dict[str, Any]  # the objective and resolution, as the spec gave them
    consumers: int  # the most that met the objective (0: none did)
    first_failing: int | None  # the fewest that did not (None: the max met it)
    most: int  # the search's max
    done: bool  # the search ended (not interrupted, nor any count left to try)
    trials: list[Trial]
    warnings: list[str] = field(default_factory=list)  # what limits how far it can be trusted

    def sentence(self) -> str:
        found = f"{self.consumers} consumers × {self.rate_iops:g} IOPS at {self.objective}"
        if self.first_failing is None:
            return f"{found}: every count up to the max ({self.most}) met it"
        if self.consumers == 0:
            asked = f"{self.first_failing} consumer(s) × {self.rate_iops:g} IOPS"
            return f"not even {asked} met {self.objective}"
        failing = next(t for t in self.trials if t.count == self.first_failing)
        return f"{found}; {self.first_failing} did not ({failing.why})"

    def to_json(self) -> dict[str, Any]:
        document = asdict(self)
        document["answer"] = self.sentence()
        return document


def objective_words(search: CapacitySearch) -> str:
    words = [f"p99 ≤ {search.p99_ms:g} ms"]
    if search.p50_ms is not None:
        words.append(f"p50 ≤ {search.p50_ms:g} ms")
    words.append(f"≥ {search.achieved_pct:g} % of the rate achieved")
    return ", ".join(words)


def answer(
    search: CapacitySearch,
    workload: str,
    rate_iops: float,
    most: int,
    trials: Sequence[Trial],
    done: bool,
    warnings: Sequence[str] = (),
) -> Capacity:
    good, bad = bounds(trials)
    return Capacity(
        workload=workload,
        rate_iops=rate_iops,
        objective=objective_words(search),
        search=search.model_dump(),
        consumers=good,
        first_failing=bad,
        most=most,
        done=done,
        trials=list(trials),
        warnings=list(warnings),
    )


@dataclass(frozen=True)
class CapacityChange:
    """One workload's capacity in two campaigns, and what can be said of the change."""

    workload: str
    baseline: str  # its answer in words
    other: str
    verdict: str  # better, worse, same within resolution, not comparable, not over
    why: str


def _interval(found: dict[str, Any]) -> tuple[int, float]:
    """The search's answer as [most that met it, fewest that did not): the true capacity
    lies in there, as far as the search's resolution tells."""
    failing = found.get("first_failing")
    return int(found["consumers"]), float("inf") if failing is None else float(failing)


def compare_capacities(
    baseline: Sequence[dict[str, Any]], other: Sequence[dict[str, Any]]
) -> list[CapacityChange]:
    """Each workload both campaigns searched: "better" or "worse" only when the two
    answers' intervals do not overlap (the other's most that met the objective at or past
    the baseline's fewest that did not, or the reverse), else the same within the
    searches' resolution; a different rate or objective is not comparable."""
    theirs = {f["workload"]: f for f in other}
    changes = []
    for mine in baseline:
        found = theirs.get(mine["workload"])
        if found is None:
            continue
        words = (mine["answer"], found["answer"])
        asked = (mine["rate_iops"], mine["objective"])
        if asked != (found["rate_iops"], found["objective"]):
            why = (
                f"asked differently: {mine['rate_iops']:g} IOPS at {mine['objective']} against "
                f"{found['rate_iops']:g} IOPS at {found['objective']}"
            )
            changes.append(CapacityChange(mine["workload"], *words, "not comparable", why))
            continue
        if not (mine["done"] and found["done"]):
            why = "a search is not over: run it again to finish it"
            changes.append(CapacityChange(mine["workload"], *words, "not over", why))
            continue
        (low, high), (other_low, other_high) = _interval(mine), _interval(found)
        if other_low >= high:
            verdict, why = "better", f"{other_low} met it where {high:g} did not"
        elif other_high <= low:
            verdict, why = "worse", f"{other_high:g} did not meet it where {low} did"
        else:
            verdict = "same within resolution"
            why = "each search's last count that met it and first that did not overlap"
        changes.append(CapacityChange(mine["workload"], *words, verdict, why))
    return changes
