"""A history page: chosen figures of several campaigns in time order, a table and a plot
per workload and figure, the changes beyond the threshold listed first; its CSV, and
``history.json`` naming its campaigns so each campaign's page links to it
(render.history_pages)."""

from __future__ import annotations

import datetime
import shutil
from collections.abc import Sequence
from pathlib import Path

from harness import __version__
from harness.core.store import atomic_write_json, atomic_write_text
from harness.records.change_points import MIN_CAMPAIGNS
from harness.records.compare import percent
from harness.records.history import (
    HistoryCampaign,
    LevelChange,
    Series,
    campaign_figures,
    history,
    history_csv,
)
from harness.records.method import step_method
from harness.records.thresholds import HISTORY_THRESHOLD
from harness.report import tables
from harness.report.comparison import headline_figure
from harness.report.data import CampaignData
from harness.report.plots import pyplot, save
from harness.report.render import HISTORY_INDEX, HISTORY_PREFIX, page_dir, templates

CSV_FILE = "history.csv"


def started(data: CampaignData) -> float | None:
    """When the campaign's first step started (its steps' status), else None."""
    times = [data.store.read_status(s).started for s in data.store.step_ids()]
    known = [t for t in times if t is not None]
    return min(known) if known else None


def history_campaign(data: CampaignData) -> HistoryCampaign:
    rows = data.rally_rows()
    compared = data.compared()
    methods = {}
    for step in data.steps:
        workload = str(step.get("workload"))
        methods.setdefault(workload, step_method(step, compared.method))
    return campaign_figures(data.name, started(data), data.steps, rows, methods)


def _when(epoch: float | None) -> str:
    if epoch is None:
        return "–"
    return datetime.datetime.fromtimestamp(epoch, datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")


def _cell(point) -> str:
    if point.value is None:
        return "–"
    text = tables.cell(point.value, 0 if point.value >= 100 else 3)
    if point.change is not None:
        text += f" ({percent(point.change)})"
    return text + (f" {point.flag.upper()}" if point.flag else "")


def _plot(group: list[Series], directory: Path, stem: str, names: list[str]) -> str:
    fig, axis = pyplot().subplots(figsize=(max(5.0, 1.2 * len(names)), 3.4))
    for s in group:
        xs = [i for i, p in enumerate(s.points) if p.value is not None]
        ys = [s.points[i].value for i in xs]
        who = f"{s.key.consumers}" + (f"×{s.key.threads}" if s.key.threads else "")
        (line,) = axis.plot(xs, ys, marker="o", label=f"{who} consumers")
        for change in s.level_changes:  # between the campaign before and the first after
            at = [p.campaign for p in s.points].index(change.campaign)
            axis.axvline(at - 0.5, color=line.get_color(), linestyle="--", linewidth=1)
        flagged = [i for i in xs if s.points[i].flag]
        axis.scatter(
            flagged,
            [s.points[i].value for i in flagged],
            s=160,
            facecolors="none",
            edgecolors="black",
        )
    key = group[0].key
    axis.set_xticks(range(len(names)), names, rotation=20, ha="right", fontsize=8)
    axis.set_ylabel(key.label)
    axis.set_title(f"{key.workload}, {key.section}: {key.label}", fontsize=10)
    axis.set_ylim(bottom=0)
    axis.legend(fontsize=8)
    return save(fig, directory, stem)


def level_change_line(s: Series, change: LevelChange) -> str:
    """A change of level in words, with what differs in method at it."""
    point = change.point
    said = (
        f"{s.key.title}: from {change.campaign} on, {percent(point.change)} "
        f"({headline_figure(point.before)} → {headline_figure(point.after)}, "
        f"p = {point.p_value:.1g}), {change.flag}; "
    )
    if not change.method_known:
        return said + f"how {change.previous} or {change.campaign} measured it is not recorded"
    if not change.differences:
        return said + f"measured the same way as {change.previous}"
    settings = ", ".join(f"{d.setting} {d.baseline} → {d.other}" for d in change.differences)
    return said + f"what differs in method from {change.previous}: {settings}"


def write_history(
    name: str,
    campaigns: Sequence[CampaignData],
    doc_source: Path,
    threshold: float = HISTORY_THRESHOLD,
) -> tuple[Path, list[Series]]:
    """The page (index.rst), its figures, history.csv and history.json; the series."""
    measured = [history_campaign(c) for c in campaigns]
    series = history(measured, threshold)
    order = [p.campaign for p in series[0].points] if series else [c.name for c in measured]
    out = page_dir(doc_source, HISTORY_PREFIX + name)
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    groups: dict[tuple[str, str, str], list[Series]] = {}
    for s in series:
        groups.setdefault((s.key.workload, s.key.section, s.key.label), []).append(s)
    when = {c.name: c.started for c in measured}
    sections = []
    for index, ((workload, section, label), group) in enumerate(groups.items(), start=1):
        rows = [
            [
                f"{s.key.consumers}" + (f" × {s.key.threads} threads" if s.key.threads else ""),
                *[_cell(p) for p in s.points],
            ]
            for s in group
        ]
        sections.append(
            {
                "title": f"{workload}, {section}: {label}",
                "rows": rows,
                "plot": _plot(group, out, f"h{index}", order),
            }
        )
    flagged = [
        f"{s.key.title}: {p.campaign} {percent(p.change)} from the campaign before ({p.flag})"
        for s in series
        for p in s.flagged
    ]
    levels = [level_change_line(s, c) for s in series for c in s.level_changes]
    text = (
        templates()
        .get_template("history.rst.j2")
        .render(
            title=f"History: {name}",
            version=__version__,
            threshold=f"{threshold * 100:g}",
            campaigns=[[c, _when(when[c])] for c in order],
            header=["consumers", *order],
            sections=sections,
            flagged=flagged,
            levels=levels,
            searched=len(order) >= MIN_CAMPAIGNS,
            min_campaigns=MIN_CAMPAIGNS,
            csv=CSV_FILE,
        )
    )
    index_rst = out / "index.rst"
    atomic_write_text(index_rst, text)
    atomic_write_text(out / CSV_FILE, history_csv(series))
    atomic_write_json(out / HISTORY_INDEX, {"name": name, "campaigns": order})
    return index_rst, series
