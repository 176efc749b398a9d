"""Relative deltas of one campaign against a baseline, metric by metric.

Steps are matched by position of their workload in the campaign, number of consumers,
thread count (database steps) and repeat, so a campaign can be compared with another of
the same sweep (iodepth 1 against 64, SSD against the reference, this month against last
month, StorageClass A against B). What differs in the matched steps' methods is listed;
a difference that changes what the figures mean (harness.records.method) makes every
verdict of the step "not comparable" unless the user accepts it. A figure one side lacks
is "–", never "same"; "same" is a change within the tolerance (±2 %), or within the
run-to-run spread of repeats when that is larger. Steps only one campaign has are listed.
fio figures over the common window (the time every consumer ran) are compared beside
the whole-run ones when both steps have them.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from harness.core import figures as catalogue
from harness.core.figures import DB, EVENTS, FIO, RALLY, TIMES
from harness.core.workloads.registry import tool as by_tag
from harness.records import stats
from harness.records.method import CampaignMethod, Difference, differences, step_method
from harness.records.thresholds import TOLERANCE
from harness.tools.apps.parse import PHASES

# metric, label, True when higher is better (harness/core/figures.py)
METRICS = catalogue.metrics(FIO, *FIO)
# over the common window (harness.records.window), compared when both steps have one
# (p95 and p99 merged only where fio wrote histogram logs)
WINDOW_METRICS = [m for m in METRICS if m[0] != "p95_consumer_mean"]
WINDOW = "common window"
DB_METRICS = catalogue.metrics(
    DB,
    "load_time_s_max",
    "reads_per_s_total",  # sysbench fileio
    "writes_per_s_total",
    "fsyncs_per_s_total",
    "read_mib_s_total",
    "written_mib_s_total",
    "tps_total",
    "tps_per_consumer",
    "latency_avg_ms",
    "latency_p95_ms_highest",
)
TIME_METRICS = catalogue.metrics(TIMES, *TIMES)
EVENT_METRICS = catalogue.metrics(EVENTS, *EVENTS)
RALLY_METRICS = catalogue.metrics(RALLY, *RALLY)
Metrics = list[tuple[str, str, bool]]


def app_metrics(tool: str) -> Metrics:
    """An application workload's figures: each phase's mean time, a whole iteration's,
    and the iterations that failed (slower, more: worse); redis go-ycsb's and the
    broker nats bench's throughput first (higher: better) and their latencies."""
    return [
        *by_tag(tool).compared,
        ("iteration_s", "iteration s (mean)", False),
        ("iteration_s_max", "iteration s (slowest)", False),
        *((f"{phase}_s", f"{phase} s", False) for phase in PHASES[tool]),
        ("failed", "failed iterations", False),
    ]


# The figures the storage studies quote for a step, by tool (sysbench fileio by test), as
# (section, metric): seed 002's table of storage types (random reads and writes per
# second, sequential read and write throughput, pgbench's load time, TPS and latency)
HEADLINES: dict[str, list[tuple[str, str]]] = {
    "sysbench-fileio rndrd": [("db", "reads_per_s_total")],
    "sysbench-fileio rndwr": [("db", "writes_per_s_total")],
    "sysbench-fileio rndrw": [("db", "reads_per_s_total"), ("db", "writes_per_s_total")],
    "sysbench-fileio seqrd": [("db", "read_mib_s_total")],
    "sysbench-fileio seqwr": [("db", "written_mib_s_total")],
    "pgbench": [("db", "load_time_s_max"), ("db", "tps_total"), ("db", "latency_avg_ms")],
    "sysbench-oltp": [("db", "tps_total"), ("db", "latency_avg_ms")],
    "fio": [
        ("read", "iops_sum"),
        ("write", "iops_sum"),
        ("read", "clat_mean_avg"),
        ("write", "clat_mean_avg"),
    ],
}


def headlines(method: dict[str, Any]) -> list[tuple[str, str]]:
    """The (section, metric) figures the studies quote for a step measured so."""
    tool = str(method.get("tool", "fio"))
    return HEADLINES.get(f"{tool} {method.get('test')}", HEADLINES.get(tool, []))


VERDICTS = ("better", "worse", "same", "–", "not comparable")


@dataclass(frozen=True)
class Delta:
    step: str  # the baseline's step
    concurrency: int
    direction: str
    metric: str
    label: str
    baseline: float | None
    other: float | None
    delta: float | None  # (other - baseline) / baseline
    better: bool | None  # None unless the verdict is "better" or "worse"
    verdict: str  # one of VERDICTS
    note: str = ""  # why "–", or the tolerance a "same" is within
    threads: int | None = None  # database steps: client threads of each consumer
    workload: str = ""  # the baseline step's
    headline: bool = False  # a figure the studies quote for such a step (HEADLINES)


@dataclass(frozen=True)
class StepMatch:
    """A baseline step and the other campaign's step it is set against."""

    baseline_step: str
    other_step: str
    concurrency: int
    threads: int | None
    repeat: int
    differences: list[Difference]

    @property
    def changes_meaning(self) -> bool:
        return any(d.changes_meaning for d in self.differences)


@dataclass(frozen=True)
class Unmatched:
    """A step only one of the campaigns has."""

    campaign: str  # "baseline" or "other"
    step: str
    workload: str
    concurrency: int
    threads: int | None
    repeat: int


@dataclass(frozen=True)
class ComparedCampaign:
    name: str
    steps: list[dict[str, Any]]
    method: CampaignMethod


@dataclass(frozen=True)
class Comparison:
    baseline: str
    other: str
    matches: list[StepMatch]
    deltas: list[Delta]
    unmatched: list[Unmatched]
    tolerance: float
    accept_differences: bool

    @property
    def not_comparable(self) -> bool:
        """Some matched steps were measured in ways that change what the figures mean,
        and the user did not accept it."""
        return not self.accept_differences and any(m.changes_meaning for m in self.matches)

    def to_dict(self) -> dict[str, Any]:
        return {
            "baseline": self.baseline,
            "other": self.other,
            "tolerance": self.tolerance,
            "accept_differences": self.accept_differences,
            "not_comparable": self.not_comparable,
            "matches": [{**asdict(m), "changes_meaning": m.changes_meaning} for m in self.matches],
            "deltas": [asdict(d) for d in self.deltas],
            "unmatched": [asdict(u) for u in self.unmatched],
        }


def _sections(step: dict[str, Any]) -> list[tuple[str, dict[str, Any], Metrics]]:
    """What a step measured, by section: fio's read and write, a database step's figures,
    an application step's phase times, PVC provisioning times, timed events (io-pause …), Rally's
    actions (rally.csv's median, 95%ile and success of each top-level action and the
    total, by scenario and concurrency)."""
    found = [(d, step[d], METRICS) for d in ("read", "write") if step.get(d)]
    window = step.get("window") or {}
    found += [
        (f"{d}, {WINDOW}", window[d], WINDOW_METRICS) for d in ("read", "write") if window.get(d)
    ]
    if step.get("db"):
        found.append(("db", step["db"], DB_METRICS))
    if step.get("app"):
        found.append((step["app"]["tool"], step["app"], app_metrics(step["app"]["tool"])))
    for kind, figures in sorted((step.get("provision") or {}).items()):
        if isinstance(figures, dict):
            found.append((kind, figures, TIME_METRICS))
    for kind, figures in sorted((step.get("events") or {}).items()):
        found.append((kind, figures, EVENT_METRICS))
    for workload in (step.get("rally") or {}).get("workloads") or []:
        for action, figures in (workload.get("actions") or {}).items():
            where = f"{workload['scenario']} at {workload['concurrency']}"
            found.append((f"{where}: {action}", figures, RALLY_METRICS))
    return found


Key = tuple[int, int, int, int]  # workload position, consumers, threads, repeat


def _key_map(steps: list[dict[str, Any]]) -> dict[Key, dict[str, Any]]:
    order: list[str] = []
    keyed = {}
    for s in steps:
        if s.get("workload") not in order:
            order.append(s.get("workload"))
        key = (
            order.index(s.get("workload")),
            int(s.get("concurrency") or 0),
            int(s.get("threads") or 0),
            int(s.get("repeat") or 1),
        )
        keyed[key] = s
    return keyed


def _spreads(keyed: dict[Key, dict[str, Any]]) -> dict[tuple[Key, str, str], float]:
    """Run-to-run spread of every figure over the repeats of a step, keyed by the step's
    key without its repeat (repeat 0), section and metric."""
    values: dict[tuple[Key, str, str], list[float]] = {}
    for (w, n, t, _), step in keyed.items():
        for section, figures, metrics in _sections(step):
            for metric, _label, _higher in metrics:
                if isinstance(figures.get(metric), int | float):
                    values.setdefault(((w, n, t, 0), section, metric), []).append(figures[metric])
    found = {}
    for key, figures in values.items():
        spread = stats.relative_spread(figures)
        if spread is not None:
            found[key] = spread
    return found


def judge(delta: float | None, higher_is_better: bool) -> bool | None:
    if delta is None or delta == 0:
        return None
    return (delta > 0) == higher_is_better


def verdict(
    va: float | None,
    vb: float | None,
    higher_is_better: bool,
    tolerance: float,
    spread: float | None = None,
    comparable: bool = True,
    ceiling: str = "",
) -> tuple[float | None, str, str]:
    """(delta, verdict, note) of one figure: "–" when either side lacks it or it is at a
    measurement ceiling, "not comparable" when the methods differ in meaning, "same"
    within the tolerance (or the run-to-run spread, when larger), else better or worse."""
    delta = stats.relative_delta(va, vb) if va is not None and vb is not None else None
    if ceiling:
        return None, "–", ceiling
    if va is None or vb is None:
        return None, "–", "not in the baseline" if va is None else "not in the other"
    if delta is None:
        return None, "–", "baseline is zero"
    if not comparable:
        return delta, "not comparable", ""
    if abs(delta) <= max(tolerance, spread or 0):
        if spread is not None and spread > tolerance:
            return delta, "same", f"within ±{spread * 100:.0f} %, the run-to-run spread"
        return delta, "same", f"within ±{tolerance * 100:g} %"
    return delta, "better" if judge(delta, higher_is_better) else "worse", ""


def _measured_memory(mine: dict[str, Any], match: dict[str, Any]) -> str:
    """Which side's database step measured memory, not storage, in words ('' if none)."""
    flags = [bool((s.get("db") or {}).get("memory_not_storage")) for s in (mine, match)]
    sides = {(True, True): "both", (True, False): "the baseline", (False, True): "the other"}
    side = sides.get((flags[0], flags[1]))
    return f"{side} measured memory, not storage" if side else ""


def _step_deltas(
    mine: dict[str, Any],
    match: dict[str, Any],
    key: Key,
    tolerance: float,
    spreads: dict[tuple[Key, str, str], float],
    comparable: bool,
    quoted: list[tuple[str, str]],
) -> list[Delta]:
    memory = _measured_memory(mine, match)
    ours = {name: (figures, metrics) for name, figures, metrics in _sections(mine)}
    theirs = {name: (figures, metrics) for name, figures, metrics in _sections(match)}
    for name in [n for n in {*ours, *theirs} if n.endswith(WINDOW)]:
        if name not in ours or name not in theirs:  # whole-run figures are compared instead
            ours.pop(name, None)
            theirs.pop(name, None)
    deltas = []
    for direction in [*ours, *(s for s in theirs if s not in ours)]:
        metrics = (ours.get(direction) or theirs[direction])[1]
        a, b = ours.get(direction, ({},))[0], theirs.get(direction, ({},))[0]
        for metric, label, higher in metrics:
            va, vb = a.get(metric), b.get(metric)
            ceiling = ""
            if metric in a.get("ceilings", {}) or metric in b.get("ceilings", {}):
                ceiling = "at a measurement ceiling: no delta"
            if va is None and vb is None and not ceiling:
                continue
            spread = spreads.get(((key[0], key[1], key[2], 0), direction, metric))
            delta, judged, note = verdict(va, vb, higher, tolerance, spread, comparable, ceiling)
            if direction == "db" and memory:
                note = "; ".join(filter(None, [note, memory]))
            deltas.append(
                Delta(
                    mine["step"],
                    key[1],
                    direction,
                    metric,
                    label,
                    va,
                    vb,
                    delta,
                    {"better": True, "worse": False}.get(judged),
                    judged,
                    note,
                    key[2] or None,
                    str(mine.get("workload") or ""),
                    (direction, metric) in quoted,
                )
            )
    return deltas


def _unmatched(side: str, key: Key, step: dict[str, Any]) -> Unmatched:
    return Unmatched(side, step["step"], str(step.get("workload")), key[1], key[2] or None, key[3])


def compare_campaigns(
    baseline: ComparedCampaign,
    other: ComparedCampaign,
    accept_differences: bool = False,
    tolerance: float = TOLERANCE,
) -> Comparison:
    """Every step of ``other`` against the baseline's step of the same workload position,
    consumers, threads and repeat: what differs in their methods, and each figure's
    change with its verdict."""
    ours, theirs = _key_map(baseline.steps), _key_map(other.steps)
    spreads = _spreads(ours)
    for key, spread in _spreads(theirs).items():
        spreads[key] = max(spread, spreads.get(key, 0.0))
    matches, deltas = [], []
    for key, mine in ours.items():
        match = theirs.get(key)
        if match is None:
            continue
        method = step_method(mine, baseline.method)
        found = differences(method, step_method(match, other.method))
        step_match = StepMatch(mine["step"], match["step"], key[1], key[2] or None, key[3], found)
        matches.append(step_match)
        comparable = accept_differences or not step_match.changes_meaning
        quoted = headlines(method)
        deltas += _step_deltas(mine, match, key, tolerance, spreads, comparable, quoted)
    unmatched = [_unmatched("baseline", k, s) for k, s in ours.items() if k not in theirs]
    unmatched += [_unmatched("other", k, s) for k, s in theirs.items() if k not in ours]
    return Comparison(
        baseline.name, other.name, matches, deltas, unmatched, tolerance, accept_differences
    )


def percent(delta: float | None) -> str:
    if delta is None:
        return "–"
    return f"{delta * 100:+.0f} %".replace("-", "−")
