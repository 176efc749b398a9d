"""Terminal output: live progress while steps run and the summary table at the end."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from rich import box
from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from harness.campaign.run import Display
from harness.core.figures import FIO
from harness.core.plan import Step
from harness.core.store import CampaignStore
from harness.core.workloads.registry import family_of
from harness.planes.base import StepOutcome, Tick
from harness.report import tables
from harness.report.describe import expected_seconds, step_line

if TYPE_CHECKING:
    from harness.records.capacity import Capacity, Trial
    from harness.records.compare import Comparison


def _consumers_text(step: Step) -> str:
    counts: dict[str, int] = {}
    for consumer in step.consumers:
        counts[consumer.rw] = counts.get(consumer.rw, 0) + 1
    return ", ".join(f"{n} {rw}" for rw, n in counts.items())


HEARTBEAT_S = 30.0


def _remaining(elapsed: float, expected: float | None) -> str:
    """Time left of the step's I/O; past it (stacks, pods or a start time still awaited,
    results collected), what the I/O lasts rather than "0 s left"."""
    if not expected:
        return "running"
    if elapsed < expected:
        return f"{expected - elapsed:.0f} s left"
    return f"running (its I/O lasts {expected:.0f} s; waiting on the target)"


def _live(iops: float | None) -> str:
    return f"device {iops:,.0f} IOPS" if iops is not None else ""


class RichDisplay(Display):
    def __init__(self, console: Console):
        self.console = console
        self.progress: Progress | None = None

    def campaign_started(self, store: CampaignStore, steps: list[Step], todo: int) -> None:
        done = len(steps) - todo
        resumed = f", resuming: {done} done already" if done else ""
        count = f"{len(steps)} steps" if steps else "a capacity search: it chooses its steps"
        self.console.print(f"[bold]campaign[/] {store.name} → {store.root} ({count}{resumed})")

    def announce(self, line: str) -> None:
        self.console.print(line, highlight=False, markup=False)

    def step_started(self, step: Step, position: int, total: int) -> Tick:
        w = step.workload.model_dump()
        who = (
            f"concurrency {step.concurrency}, {step.workload.times_at(step.concurrency)} "
            "iterations per scenario"
            if family_of(step.workload) == "rally"
            else f"{step.concurrency} consumers ({_consumers_text(step)})"
        )
        place = f"[{position}/{total}]" if total else f"[search {position}]"
        self.console.print(f"{place} {step.id}: {who}, {step_line(w, step.threads)}", markup=False)
        expected = expected_seconds(w)
        if not self.console.is_terminal:
            return self._heartbeat(expected)
        self.progress = Progress(
            TextColumn("  {task.description}"),
            BarColumn(),
            TimeElapsedColumn(),
            TextColumn("{task.fields[iops]}"),
            console=self.console,
            transient=True,
        )
        task = self.progress.add_task("running", total=expected, iops="")
        self.progress.start()
        progress = self.progress

        def tick(elapsed: float, iops: float | None) -> None:
            progress.update(
                task,
                completed=min(elapsed, expected or elapsed),
                description=_remaining(elapsed, expected),
                iops=_live(iops),
            )

        return tick

    def _heartbeat(self, expected: float | None) -> Tick:
        """Without a terminal (CI logs, pipes): a plain line every HEARTBEAT_S seconds."""
        last = [0.0]

        def tick(elapsed: float, iops: float | None) -> None:
            if elapsed - last[0] >= HEARTBEAT_S:
                last[0] = elapsed
                self.console.print(
                    f"  {elapsed:.0f} s, {_remaining(elapsed, expected)} {_live(iops)}".rstrip(),
                    highlight=False,
                )

        return tick

    def step_finished(self, step: Step, outcome: StepOutcome) -> None:
        if self.progress is not None:
            self.progress.stop()
            self.progress = None
        colour = {"done": "green", "failed": "red", "interrupted": "yellow"}[outcome.state]
        message = f"  [{colour}]{outcome.state}[/]"
        if outcome.error:
            message += f": {outcome.error}"
        self.console.print(message)
        for note in outcome.notes:
            self.console.print(f"  {note}")

    def searched(self, found: Capacity, trial: Trial | None) -> None:
        if trial is not None and not trial.met:
            self.console.print(f"  objective [red]missed[/]: {trial.why}", highlight=False)
        elif trial is not None:
            slowest = trial.worst_achieved_pct or 0.0
            self.console.print(
                f"  objective [green]met[/]: p99 {trial.p99_ms or 0:.2f} ms, slowest consumer "
                f"{slowest:.1f} % of its rate",
                highlight=False,
            )
        else:
            self.console.print(
                f"[bold]capacity of {found.workload}[/]: {found.sentence()}", highlight=False
            )
            for warning in found.warnings:
                self.console.print(f"  [yellow]warning[/]: {warning}", highlight=False)

    def sweep_ended(self, step: Step, reason: str, skipped: int) -> None:
        later = f"; {skipped} later step(s) skipped" if skipped else ""
        self.console.print(
            f"  [bold]the sweep of {step.workload.name} ends here[/]: {reason}{later}",
            highlight=False,
        )


# a direction's figures: header and cell (the step, read or write), headed as the figure
# catalogue says (harness/core/figures.py); the bandwidth in MiB/s, as the page has it
DIRECTION_COLUMNS: tuple[tuple[str, Callable[[dict[str, Any], str], str]], ...] = (
    *((FIO[n].column, lambda s, d, n=n: tables.figure(s, d, n)) for n in ("iops_avg", "iops_sum")),
    ("MiB/s sum", lambda s, d: tables.figure(s, d, "bandwidth_sum", 1, tables.KIB_TO_MIB)),
    *(
        (FIO[n].column, lambda s, d, n=n: tables.figure(s, d, n, 3))
        for n in ("p95_merged", "p95_consumer_mean", "p99_merged")
    ),
)
SUMMARY_COLUMNS = (
    "step",
    "cons",
    "I/O",
    *(header for header, _ in DIRECTION_COLUMNS),
    "overlap",
    "device Δ",
    "state",
)


def summary_table(steps: list[dict[str, Any]], title: str) -> Table:
    """One row per step and direction: readers and writers side by side, as the
    reference document tabulates them."""
    table = Table(title=title, title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False)
    for column in SUMMARY_COLUMNS:
        table.add_column(column, justify="left" if column in ("step", "I/O", "state") else "right")
    for s in steps:
        device = s.get("device") or {}
        gap, overlap = device.get("iops_gap"), s.get("overlap")
        shared = [
            f"{overlap:.0%}" if overlap is not None else "–",
            f"{gap:.0%}" if gap is not None else "–",
            s["state"] + (f" ({len(s['warnings'])} warnings)" if s.get("warnings") else ""),
        ]
        directions = [d for d in tables.DIRECTIONS if s.get(d)] or ["–"]
        for i, d in enumerate(directions):
            table.add_row(
                s["step"][:3] if i == 0 else "",
                str(s.get("concurrency") or "") if i == 0 else "",
                d,
                *(cell(s, d) for _, cell in DIRECTION_COLUMNS),
                *(shared if i == 0 else ["", "", ""]),
            )
    table.caption = (
        "p95/p99 ms: from the consumers' merged latency histograms; p95 mean: the mean of "
        "per-consumer p95s (what the reference document tabulates); device Δ: gap between "
        "the device's IOPS and fio's"
    )
    return table


def db_summary_table(steps: list[dict[str, Any]], tool: str, title: str) -> Table:
    table = Table(title=title, title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False)
    rows = tables.db_rows(steps, tool)
    table.add_column("step", min_width=3)
    for index, column in enumerate(tables.DB_HEADERS[tool]):
        # a narrow terminal wraps the headings, never a figure
        widest = max((len(row[index]) for row in rows), default=1)
        table.add_column(column, justify="right", min_width=widest)
    table.add_column("state")
    for s, row in zip(steps, rows, strict=True):
        table.add_row(s["step"][:3], *row, s["state"])
    return table


def summary_tables(steps: list[dict[str, Any]], title: str) -> list[Table]:
    """The fio table for fio steps, one table per database tool for the others."""
    made = []
    fio_steps = [s for s in steps if s.get("tool", "fio") == "fio"]
    if fio_steps:
        made.append(summary_table(fio_steps, title))
    for tool in tables.DB_HEADERS:
        of_tool = [s for s in steps if s.get("tool") == tool]
        if of_tool:
            made.append(db_summary_table(of_tool, tool, f"{title}: {tool}"))
    rally_steps = [s for s in steps if s.get("tool") == "rally"]
    if rally_steps:
        made.append(rally_summary_table(rally_steps, f"{title}: Rally"))
    return made


def rally_summary_table(steps: list[dict[str, Any]], title: str) -> Table:
    """Per step and scenario: iterations, failures, the iteration's median and 95th %ile."""
    table = Table(title=title)
    for column in (
        "step",
        "scenario",
        "concurrency",
        "iterations",
        "failed",
        "total median s",
        "total p95 s",
        "SLA",
    ):
        table.add_column(column, justify="left" if column in ("step", "scenario") else "right")
    for step in steps:
        workloads = (step.get("rally") or {}).get("workloads") or []
        if not workloads:
            table.add_row(step["step"], "-", "", "", "", "", "", step["state"])
        for w in workloads:
            verdict = "pass" if w["pass_sla"] else "FAIL"
            table.add_row(
                step["step"],
                w["scenario"],
                str(w["concurrency"]),
                str(w["iterations"]),
                str(w["failed"]),
                _seconds(w.get("total_median_s")),
                _seconds(w.get("total_p95_s")),
                verdict,
            )
    return table


def _seconds(value: float | None) -> str:
    return "" if value is None else f"{value:.2f}"


VERDICT_COLOURS = {"better": "green", "worse": "red", "not comparable": "yellow"}


def _table(title: str, header: list[str], rows: list[list[str]], left: set[str]) -> Table:
    table = Table(title=title, title_justify="left")
    for column in header:
        table.add_column(column, justify="left" if column in left else "right")
    for row in rows:
        table.add_row(*row)
    return table


def print_comparison(console: Console, comparison: Comparison) -> None:
    """What differs in the methods, the deltas with their verdicts, unmatched steps."""
    # imported here: a run's display does not need the comparison's page words (Jinja)
    from harness.report.comparison import (
        CAPACITY_CHANGE_HEADER,
        DELTA_HEADER,
        DIFFERENCE_HEADER,
        UNMATCHED_HEADER,
        capacity_rows,
        delta_rows,
        difference_rows,
        unmatched_rows,
        verdict_rule,
    )

    title = f"{comparison.other} against {comparison.baseline}"
    differences = difference_rows(comparison)
    if differences:
        left = {"steps (consumers)", "setting", "baseline", "other", "meaning"}
        console.print(
            _table(f"{title}: what differs in the method", DIFFERENCE_HEADER, differences, left)
        )
    else:
        console.print(f"{title}: the matched steps were measured the same way", highlight=False)
    rows = []
    for row, delta in zip(delta_rows(comparison.deltas), comparison.deltas, strict=True):
        colour = VERDICT_COLOURS.get(delta.verdict)
        rows.append([*row[:-1], f"[{colour}]{row[-1]}[/]" if colour else row[-1]])
    console.print(_table(title, DELTA_HEADER, rows, {"workload", "metric", "verdict"}))
    console.print(verdict_rule(comparison), highlight=False)
    if comparison.capacities:
        console.print(
            _table(
                f"{title}: capacity",
                CAPACITY_CHANGE_HEADER,
                capacity_rows(comparison),
                set(CAPACITY_CHANGE_HEADER),
            )
        )
    unmatched = unmatched_rows(comparison)
    if unmatched:
        console.print(
            _table(
                f"{title}: steps only one campaign has",
                UNMATCHED_HEADER,
                unmatched,
                {"only in", "step", "workload"},
            )
        )
