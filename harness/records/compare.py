"""Relative deltas of one campaign against a baseline, metric by metric.

Steps are matched by position of their workload in the campaign, number of consumers,
thread count (database steps) and repeat, so a campaign can be compared with another of
the same sweep (iodepth 1 against 64, SSD against the reference, this month against last
month, StorageClass A against B). What differs in the matched steps' methods is listed;
a difference that changes what the figures mean (harness.records.method) makes every
verdict of the step "not comparable" unless the user accepts it. Steps only one campaign
has are listed. fio figures over the common window (the time every consumer ran) are
compared beside the whole-run ones when both steps have them.

A figure is compared once per step, its repeats' mean against theirs, and judged against
the noise (harness.records.noise): with repeats on both sides, "better" or "worse" only
when Welch's 95 % interval of the change excludes zero and the change is beyond the
tolerance (±2 %), "same" when the interval lies within the tolerance, else "within
noise"; with fewer, "better" or "worse" only beyond a noise floor (the run-to-run spread
of the side with repeats, else the floor measured for that kind of figure on the target
type), else "within noise" or, without any repeats, "spread unknown". A figure one side
lacks is "–".
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from harness.core import figures as catalogue
from harness.core.figures import (
    BACKEND_PHASES,
    DB,
    EVENTS,
    FIO,
    ITERATIONS,
    RALLY,
    RALLY_PHASES,
    RECOVERY,
    TIMES,
    Figure,
)
from harness.core.workloads.registry import tool as by_tag
from harness.records import noise, stats
from harness.records.capacity import CapacityChange, compare_capacities
from harness.records.method import CampaignMethod, Difference, differences, step_method
from harness.records.thresholds import TOLERANCE
from harness.tools.apps.parse import PHASES

# the figures compared, by section (harness/core/figures.py)
METRICS = catalogue.pick(FIO, *FIO)
# over the common window (harness.records.window), compared when both steps have one
# (p95 and p99 merged only where fio wrote histogram logs)
WINDOW_METRICS = [m for m in METRICS if m.name != "p95_consumer_mean"]
WINDOW = "common window"
DB_METRICS = catalogue.pick(
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
TIME_METRICS = catalogue.pick(TIMES, *TIMES)
EVENT_METRICS = catalogue.pick(EVENTS, *EVENTS)
RALLY_METRICS = catalogue.pick(RALLY, *RALLY)
PHASE_METRICS = catalogue.pick(BACKEND_PHASES, *BACKEND_PHASES)
RALLY_PHASE_METRICS = catalogue.pick(RALLY_PHASES, *RALLY_PHASES)
RECOVERY_METRICS = catalogue.pick(RECOVERY, *RECOVERY)
Metrics = list[Figure]


def app_metrics(tool: str) -> Metrics:
    """An application workload's figures: each phase's mean time, a whole iteration's,
    and the iterations that failed (slower, more: worse); redis go-ycsb's and the
    broker nats bench's throughput first (higher: better) and their latencies."""
    return [
        *by_tag(tool).compared,
        *catalogue.pick(ITERATIONS, "iteration_s", "iteration_s_max"),
        *(Figure(f"{phase}_s", f"{phase} s", "s", False) for phase in PHASES[tool]),
        ITERATIONS["failed"],
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


VERDICTS = ("better", "worse", "same", "within noise", "spread unknown", "–", "not comparable")


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
    note: str = ""  # why "–", or what the verdict was judged against
    threads: int | None = None  # database steps: client threads of each consumer
    workload: str = ""  # the baseline step's
    headline: bool = False  # a figure the studies quote for such a step (HEADLINES)
    runs: tuple[int, int] = (1, 1)  # repeats averaged on each side
    low: float | None = None  # the 95 % interval of the change, with repeats on both sides
    high: float | None = None
    floor: float | None = None  # else the noise floor it was judged against

    @property
    def smallest(self) -> float | None:
        """The smallest change this comparison could show of the figure."""
        if self.low is not None and self.high is not None:
            return (self.high - self.low) / 2
        return self.floor


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
    capacity: list[dict[str, Any]] = field(default_factory=list)  # a search's answers


@dataclass(frozen=True)
class Comparison:
    baseline: str
    other: str
    matches: list[StepMatch]
    deltas: list[Delta]
    unmatched: list[Unmatched]
    tolerance: float
    accept_differences: bool
    capacities: list[CapacityChange] = field(default_factory=list)

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
            "capacities": [asdict(c) for c in self.capacities],
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
        where = f"{workload['scenario']} at {workload['concurrency']}"
        for action, figures in (workload.get("actions") or {}).items():
            found.append((f"{where}: {action}", figures, RALLY_METRICS))
        found += _rally_phase_sections(workload.get("phases") or {}, where)
    found += _phase_sections(step)
    return found


def _phase_sections(step: dict[str, Any]) -> list[tuple[str, dict[str, Any], Metrics]]:
    """A faulted step's phases, all consumers summed, each by its state (the first of a
    state where it came twice), and how it healed: how long from the fault, and (Ceph)
    how long and how fast the cluster recovered."""
    phases = step.get("phases") or {}
    found: dict[str, dict[str, Any]] = {}
    for phase in phases.get("sum") or []:
        found.setdefault(f"phase {phase['state']}", phase)
    sections = [(name, figures, PHASE_METRICS) for name, figures in found.items()]
    recovery = {
        "fault_to_healed_s": phases.get("fault_to_healed_s"),
        **{k: v for k, v in (step.get("ceph_recovery") or {}).items() if k != "bytes"},
    }
    if any(v is not None for v in recovery.values()):
        sections.append(("recovery", recovery, RECOVERY_METRICS))
    return sections


def _rally_phase_sections(
    phased: dict[str, Any], where: str
) -> list[tuple[str, dict[str, Any], Metrics]]:
    """A Rally workload given faults: its iterations in each phase, by its state (the
    first of a state where it came twice), and how long from the fault to healed."""
    found: dict[str, dict[str, Any]] = {}
    for phase in phased.get("phases") or []:
        found.setdefault(f"{where}: phase {phase['state']}", phase)
    sections = [(name, figures, RALLY_PHASE_METRICS) for name, figures in found.items()]
    if phased.get("fault_to_healed_s") is not None:
        healed = {"fault_to_healed_s": phased["fault_to_healed_s"]}
        sections.append((f"{where}: recovery", healed, RECOVERY_METRICS))
    return sections


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


def judge(delta: float | None, higher_is_better: bool) -> bool | None:
    if delta is None or delta == 0:
        return None
    return (delta > 0) == higher_is_better


@dataclass(frozen=True)
class Judged:
    """One figure's change from the baseline and what it may be called."""

    delta: float | None
    verdict: str
    note: str = ""
    interval: noise.Interval | None = None
    floor: float | None = None


def _judge_interval(interval: noise.Interval, higher: bool, tolerance: float) -> Judged:
    delta = interval.delta
    within = f"within ±{tolerance * 100:g} %"
    shown = (
        f"{interval.confidence * 100:g} % interval {percent(interval.low)} to "
        f"{percent(interval.high)}, {interval.baseline_runs} and {interval.other_runs} runs"
    )
    if interval.excludes_zero and abs(delta) > tolerance:
        return Judged(delta, "better" if judge(delta, higher) else "worse", shown, interval)
    if -tolerance <= interval.low and interval.high <= tolerance:
        return Judged(delta, "same", f"{shown}: {within}", interval)
    return Judged(delta, "within noise", f"{shown}: more repeats narrow it", interval)


def verdict(
    baseline: Sequence[float],
    other: Sequence[float],
    figure: Figure,
    tolerance: float,
    comparable: bool = True,
    ceiling: str = "",
    targets: Sequence[str | None] = ("local",),
) -> Judged:
    """A figure's change from the mean of the baseline's runs to the other's, and its
    verdict: "–" when either side lacks it or it is at a measurement ceiling, "not
    comparable" when the methods differ in meaning; with two runs or more a side, judged
    on Welch's interval; else against a noise floor (of the ``targets``' types), as the
    module says."""
    va, vb = stats.mean(baseline), stats.mean(other)
    if ceiling:
        return Judged(None, "–", ceiling)
    if va is None or vb is None:
        return Judged(None, "–", "not in the baseline" if va is None else "not in the other")
    delta = stats.relative_delta(va, vb)
    if delta is None:
        return Judged(None, "–", "baseline is zero")
    if not comparable:
        return Judged(delta, "not comparable")
    interval = noise.welch_interval(baseline, other)
    if interval is not None:
        return _judge_interval(interval, figure.higher_is_better, tolerance)
    # one side's repeats measured its spread (repeats that did not differ at all say
    # little of the noise: the stated floor then)
    spreads = [x for x in (stats.relative_spread(baseline), stats.relative_spread(other)) if x]
    if spreads:
        floor, source = max(max(spreads), tolerance), "the run-to-run spread of repeats"
    else:
        kind = figure.noise_kind
        stated, where = noise.noise_floor(kind, targets)
        floor, source = max(stated, tolerance), f"the noise floor for {kind} {where}"
    beyond = f"±{floor * 100:.0f} %, {source}"
    if abs(delta) > floor:
        return Judged(
            delta,
            "better" if judge(delta, figure.higher_is_better) else "worse",
            f"beyond {beyond}",
            floor=floor,
        )
    if spreads:
        return Judged(delta, "within noise", f"within {beyond}", floor=floor)
    if figure.noise_kind == catalogue.COUNT:  # no noise to allow for
        return Judged(delta, "same", f"within ±{tolerance * 100:g} %", floor=floor)
    return Judged(delta, "spread unknown", f"within {beyond}: run with repeats", floor=floor)


def _measured_memory(mine: dict[str, Any], match: dict[str, Any]) -> str:
    """Which side's database step measured memory, not storage, in words ('' if none)."""
    flags = [bool((s.get("db") or {}).get("memory_not_storage")) for s in (mine, match)]
    sides = {(True, True): "both", (True, False): "the baseline", (False, True): "the other"}
    side = sides.get((flags[0], flags[1]))
    return f"{side} measured memory, not storage" if side else ""


Sections = dict[str, tuple[Metrics, list[dict[str, Any]]]]


def _by_section(steps: list[dict[str, Any]]) -> Sections:
    """What the repeats of a step measured, by section: its figures, its repeats' values."""
    found: Sections = {}
    for step in steps:
        for name, figures, metrics in _sections(step):
            found.setdefault(name, (metrics, []))[1].append(figures)
    return found


def _numbers(runs: list[dict[str, Any]], metric: str) -> list[float]:
    return [
        float(f[metric])
        for f in runs
        if isinstance(f.get(metric), int | float) and not isinstance(f.get(metric), bool)
    ]


def _step_deltas(
    mine: list[dict[str, Any]],
    match: list[dict[str, Any]],
    key: Key,
    tolerance: float,
    comparable: bool,
    quoted: list[tuple[str, str]],
    targets: Sequence[str | None],
) -> list[Delta]:
    """Every figure of a step, its repeats on each side (mine, match) taken together;
    ``targets``: the two campaigns' target types."""
    memory = _measured_memory(mine[0], match[0])
    ours, theirs = _by_section(mine), _by_section(match)
    for name in [n for n in {*ours, *theirs} if n.endswith(WINDOW)]:
        if name not in ours or name not in theirs:  # whole-run figures are compared instead
            ours.pop(name, None)
            theirs.pop(name, None)
    deltas = []
    for direction in [*ours, *(s for s in theirs if s not in ours)]:
        metrics = (ours.get(direction) or theirs[direction])[0]
        a, b = ours.get(direction, ([], []))[1], theirs.get(direction, ([], []))[1]
        for figure in metrics:
            va, vb = _numbers(a, figure.name), _numbers(b, figure.name)
            ceiling = ""
            if any(figure.name in f.get("ceilings", {}) for f in [*a, *b]):
                ceiling = "at a measurement ceiling: no delta"
            if not va and not vb and not ceiling:
                continue
            judged = verdict(va, vb, figure, tolerance, comparable, ceiling, targets)
            note = judged.note
            if direction == "db" and memory:
                note = "; ".join(filter(None, [note, memory]))
            interval = judged.interval
            deltas.append(
                Delta(
                    mine[0]["step"],
                    key[1],
                    direction,
                    figure.name,
                    figure.label,
                    stats.mean(va),
                    stats.mean(vb),
                    judged.delta,
                    {"better": True, "worse": False}.get(judged.verdict),
                    judged.verdict,
                    note,
                    key[2] or None,
                    str(mine[0].get("workload") or ""),
                    (direction, figure.name) in quoted,
                    (len(va), len(vb)),
                    interval.low if interval else None,
                    interval.high if interval else None,
                    judged.floor,
                )
            )
    return deltas


def _unmatched(side: str, key: Key, step: dict[str, Any]) -> Unmatched:
    return Unmatched(side, step["step"], str(step.get("workload")), key[1], key[2] or None, key[3])


def _repeats(keyed: dict[Key, dict[str, Any]]) -> dict[Key, list[dict[str, Any]]]:
    """The steps of each workload position, consumers and threads (repeat 0), in order."""
    found: dict[Key, list[dict[str, Any]]] = {}
    for (w, n, t, _), step in sorted(keyed.items()):
        found.setdefault((w, n, t, 0), []).append(step)
    return found


def compare_campaigns(
    baseline: ComparedCampaign,
    other: ComparedCampaign,
    accept_differences: bool = False,
    tolerance: float = TOLERANCE,
) -> Comparison:
    """Every step of ``other`` against the baseline's step of the same workload position,
    consumers, threads and repeat: what differs in their methods; then each figure's
    change, the repeats of a step on each side taken together, with its verdict."""
    ours, theirs = _key_map(baseline.steps), _key_map(other.steps)
    matches, comparable = [], {}
    for key, mine in ours.items():
        match = theirs.get(key)
        if match is None:
            continue
        method = step_method(mine, baseline.method)
        found = differences(method, step_method(match, other.method))
        step_match = StepMatch(mine["step"], match["step"], key[1], key[2] or None, key[3], found)
        matches.append(step_match)
        group = (key[0], key[1], key[2], 0)
        fits = accept_differences or not step_match.changes_meaning
        comparable[group] = comparable.get(group, True) and fits
    deltas = []
    targets = (baseline.method.target_type, other.method.target_type)
    mine_repeats, their_repeats = _repeats(ours), _repeats(theirs)
    for group, mine in mine_repeats.items():
        if group not in comparable:  # no repeat of it matched
            continue
        quoted = headlines(step_method(mine[0], baseline.method))
        deltas += _step_deltas(
            mine, their_repeats[group], group, tolerance, comparable[group], quoted, targets
        )
    unmatched = [_unmatched("baseline", k, s) for k, s in ours.items() if k not in theirs]
    unmatched += [_unmatched("other", k, s) for k, s in theirs.items() if k not in ours]
    return Comparison(
        baseline.name,
        other.name,
        matches,
        deltas,
        unmatched,
        tolerance,
        accept_differences,
        compare_capacities(baseline.capacity, other.capacity),
    )


def percent(delta: float | None) -> str:
    if delta is None:
        return "–"
    return f"{delta * 100:+.0f} %".replace("-", "−")
