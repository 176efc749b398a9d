"""`volperf report`, `compare` and `history`: pages of campaigns written into a Sphinx
source (a checkout's doc/source, --doc-source, or a site of --build's own)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import click

from harness.cli.common import campaign_store, print_json, results_option
from harness.cli.console import console
from harness.core import secrets
from harness.records.thresholds import HISTORY_THRESHOLD, TOLERANCE

CHECKOUT_DOCS = Path("doc/source")


def doc_options(command: Any) -> Any:
    """--doc-source and --build, as report, compare and history take them."""
    command = click.option(
        "--build",
        "build_dir",
        type=click.Path(path_type=Path, file_okay=False),
        default=None,
        help="then build the HTML documentation into this directory; without "
        "--doc-source (and outside a checkout) its Sphinx sources are kept beside it in "
        "DIR.source, so the pages of several campaigns make one site",
    )(command)
    return click.option(
        "--doc-source",
        type=click.Path(path_type=Path, file_okay=False),
        default=None,
        help="Sphinx source directory the pages are written into (default: doc/source "
        "of a checkout, else DIR.source of --build)",
    )(command)


def _found_doc_source(given: Path | None, build_dir: Path | None) -> Path | None:
    """The Sphinx source a page goes into: --doc-source, a checkout's doc/source, else
    --build's DIR.source; None when there is none of them."""
    from harness.report.render import site_source

    if given is not None:
        if not (given / "conf.py").exists():
            raise click.ClickException(
                f"{given}: not a Sphinx source directory (no conf.py); give --doc-source"
            )
        return given
    if (CHECKOUT_DOCS / "conf.py").exists():
        return CHECKOUT_DOCS
    if build_dir is not None:
        return site_source(build_dir)
    return None


def _doc_source(given: Path | None, build_dir: Path | None) -> Path:
    source = _found_doc_source(given, build_dir)
    if source is None:
        raise click.ClickException(
            "no documentation to write the page into: give --build DIR (volperf makes a "
            "site there, its Sphinx sources in DIR.source) or --doc-source DIR of your own "
            "Sphinx project"
        )
    return source


def _publish(index: Path, doc_source: Path, build_dir: Path | None) -> None:
    """Say where the page is, and build the documentation into build_dir if given."""
    secrets.scrub_tree(index.parent)
    console().print(f"page: {index}", highlight=False)
    if build_dir is not None:
        _build(doc_source, build_dir, index.parent.relative_to(doc_source))
        secrets.scrub_tree(build_dir)


@click.command()
@click.argument("campaign", type=click.Path(path_type=Path, exists=True, file_okay=False))
@doc_options
def report(campaign: Path, doc_source: Path | None, build_dir: Path | None) -> None:
    """Write CAMPAIGN's page (tables, plots, warnings) into the documentation."""
    from harness.core.spec import SpecError
    from harness.report.render import write_report

    store = campaign_store(campaign)
    source = _doc_source(doc_source, build_dir)
    try:
        page = write_report(store, source)
    except SpecError as exc:  # its spec names what this volperf does not know
        raise click.ClickException(str(exc)) from None
    _publish(page, source, build_dir)


def _build(doc_source: Path, build_dir: Path, page: Path) -> None:
    from harness.report.render import build_html

    console().print(f"building the documentation into {build_dir} …")
    result = build_html(doc_source, build_dir)
    if result.returncode != 0:
        console().print(result.stderr, highlight=False, markup=False)
        raise click.ClickException("the documentation did not build (Sphinx warnings above)")
    console().print(f"report: {build_dir / page / 'index.html'}", highlight=False)


@click.command()
@click.argument("baseline", type=click.Path(path_type=Path, exists=True, file_okay=False))
@click.argument(
    "others", nargs=-1, required=True, type=click.Path(path_type=Path, exists=True, file_okay=False)
)
@doc_options
@click.option("--no-page", is_flag=True, help="only print the tables (no page even in a checkout)")
@click.option("--json", "as_json", is_flag=True, help="differences, deltas, unmatched steps")
@click.option(
    "--accept-differences",
    is_flag=True,
    help="judge steps whose methods differ in meaning (block size, iodepth, rw, runtime "
    "by more than 2x, prefill, target type …) instead of marking them not comparable",
)
@click.option(
    "--tolerance",
    type=click.FloatRange(0, 100),
    default=TOLERANCE * 100,
    show_default=True,
    help="percent: the least change called better or worse, even when the noise allows less",
)
def compare(
    baseline: Path,
    others: tuple[Path, ...],
    doc_source: Path | None,
    build_dir: Path | None,
    no_page: bool,
    as_json: bool,
    accept_differences: bool,
    tolerance: float,
) -> None:
    """Relative deltas of OTHERS against BASELINE, metric by metric, after what differs
    in how their matched steps were measured; and their page, in a checkout's doc/source
    (or --doc-source, or a site of --build's), none when there is no such place."""
    from harness.cli.display import print_comparison
    from harness.records.compare import compare_campaigns
    from harness.report.comparison import write_comparison
    from harness.report.data import load as load_campaign

    base = load_campaign(campaign_store(baseline))
    loaded = [load_campaign(campaign_store(o)) for o in others]
    comparisons = [
        compare_campaigns(base.compared(), o.compared(), accept_differences, tolerance / 100)
        for o in loaded
    ]
    if as_json:
        print_json({c.other: c.to_dict() for c in comparisons})
    else:
        for comparison in comparisons:
            print_comparison(console(), comparison)
    if no_page:
        return
    source = _found_doc_source(doc_source, build_dir)
    if source is None:  # outside a checkout, nothing asked: the tables above are all
        console().print(
            "no page written: no Sphinx source here (--build DIR makes a site with it, "
            "--doc-source DIR writes it into your own)",
            highlight=False,
        )
        return
    index = write_comparison(base.name, [o.name for o in loaded], comparisons, source)
    _publish(index, source, build_dir)


def _page_name(text: str) -> str:
    """A page name from a glob or campaign names: letters, digits, '.', '_' and '-'."""
    return re.sub(r"[^A-Za-z0-9_.-]+", "", text).strip("-._") or "campaigns"


@click.command()
@click.argument("campaigns", nargs=-1, type=click.Path(path_type=Path, file_okay=False))
@click.option(
    "--match",
    "pattern",
    help="campaigns under --results whose names match this glob (nightly-* and the like)",
)
@results_option
@click.option("--name", help="the history page's name (default: the pattern or the campaigns)")
@doc_options
@click.option(
    "--threshold",
    type=click.FloatRange(0, 1000),
    default=HISTORY_THRESHOLD * 100,
    show_default=True,
    help="percent: a change from the campaign before beyond this is flagged",
)
def history(
    campaigns: tuple[Path, ...],
    pattern: str | None,
    results: Path,
    name: str | None,
    doc_source: Path | None,
    build_dir: Path | None,
    threshold: float,
) -> None:
    """A page (and a CSV) of chosen figures across CAMPAIGNS (or --match) in the order
    they ran, with a plot per figure and the changes beyond --threshold flagged; each
    campaign's page links to it when `volperf report` writes it again."""
    from harness.records.change_points import MIN_CAMPAIGNS
    from harness.records.compare import percent
    from harness.report.data import load as load_campaign
    from harness.report.history import level_change_line, write_history

    paths = list(campaigns)
    if pattern:
        paths += sorted(p for p in results.glob(pattern) if (p / "campaign.yaml").exists())
    if len(paths) < 2:
        raise click.UsageError("history needs two campaigns or more (CAMPAIGN… or --match)")
    loaded = [load_campaign(campaign_store(p)) for p in dict.fromkeys(paths)]
    name = name or _page_name(pattern or f"{loaded[0].name}-to-{loaded[-1].name}")
    source = _doc_source(doc_source, build_dir)
    index, series = write_history(name, loaded, source, threshold / 100)
    flagged = [(s, p) for s in series for p in s.flagged]
    for s, p in flagged:
        console().print(
            f"[yellow]{p.flag}[/] {s.key.title}: {p.campaign} {percent(p.change)}", highlight=False
        )
    levels = [(s, c) for s in series for c in s.level_changes]
    for s, c in levels:
        console().print(f"[bold]level {c.flag}[/] {level_change_line(s, c)}", highlight=False)
    searched = (
        f", {len(levels)} changes of level against each figure's noise"
        if len(loaded) >= MIN_CAMPAIGNS
        else f" (changes of level are searched from {MIN_CAMPAIGNS} campaigns on)"
    )
    console().print(
        f"{len(series)} figures over {len(loaded)} campaigns, {len(flagged)} changes beyond "
        f"±{threshold:g} % from the campaign before{searched}",
        highlight=False,
    )
    _publish(index, source, build_dir)
