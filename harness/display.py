"""Terminal output: live progress while steps run and the summary table at the end."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from harness.campaign import Display
from harness.plan import Step
from harness.store import CampaignStore
from harness.targets.base import StepOutcome, Tick


def _consumers_text(step: Step) -> str:
    counts: dict[str, int] = {}
    for consumer in step.consumers:
        counts[consumer.rw] = counts.get(consumer.rw, 0) + 1
    return ", ".join(f"{n} {rw}" for rw, n in counts.items())


class RichDisplay(Display):
    def __init__(self, console: Console):
        self.console = console
        self.progress: Progress | None = None

    def campaign_started(self, store: CampaignStore, steps: list[Step], todo: int) -> None:
        done = len(steps) - todo
        resumed = f", resuming: {done} done already" if done else ""
        self.console.print(
            f"[bold]campaign[/] {store.name} → {store.root} ({len(steps)} steps{resumed})"
        )

    def step_started(self, step: Step, position: int, total: int) -> Tick:
        w = step.workload
        length = f"{w.runtime} s" if w.mode == "time" else f"size {w.size}"
        self.console.print(
            f"[{position}/{total}] {step.id}: {step.concurrency} consumers "
            f"({_consumers_text(step)}), bs {w.bs}, iodepth {w.iodepth}, {length}"
        )
        expected = float((w.runtime or 0) + w.ramp_time) if w.mode == "time" else None
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
            live = f"device {iops:,.0f} IOPS" if iops is not None else ""
            remaining = f"{max(expected - elapsed, 0):.0f} s left" if expected else ""
            progress.update(
                task,
                completed=min(elapsed, expected or elapsed),
                description=remaining or "running",
                iops=live,
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


def figure(direction: dict[str, Any] | None, name: str, digits: int = 0) -> str:
    if not direction:
        return "–"
    value = direction.get(name)
    if value is None:
        return "ceiling" if name in direction.get("ceilings", {}) else "–"
    return f"{value:,.{digits}f}"


def summary_table(steps: list[dict[str, Any]], title: str) -> Table:
    table = Table(title=title, title_justify="left")
    for column in (
        "step",
        "cons",
        "state",
        "R IOPS avg",
        "R IOPS sum",
        "R p95 ms",
        "W IOPS avg",
        "W IOPS sum",
        "W p95 ms",
        "overlap",
        "device",
        "warn",
    ):
        table.add_column(column, justify="left" if column in ("step", "state") else "right")
    for s in steps:
        read, write = s.get("read"), s.get("write")
        device = s.get("device") or {}
        gap = device.get("iops_gap")
        overlap = s.get("overlap")

        def p95(d: dict[str, Any] | None) -> str:
            # merged histogram percentile, then the mean of per-consumer percentiles
            return f"{figure(d, 'p95_merged', 2)} ({figure(d, 'p95_consumer_mean', 2)})"

        table.add_row(
            s["step"],
            str(s.get("concurrency") or ""),
            s["state"],
            figure(read, "iops_avg"),
            figure(read, "iops_sum"),
            p95(read) if read else "–",
            figure(write, "iops_avg"),
            figure(write, "iops_sum"),
            p95(write) if write else "–",
            f"{overlap:.0%}" if overlap is not None else "–",
            f"±{gap:.0%}" if gap is not None else "–",
            str(len(s.get("warnings", []))),
        )
    table.caption = (
        "p95: from merged histograms (mean of per-consumer p95); device: gap "
        "between the device's IOPS and fio's"
    )
    return table
