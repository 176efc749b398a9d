"""A comparison of campaigns as rows and as a page: what differs in the matched steps'
methods, each figure's change and verdict, and the steps only one campaign has."""

from __future__ import annotations

from pathlib import Path

import yaml

from harness import __version__
from harness.core.store import CampaignStore, atomic_write_text
from harness.records.compare import Comparison, Delta, StepMatch, compare_campaigns, percent
from harness.records.noise import MEASURED_FLOORS
from harness.report import tables
from harness.report.data import load
from harness.report.plots import pyplot, save
from harness.report.render import page_dir, templates

# A comparison kept with its campaigns (results/<study>/comparison.yaml): the baseline's
# and the other campaigns' folder names beside it, and whether differences of method are
# accepted; the documentation build writes its page anew from the campaigns each time.
KEPT = "comparison.yaml"

# each row names its step's workload (its test: random read/write, sequential read …), as
# several steps of one campaign can have the same consumers, I/O and metric
# noise: the smallest change the comparison could show of the figure (records.compare)
DELTA_HEADER = [
    "workload",
    "consumers",
    "I/O",
    "metric",
    "baseline",
    "other",
    "change",
    "noise",
    "verdict",
]
DIFFERENCE_HEADER = ["steps (consumers)", "setting", "baseline", "other", "meaning"]
UNMATCHED_HEADER = ["only in", "step", "workload", "consumers", "threads", "repeat"]


def _consumers(concurrency: int, threads: int | None) -> str:
    return str(concurrency) + (f" × {threads} threads" if threads else "")


def delta_rows(deltas: list[Delta]) -> list[list[str]]:
    return [
        [
            d.workload or "–",
            _consumers(d.concurrency, d.threads),
            d.direction,
            d.label,
            tables.cell(d.baseline, 3),
            tables.cell(d.other, 3),
            percent(d.delta),
            "–" if d.smallest is None else f"±{d.smallest * 100:.0f} %",
            d.verdict + (f" ({d.note})" if d.note else ""),
        ]
        for d in deltas
    ]


def headline_figure(value: float | None) -> str:
    """A figure as the studies print it: whole numbers from 100, else 3 digits or so."""
    if value is None:
        return "–"
    digits = 0 if abs(value) >= 100 else 1 if abs(value) >= 10 else 2
    return f"{value:,.{digits}f}"


def headline_change(delta: float | None) -> str:
    """A change as the studies print it beside a figure: one decimal, a true minus."""
    return "–" if delta is None else f"{delta * 100:+.1f} %".replace("-", "−")


def _headline_columns(
    comparisons: list[Comparison],
) -> dict[tuple[str, str, str], tuple[str, Delta]]:
    """The figures the storage studies quote (records.compare.HEADLINES) of the matched
    steps, in order: (step, direction, metric) -> the figure's name on the page, and its
    first change found (which holds the baseline's figure)."""
    columns: dict[tuple[str, str, str], Delta] = {}
    for comparison in comparisons:
        for d in comparison.deltas:
            if d.headline:
                columns.setdefault((d.step, d.direction, d.metric), d)
    steps_of: dict[str, set[str]] = {}
    for d in columns.values():
        steps_of.setdefault(d.workload, set()).add(d.step)
    names = {}
    for key, d in columns.items():
        several = len(steps_of[d.workload]) > 1
        where = f" ({_consumers(d.concurrency, d.threads)})" if several else ""
        metric = d.label if d.direction == "db" else f"{d.direction} {d.label}"
        names[key] = (f"{d.workload}{where}: {metric}", d)
    return names


def _headlines(comparison: Comparison) -> dict[tuple[str, str, str], Delta]:
    return {(d.step, d.direction, d.metric): d for d in comparison.deltas if d.headline}


def headline_table(comparisons: list[Comparison]) -> tuple[list[str], list[list[str]]]:
    """The quoted figures, one column each, one row per campaign: the baseline's figures,
    then each other campaign's with its change from the baseline beside it (seed 002's
    table of storage types). Empty when no matched step has such figures."""
    columns = _headline_columns(comparisons)
    if not columns:
        return [], []
    baseline = [headline_figure(d.baseline) for _, d in columns.values()]
    rows = [[comparisons[0].baseline, *baseline]]
    for comparison in comparisons:
        found = _headlines(comparison)
        row = [comparison.other]
        for key in columns:
            d = found.get(key)
            if d is None or d.other is None:
                row.append("–")
            else:
                row.append(f"{headline_figure(d.other)} ({headline_change(d.delta)})")
        rows.append(row)
    return ["campaign", *(name for name, _ in columns.values())], rows


VERDICT_COLOURS = {"better": "tab:green", "worse": "tab:red"}


def change_plot(
    comparisons: list[Comparison], directory: Path, stem: str = "changes"
) -> str | None:
    """Each quoted figure's change from the baseline, a bar per other campaign from 1×
    to its ratio to the baseline on a log scale (so −90 % and +900 % are as long), green
    better, red worse, grey neither: the figures in short, drawn. None without any."""
    columns = _headline_columns(comparisons)
    if not columns:
        return None
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(8, 0.5 + 0.45 * len(columns) * len(comparisons)))
    height = 0.8 / len(comparisons)
    for index, comparison in enumerate(comparisons):
        found = _headlines(comparison)
        for row, key in enumerate(columns):
            d = found.get(key)
            if d is None or d.delta is None or d.delta <= -1:
                continue
            y, ratio = row + index * height, 1 + d.delta
            colour = VERDICT_COLOURS.get(d.verdict, "tab:grey")
            ax.barh(y, ratio - 1, left=1, height=height * 0.9, color=colour)
            ax.annotate(
                f" {comparison.other} {headline_change(d.delta)} ",
                (ratio, y),
                va="center",
                ha="left" if ratio >= 1 else "right",
                fontsize=7,
            )
    ax.set_xscale("log")
    ax.set_yticks([row + (len(comparisons) - 1) * height / 2 for row in range(len(columns))])
    ax.set_yticklabels([name for name, _ in columns.values()], fontsize=8)
    ax.invert_yaxis()
    ax.axvline(1, color="black", linewidth=0.8)
    ax.set_xlabel(f"ratio to {comparisons[0].baseline} (log scale; 1 = the same)")
    ax.grid(True, axis="x", alpha=0.3)
    low, high = ax.get_xlim()
    ax.set_xlim(low / 3, high * 3)  # room for the labels
    return save(fig, directory, stem)


def difference_rows(comparison: Comparison) -> list[list[str]]:
    """Differences of method, once for every run of matched steps that differ alike."""
    groups: list[tuple[list[StepMatch], list]] = []
    for match in comparison.matches:
        if not match.differences:
            continue
        if groups and groups[-1][1] == match.differences:
            groups[-1][0].append(match)
        else:
            groups.append(([match], match.differences))
    rows = []
    for matches, found in groups:
        steps = ", ".join(dict.fromkeys(_consumers(m.concurrency, m.threads) for m in matches))
        for d in found:
            meaning = "changes the figures' meaning" if d.changes_meaning else ""
            rows.append([steps, d.setting, d.baseline, d.other, meaning])
    return rows


def unmatched_rows(comparison: Comparison) -> list[list[str]]:
    names = {"baseline": comparison.baseline, "other": comparison.other}
    return [
        [
            names[u.campaign],
            u.step,
            u.workload,
            str(u.concurrency),
            str(u.threads or ""),
            str(u.repeat),
        ]
        for u in comparison.unmatched
    ]


def noise_rule(comparison: Comparison) -> str:
    """What the verdicts were judged against: Welch's interval where both sides repeated
    a step, the run-to-run spread or a stated noise floor where they did not."""
    tolerance = f"±{comparison.tolerance * 100:g} %"
    said = [
        "A figure of a step both campaigns repeated is “better” or “worse” only when the "
        "95 % interval of its change (Welch's t over the repeats) excludes zero and the "
        f"change is beyond {tolerance}; “same” when the interval lies within {tolerance}; "
        "else “within noise”. The noise column is the smallest change each comparison "
        "could show: half the interval, or the floor it was judged against."
    ]
    if any(d.verdict == "spread unknown" for d in comparison.deltas):
        floors = "; ".join(
            f"{target}: "
            + ", ".join(f"{kind} ±{floor * 100:.0f} %" for kind, floor in kinds.items() if floor)
            for target, kinds in MEASURED_FLOORS.items()
        )
        said.append(
            "Where neither campaign repeated a step, its run-to-run spread is unknown: a "
            "change is “better” or “worse” only beyond the noise floor of its kind of "
            f"figure on its target ({floors}: the most two single runs of the quick profile "
            "differed on a 2-core machine; a target not measured takes the largest), else "
            "“spread unknown”. Run both campaigns with “repeats: 5” in their specs to judge "
            "smaller changes."
        )
    return " ".join(said)


def verdict_rule(comparison: Comparison) -> str:
    """What the verdicts mean in this comparison."""
    same = noise_rule(comparison)
    if comparison.not_comparable:
        return (
            "The methods differ in ways that change what the figures mean (marked "
            "“changes the figures' meaning”): "
            "the verdicts of those steps are “not comparable”; the numbers are shown as "
            f"they are. Pass --accept-differences to judge them anyway. {same}"
        )
    accepted = (
        " Differences of method were accepted (--accept-differences)."
        if comparison.accept_differences and any(m.differences for m in comparison.matches)
        else ""
    )
    return f"{same} “–” is a figure one side lacks.{accepted}"


CAPACITY_CHANGE_HEADER = ["workload", "baseline", "other", "verdict", "why"]


def capacity_rows(comparison: Comparison) -> list[list[str]]:
    """Each workload both campaigns searched: their answers and what the change is."""
    return [[c.workload, c.baseline, c.other, c.verdict, c.why] for c in comparison.capacities]


def write_comparison(
    baseline: str, others: list[str], comparisons: list[Comparison], doc_source: Path
) -> Path:
    """One page comparing every other campaign with the baseline."""
    name = f"compare-{baseline}-vs-" + "-".join(others)
    out = page_dir(doc_source, name)
    out.mkdir(parents=True, exist_ok=True)
    sections = [
        {
            "title": f"{c.other} against {c.baseline}",
            "rule": verdict_rule(c),
            "differences": difference_rows(c),
            "rows": delta_rows(c.deltas),
            "unmatched": unmatched_rows(c),
            "capacities": capacity_rows(c),
        }
        for c in comparisons
    ]
    text = (
        templates()
        .get_template("compare.rst.j2")
        .render(
            title=f"Comparison: {', '.join(others)} against {baseline}",
            baseline=baseline,
            other=", ".join(others),
            version=__version__,
            sections=sections,
            headline=headline_table(comparisons),
            change_plot=change_plot(comparisons, out),
            delta_header=DELTA_HEADER,
            difference_header=DIFFERENCE_HEADER,
            unmatched_header=UNMATCHED_HEADER,
            capacity_header=CAPACITY_CHANGE_HEADER,
        )
    )
    index = out / "index.rst"
    atomic_write_text(index, text)
    return index


def write_kept_comparison(study: Path, doc_source: Path) -> Path:
    """The page of the comparison kept in ``study`` (its comparison.yaml), from the
    campaigns' raw output, as `volperf compare` writes it."""
    kept = yaml.safe_load((study / KEPT).read_text(encoding="utf-8"))
    base = load(CampaignStore(study / kept["baseline"]))
    others = [load(CampaignStore(study / name)) for name in kept["others"]]
    accept = bool(kept.get("accept_differences"))
    comparisons = [compare_campaigns(base.compared(), o.compared(), accept) for o in others]
    return write_comparison(base.name, [o.name for o in others], comparisons, doc_source)
