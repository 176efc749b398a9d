"""A comparison of campaigns as rows and as a page: what differs in the matched steps'
methods, each figure's change and verdict, and the steps only one campaign has."""

from __future__ import annotations

from pathlib import Path

from harness import __version__
from harness.core.store import atomic_write_text
from harness.records.compare import Comparison, Delta, StepMatch, percent
from harness.report import tables
from harness.report.render import page_dir, templates

DELTA_HEADER = ["consumers", "I/O", "metric", "baseline", "other", "change", "verdict"]
DIFFERENCE_HEADER = ["steps (consumers)", "setting", "baseline", "other", "meaning"]
UNMATCHED_HEADER = ["only in", "step", "workload", "consumers", "threads", "repeat"]


def _consumers(concurrency: int, threads: int | None) -> str:
    return str(concurrency) + (f" × {threads} threads" if threads else "")


def delta_rows(deltas: list[Delta]) -> list[list[str]]:
    return [
        [
            _consumers(d.concurrency, d.threads),
            d.direction,
            d.label,
            tables.cell(d.baseline, 3),
            tables.cell(d.other, 3),
            percent(d.delta),
            d.verdict + (f" ({d.note})" if d.note else ""),
        ]
        for d in deltas
    ]


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


def verdict_rule(comparison: Comparison) -> str:
    """One sentence saying what the verdicts mean in this comparison."""
    same = f"“same” is a change within ±{comparison.tolerance * 100:g} %"
    same += " (or within the run-to-run spread of repeats, where that is larger)"
    if comparison.not_comparable:
        return (
            "The methods differ in ways that change what the figures mean (marked "
            "“changes the figures' meaning”): "
            "the verdicts of those steps are “not comparable”; the numbers are shown as "
            f"they are. Pass --accept-differences to judge them anyway. Elsewhere {same}."
        )
    accepted = (
        " Differences of method were accepted (--accept-differences)."
        if comparison.accept_differences and any(m.differences for m in comparison.matches)
        else ""
    )
    return f"{same}; “–” is a figure one side lacks.{accepted}"


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
            delta_header=DELTA_HEADER,
            difference_header=DIFFERENCE_HEADER,
            unmatched_header=UNMATCHED_HEADER,
        )
    )
    index = out / "index.rst"
    atomic_write_text(index, text)
    return index
