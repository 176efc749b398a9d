"""A figure's history across campaigns: the chosen figures of every step (summed IOPS and
merged p95 of fio, TPS and p95 of databases, PVC bound and pod ready p95, Rally's median
and p95 per action) in the campaigns' time order, each with its change from the
previous campaign that has it, flagged when the change is beyond a threshold.

Steps are matched by workload name, number of consumers and thread count; repeats of a
step are averaged. Over five campaigns or more, each figure's changes of level are found
against its own noise (harness.records.change_points), with what differs in method
between the campaigns either side of each. Pure functions over summaries and Rally's
rows."""

from __future__ import annotations

import csv
import datetime
import io
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from harness.core import figures as catalogue
from harness.records import stats
from harness.records.change_points import ChangePoint, change_points
from harness.records.compare import judge
from harness.records.method import Difference, differences
from harness.records.thresholds import HISTORY_THRESHOLD

# section of a step summary -> (metric, label, True when higher is better)
FIO = catalogue.metrics(catalogue.FIO, "iops_sum", "p95_merged")
DB = catalogue.metrics(catalogue.DB, "tps_total", "latency_p95_ms_highest")
PROVISION = catalogue.metrics(catalogue.TIMES, "p95_s")
RALLY = catalogue.metrics(catalogue.RALLY, "median_s", "p95_s")


@dataclass(frozen=True)
class SeriesKey:
    workload: str
    consumers: int
    threads: int | None
    section: str  # read, write, db, pvc-bound, pod-ready, or a Rally scenario's action
    label: str
    higher_is_better: bool

    @property
    def title(self) -> str:
        who = f"{self.consumers}" + (f" × {self.threads} threads" if self.threads else "")
        return f"{self.workload}, {who}, {self.section}: {self.label}"


@dataclass(frozen=True)
class HistoryCampaign:
    name: str
    started: float | None  # when its first step started (epoch s)
    figures: dict[SeriesKey, float]
    methods: dict[str, dict[str, Any]] = field(default_factory=dict)  # by workload name


@dataclass(frozen=True)
class Point:
    campaign: str
    started: float | None
    value: float | None  # None: this campaign lacks the figure
    change: float | None  # from the previous campaign that has it
    flag: str  # "", "better" or "worse": a change beyond the threshold


@dataclass(frozen=True)
class LevelChange:
    """A change of a figure's level, from ``campaign`` on."""

    campaign: str  # the first campaign at the new level
    previous: str  # the campaign before it that has the figure
    point: ChangePoint
    flag: str  # "better" or "worse"
    differences: list[Difference]  # in the step's method, from previous to campaign
    method_known: bool  # both campaigns said how they measured the step


@dataclass(frozen=True)
class Series:
    key: SeriesKey
    points: list[Point]
    level_changes: list[LevelChange] = field(default_factory=list)

    @property
    def flagged(self) -> list[Point]:
        return [p for p in self.points if p.flag]


def step_figures(step: dict[str, Any]) -> list[tuple[str, str, bool, float]]:
    """(section, label, higher is better, value) of the figures one step summary has."""
    found: list[tuple[str, str, bool, float]] = []

    def add(section: str, figures: dict[str, Any] | None, metrics: list) -> None:
        for metric, label, higher in metrics:
            value = (figures or {}).get(metric)
            if isinstance(value, int | float) and not isinstance(value, bool):
                found.append((section, label, higher, float(value)))

    for direction in ("read", "write"):
        add(direction, step.get(direction), FIO)
    add("db", step.get("db"), DB)
    for kind, figures in sorted((step.get("provision") or {}).items()):
        if isinstance(figures, dict):
            add(kind, figures, PROVISION)
    return found


def rally_figures(rows: Iterable[dict[str, str]]) -> dict[tuple[str, int], list]:
    """Rally's median and p95 per action (rally.csv rows), by (step, concurrency)."""
    found: dict[tuple[str, int], list] = {}
    for row in rows:
        for metric, label, higher in RALLY:
            if row.get(metric) not in (None, ""):
                section = f"{row['scenario']} {row['action'].strip()}"
                entry = (section, label, higher, float(row[metric]))
                where = (row["step"], int(row.get("concurrency") or 0))
                found.setdefault(where, []).append(entry)
    return found


def campaign_figures(
    name: str,
    started: float | None,
    steps: Sequence[dict[str, Any]],
    rally_rows: Iterable[dict[str, str]] = (),
    methods: dict[str, dict[str, Any]] | None = None,
) -> HistoryCampaign:
    """One campaign's figures by series, the repeats of a step averaged; ``methods``: how
    it measured each workload (records.method.step_method)."""
    rally = rally_figures(rally_rows)
    values: dict[SeriesKey, list[float]] = {}
    for step in steps:
        if step.get("state") not in (None, "done"):
            continue
        consumers, threads = int(step.get("concurrency") or 0), step.get("threads") or None
        figures = step_figures(step)
        for (step_id, concurrency), entries in rally.items():
            if step_id == step.get("step"):
                figures += entries
                consumers = concurrency
        for section, label, higher, value in figures:
            key = SeriesKey(str(step.get("workload")), consumers, threads, section, label, higher)
            values.setdefault(key, []).append(value)
    figures = {k: sum(v) / len(v) for k, v in values.items()}
    return HistoryCampaign(name, started, figures, methods or {})


def history(
    campaigns: Sequence[HistoryCampaign], threshold: float = HISTORY_THRESHOLD
) -> list[Series]:
    """Every figure any campaign has, its points in the campaigns' time order (a campaign
    without a start time last, by name), each change flagged when beyond ``threshold``."""
    ordered = sorted(campaigns, key=lambda c: (c.started is None, c.started or 0, c.name))
    keys = list(dict.fromkeys(k for c in ordered for k in c.figures))
    found = []
    for key in keys:
        points, previous = [], None
        for campaign in ordered:
            value = campaign.figures.get(key)
            change = None
            if value is not None and previous:
                change = stats.relative_delta(previous, value)
            flag = ""
            if change is not None and abs(change) > threshold:
                flag = "better" if judge(change, key.higher_is_better) else "worse"
            points.append(Point(campaign.name, campaign.started, value, change, flag))
            previous = value if value is not None else previous
        found.append(Series(key, points, level_changes(key, points, ordered)))
    return found


def level_changes(
    key: SeriesKey, points: Sequence[Point], campaigns: Sequence[HistoryCampaign]
) -> list[LevelChange]:
    """The series' change points (over the campaigns that have the figure), each with
    what differs in the step's method between the campaigns either side of it."""
    valued = [(p.campaign, p.value) for p in points if p.value is not None]
    by_name = {c.name: c for c in campaigns}
    found = []
    for point in change_points([value for _, value in valued]):
        after, before = valued[point.index][0], valued[point.index - 1][0]
        was, now = (by_name[name].methods.get(key.workload) for name in (before, after))
        found.append(
            LevelChange(
                after,
                before,
                point,
                "better" if judge(point.change, key.higher_is_better) else "worse",
                differences(was, now) if was is not None and now is not None else [],
                was is not None and now is not None,
            )
        )
    return found


CSV_HEADER = [
    "campaign",
    "started",
    "workload",
    "consumers",
    "threads",
    "section",
    "figure",
    "value",
    "change",
    "flag",
    "level_change",
]


def history_csv(series: Sequence[Series]) -> str:
    """One row per figure per campaign, in the campaigns' time order."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_HEADER)
    for s in series:
        starts = {c.campaign: c.flag for c in s.level_changes}
        for p in s.points:
            started = (
                datetime.datetime.fromtimestamp(p.started, datetime.UTC).isoformat()
                if p.started is not None
                else ""
            )
            writer.writerow(
                [
                    p.campaign,
                    started,
                    s.key.workload,
                    s.key.consumers,
                    s.key.threads or "",
                    s.key.section,
                    s.key.label,
                    "" if p.value is None else f"{p.value:.6g}",
                    "" if p.change is None else f"{p.change:.4f}",
                    p.flag,
                    starts.get(p.campaign, "") if p.value is not None else "",
                ]
            )
    return out.getvalue()
