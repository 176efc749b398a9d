"""matplotlib figures of a campaign, each saved as PNG and SVG beside the page."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from harness.core.workloads.base import Plot
from harness.records import stats
from harness.records.db import EventRecord
from harness.records.fio import FioConsumerRecord
from harness.records.node_load import cpu_busy, disk_rates, node_samples
from harness.records.pace import behind_schedule
from harness.tools.apps.parse import PHASES

COLOURS = {"read": "tab:blue", "write": "tab:red"}


CAPTIONS = {
    "capacity": "A capacity search: each step's p99 and achieved rate against the rate asked",
    "pace": "Each step of the capacity search, second by second: each consumer's IOPS against "
    "the rate it was asked for (dashed), and how far behind its schedule it was",
    "iops": "IOPS against the number of consumers",
    "bandwidth": "Bandwidth against the number of consumers",
    "latency": "95th percentile completion latency against the number of consumers",
    "distribution": "Completion latency distribution of each step (all consumers merged)",
    "tps": "Transactions per second against client threads, per consumer and in total",
    "app": "Each phase's mean time (stacked: a whole iteration) against the number of consumers",
    "ycsb": "YCSB operations per second, summed over the consumers (bars) and per consumer "
    "(dots), against the number of consumers",
    "messages": "Messages per second published and consumed (nats bench), summed over the "
    "consumers (bars) and per consumer (dots), against the number of consumers",
    "rally": "Median (solid) and 95th percentile (dashed) of each Rally action against concurrency",
    "migration": "Each pod from its node's failure (0 s): to Running elsewhere (light), to "
    "Ready (dark), and its client's io-pause (hatched); the dashed line: all back",
    "nodes": "Each node's load second by second while the steps ran: CPU busy, and its busiest "
    "disk's IOPS and utilisation (each step's start marked and numbered)",
    "phases": "Each step the backend was not healthy through, second by second: all consumers' "
    "IOPS summed (thick) and each consumer's (thin), the backend's phases as bands, the "
    "faults volperf gave as marks",
}
# the phases' bands (records/phases.py's states)
PHASE_COLOURS = {
    "healthy": "#d9f0d3",
    "degraded": "#f4a582",
    "recovering": "#fddbc7",
    "healed": "#a6dba0",
}


def pyplot() -> Any:
    """matplotlib's pyplot on the Agg backend, imported at the first figure: commands that
    draw nothing (`volperf run`) do not pay for it (0.3 s of CPU and 40 MB here)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def caption(stem: str) -> str:
    return CAPTIONS.get(stem.rsplit("-", 1)[-1], stem)


def save(fig: Any, directory: Path, stem: str) -> str:
    plt = pyplot()
    fig.tight_layout()
    for suffix in ("png", "svg"):
        fig.savefig(directory / f"{stem}.{suffix}", dpi=110)
    plt.close(fig)
    return stem


def _series(
    steps: Sequence[dict[str, Any]], direction: str, name: str, scale: float = 1.0
) -> tuple[list[int], list[float]]:
    xs, ys = [], []
    for s in steps:
        value = (s.get(direction) or {}).get(name)
        if value is not None:
            xs.append(int(s["concurrency"]))
            ys.append(value * scale)
    return xs, ys


def _against_consumers(steps, directory, stem, panels, ylabel, log=False) -> str | None:
    plt = pyplot()
    fig, axes = plt.subplots(1, len(panels), figsize=(5 * len(panels), 3.6), squeeze=False)
    plotted = False
    counts = sorted({int(s["concurrency"]) for s in steps})
    # the same figure over each step's common window, where fio's logs gave one
    windows = [{**(s.get("window") or {}), "concurrency": s["concurrency"]} for s in steps]
    for ax, (title, name, scale) in zip(axes[0], panels, strict=True):
        ax.set_xticks(counts)
        for direction in ("read", "write"):
            xs, ys = _series(steps, direction, name, scale)
            if xs:
                plotted = True
                ax.plot(xs, ys, marker="o", color=COLOURS[direction], label=direction)
            xs, ys = _series(windows, direction, name, scale)
            if xs:
                label = f"{direction}, common window"
                ax.plot(xs, ys, marker="x", linestyle="--", color=COLOURS[direction], label=label)
        ax.set_title(title)
        ax.set_xlabel("consumers")
        ax.set_ylabel(ylabel)
        if log:
            ax.set_yscale("log")
        ax.grid(True, alpha=0.3)
        if ax.get_legend_handles_labels()[0]:
            ax.legend()
    if not plotted:
        plt.close(fig)
        return None
    return save(fig, directory, stem)


def consumer_plots(steps: Sequence[dict[str, Any]], directory: Path, prefix: str) -> list[str]:
    """IOPS, bandwidth and latency against the number of consumers."""
    made = [
        _against_consumers(
            steps,
            directory,
            f"{prefix}-iops",
            [("IOPS per consumer", "iops_avg", 1.0), ("IOPS, all consumers", "iops_sum", 1.0)],
            "IOPS",
        ),
        _against_consumers(
            steps,
            directory,
            f"{prefix}-bandwidth",
            [
                ("MiB/s per consumer", "bandwidth_avg", 1 / 1024),
                ("MiB/s, all consumers", "bandwidth_sum", 1 / 1024),
            ],
            "MiB/s",
        ),
        _against_consumers(
            steps,
            directory,
            f"{prefix}-latency",
            [
                ("p95 completion latency, merged", "p95_merged", 1.0),
                ("p95, mean of consumers", "p95_consumer_mean", 1.0),
            ],
            "ms",
            log=True,
        ),
    ]
    return [m for m in made if m]


def distribution_plot(
    steps: Sequence[dict[str, Any]],
    records: dict[str, list[FioConsumerRecord]],
    directory: Path,
    prefix: str,
) -> str | None:
    """Per step, the share of I/Os completed within a latency (merged histograms)."""
    plt = pyplot()
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.6), squeeze=False)
    plotted = False
    for ax, direction in zip(axes[0], ("read", "write"), strict=True):
        for s in steps:
            figures = [getattr(r, direction) for r in records.get(s["step"], [])]
            bins = [f.clat_bins_ns for f in figures if f is not None and f.clat_bins_ns]
            if not bins:
                continue
            merged = stats.merge_histograms(bins)
            total, running, xs, ys = sum(merged.values()), 0, [], []
            for bucket, count in merged.items():
                running += count
                xs.append(bucket / 1e6)
                ys.append(running / total)
            ax.step(xs, ys, where="post", label=f"{s['concurrency']} consumers")
            plotted = True
        ax.set_xscale("log")
        ax.set_title(f"{direction}: completion latency distribution")
        ax.set_xlabel("ms")
        ax.set_ylabel("share of I/Os")
        ax.grid(True, alpha=0.3)
        if ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize="small")
    if not plotted:
        plt.close(fig)
        return None
    return save(fig, directory, f"{prefix}-distribution")


def tps_plot(steps: Sequence[dict[str, Any]], directory: Path, stem: str) -> str | None:
    """TPS against threads, one line per number of consumers: per consumer and in total,
    as the multi-tenant database studies draw it."""
    plt = pyplot()
    by_count: dict[int, list[tuple[int, float, float]]] = {}
    for s in steps:
        db = s.get("db") or {}
        if db.get("tps_total") is None or s.get("threads") is None:
            continue
        by_count.setdefault(int(s["concurrency"]), []).append(
            (int(s["threads"]), db["tps_per_consumer"], db["tps_total"])
        )
    if not by_count:
        return None
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.6), squeeze=False)
    threads = sorted({t for points in by_count.values() for t, _, _ in points})
    for ax, title, index in (
        (axes[0][0], "TPS per consumer", 1),
        (axes[0][1], "TPS, all consumers", 2),
    ):
        for count, points in sorted(by_count.items()):
            points.sort()
            ax.plot(
                [p[0] for p in points],
                [p[index] for p in points],
                marker="o",
                label=f"{count} consumers",
            )
        ax.set_xticks(threads)
        ax.set_title(title)
        ax.set_xlabel("threads per consumer")
        ax.set_ylabel("transactions/s")
        ax.grid(True, alpha=0.3)
        ax.legend()
    return save(fig, directory, stem)


def capacity_plot(found: dict[str, Any], directory: Path, stem: str) -> str | None:
    """A capacity search's knee: each step a point, at the rate its consumers were asked
    for in all; its p99 against the objective, and the rate achieved against the rate
    asked (met in green, missed in red, each labelled with its consumer count)."""
    trials = found.get("trials") or []
    if not trials:
        return None
    plt = pyplot()
    rate = float(found["rate_iops"])
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.6), squeeze=False)
    latency, achieved = axes[0][0], axes[0][1]
    asked = [t["count"] * rate for t in trials]
    colours = ["tab:green" if t["met"] else "tab:red" for t in trials]
    for ax, values, title, label in (
        (latency, [t["p99_ms"] for t in trials], "p99 latency", "ms"),
        (achieved, [t["achieved_iops"] for t in trials], "rate achieved, all consumers", "IOPS"),
    ):
        points = [
            (x, y, c, t)
            for x, y, c, t in zip(asked, values, colours, trials, strict=True)
            if y is not None
        ]
        ax.scatter([p[0] for p in points], [p[1] for p in points], c=[p[2] for p in points])
        for x, y, _, trial in points:
            ax.annotate(str(trial["count"]), (x, y), textcoords="offset points", xytext=(4, 4))
        ax.set_title(title)
        ax.set_xlabel("rate asked, all consumers (IOPS)")
        ax.set_ylabel(label)
        ax.grid(True, alpha=0.3)
    objective = (found.get("search") or {}).get("p99_ms")
    if objective is not None:
        latency.axhline(
            objective, color="grey", linestyle="--", label=f"objective {objective:g} ms"
        )
        latency.legend()
    top = max(asked)
    achieved.plot([0, top], [0, top], color="grey", linestyle="--", label="as asked")
    achieved.legend()
    return save(fig, directory, stem)


def pace_plot(
    found: dict[str, Any], steps: Sequence[dict[str, Any]], directory: Path, stem: str
) -> str | None:
    """A capacity search's steps, one row each in the order of their counts: each
    consumer's IOPS second by second against the rate asked, and its seconds behind
    schedule (records/pace.py) from the same log; steps whose pace kept no seconds (before
    it did) are left out."""
    by_step = {s["step"]: s for s in steps}
    rows = []
    for trial in sorted(found.get("trials") or [], key=lambda t: int(t["count"])):
        consumers = ((by_step.get(trial["step"]) or {}).get("pace") or {}).get("consumers") or []
        if any(c.get("per_second") for c in consumers):
            rows.append((trial, consumers))
    if not rows:
        return None
    plt = pyplot()
    fig, axes = plt.subplots(
        len(rows), 2, figsize=(10, 1.9 * len(rows) + 0.6), squeeze=False, sharex=True
    )
    for (trial, consumers), (rate_ax, behind_ax) in zip(rows, axes, strict=True):
        outcome = "met" if trial["met"] else "missed"
        for consumer in consumers:
            seconds = consumer.get("per_second") or []
            xs = list(range(1, len(seconds) + 1))
            rate_ax.plot(xs, seconds, linewidth=0.8, alpha=0.6)
            behind = behind_schedule(seconds, float(consumer["asked_iops"]))
            behind_ax.plot(xs, behind, linewidth=0.8, alpha=0.6)
        rate_ax.axhline(float(found["rate_iops"]), color="grey", linestyle="--")
        rate_ax.set_ylim(bottom=0)
        behind_ax.set_ylim(bottom=0)
        rate_ax.set_ylabel(f"{trial['count']} consumers: {outcome}\nIOPS")
        behind_ax.set_ylabel("behind (s)")
        for ax in (rate_ax, behind_ax):
            ax.grid(True, alpha=0.3)
    axes[0][0].set_title("each consumer's IOPS, second by second (dashed: asked)")
    axes[0][1].set_title("seconds behind its schedule")
    for ax in axes[-1]:
        ax.set_xlabel("second of the step")
    return save(fig, directory, stem)


def phase_plot(steps: Sequence[dict[str, Any]], directory: Path, stem: str) -> str | None:
    """One row per step with phases: its consumers' IOPS second by second, summed and each
    its own, over bands of the backend's phases, the faults given marked where they were."""
    rows = [s for s in steps if (s.get("phases") or {}).get("per_second")]
    if not rows:
        return None
    plt = pyplot()
    fig, axes = plt.subplots(len(rows), 1, figsize=(10, 2.6 * len(rows) + 0.4), squeeze=False)
    for step, (ax,) in zip(rows, axes, strict=True):
        found = step["phases"]
        for phase in found["phases"]:
            start = phase["start_s"]
            ax.axvspan(start, start + phase["seconds"], color=PHASE_COLOURS.get(phase["state"]))
            ax.text(
                start,
                1.0,
                f" {phase['state']}",
                transform=ax.get_xaxis_transform(),
                va="top",
                fontsize=8,
            )
        summed: dict[float, float] = {}
        consumers = found["per_second"]
        for points in consumers.values():
            if len(consumers) > 1:
                ax.plot(*zip(*points, strict=True), linewidth=0.7, alpha=0.6)
            for t, iops in points:
                summed[round(t)] = summed.get(round(t), 0.0) + iops
        xs = sorted(summed)
        ax.plot(xs, [summed[x] for x in xs], color="black", linewidth=1.6, label="all consumers")
        for fault in step.get("faults") or []:
            if fault["at_s"] is None:
                continue
            ax.axvline(fault["at_s"], color="#b2182b", linestyle="--", linewidth=1)
            ax.text(
                fault["at_s"],
                0.02,
                f" {fault['action']} {fault.get('on') or 'osd.' + str(fault['osd'])}",
                transform=ax.get_xaxis_transform(),
                rotation=90,
                fontsize=7,
                color="#b2182b",
                va="bottom",
            )
        ax.set_ylim(bottom=0)
        ax.set_ylabel(f"{step['step']}\nIOPS")
        ax.grid(True, alpha=0.3)
    axes[-1][0].set_xlabel("seconds from the step's measured start")
    return save(fig, directory, stem)


def migration_plot(
    steps: Sequence[dict[str, Any]],
    events: dict[str, list[EventRecord]],
    directory: Path,
    stem: str,
) -> str | None:
    """A timeline per step: each pod from the node's failure to Running and Ready on
    another node, its client's io-pause, and when all were back."""
    plt = pyplot()
    timelines = []
    for s in steps:
        mine = events.get(str(s.get("step")), [])
        failed = next((e for e in mine if e.event == "all-back"), None)
        if failed is not None and failed.start_ms is not None:
            timelines.append((s, mine, failed))
    if not timelines:
        return None
    fig, axes = plt.subplots(len(timelines), 1, figsize=(9, 1.2 + 0.7 * len(steps)), squeeze=False)
    for ax, (s, mine, failed) in zip([a[0] for a in axes], timelines, strict=False):
        zero = failed.start_ms or 0
        consumers = sorted({e.consumer for e in mine if e.consumer != "all"})
        for row, consumer in enumerate(consumers):
            of = {e.event: e for e in mine if e.consumer == consumer}
            for event, colour in (("server-recovery", "tab:blue"), ("pod-replaced", "lightblue")):
                e = of.get(event)
                if e is not None and e.seconds is not None:
                    ax.barh(row, e.seconds, left=0, height=0.5, color=colour)
            pause = of.get("io-pause")
            if pause is not None and pause.seconds and pause.start_ms is not None:
                start = (pause.start_ms - zero) / 1000
                ax.barh(
                    row - 0.3,
                    pause.seconds,
                    left=start,
                    height=0.2,
                    color="none",
                    edgecolor="tab:red",
                    hatch="///",
                )
        if failed.seconds is not None:
            ax.axvline(failed.seconds, color="black", linestyle="--", linewidth=1)
        ax.set_yticks(range(len(consumers)), consumers)
        ax.set_title(f"{s.get('step')}: {failed.detail}", fontsize=9)
        ax.set_xlabel("seconds after the node failed")
        ax.grid(True, axis="x", alpha=0.3)
    return save(fig, directory, stem)


def app_plot(steps: Sequence[dict[str, Any]], directory: Path, stem: str) -> str | None:
    """An application workload's phases: each one's mean seconds stacked into an
    iteration's, one bar per step."""
    measured = [s for s in steps if (s.get("app") or {}).get("iteration_s") is not None]
    if not measured:
        return None
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(6.4, 3.6))
    labels = [
        f"{s['concurrency']}" + (f" #{s['repeat']}" if s.get("repeat", 1) > 1 else "")
        for s in measured
    ]
    bottom = [0.0] * len(measured)
    for phase in PHASES[measured[0]["app"]["tool"]]:
        heights = [s["app"].get(f"{phase}_s") or 0.0 for s in measured]
        ax.bar(labels, heights, bottom=bottom, label=phase)
        bottom = [b + h for b, h in zip(bottom, heights, strict=True)]
    ax.set_xlabel("consumers")
    ax.set_ylabel("seconds (mean per consumer)")
    ax.grid(True, axis="y", alpha=0.3)
    ax.legend()
    return save(fig, directory, stem)


def throughput_plot(
    steps: Sequence[dict[str, Any]], directory: Path, stem: str, phases: tuple[str, str], unit: str
) -> str | None:
    """redis and broker: each phase's operations (messages) per second, summed over the
    consumers and per consumer, one group per step."""
    measured = [s for s in steps if (s.get("app") or {}).get(f"{phases[1]}_ops_s") is not None]
    if not measured:
        return None
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(6.4, 3.6))
    places = list(range(len(measured)))
    for offset, (phase, colour) in enumerate(zip(phases, ("tab:blue", "tab:red"), strict=True)):
        at = [p + (offset - 0.5) * 0.38 for p in places]
        sums = [s["app"].get(f"{phase}_ops_s") or 0.0 for s in measured]
        each = [s["app"].get(f"{phase}_ops_s_per_consumer") or 0.0 for s in measured]
        ax.bar(at, sums, width=0.36, color=colour, alpha=0.6, label=f"{phase}, sum")
        ax.plot(at, each, "o", color=colour, label=f"{phase}, per consumer")
    ax.set_xticks(places)
    ax.set_xticklabels(
        [
            f"{s['concurrency']}" + (f" #{s['repeat']}" if s.get("repeat", 1) > 1 else "")
            for s in measured
        ]
    )
    ax.set_xlabel("consumers")
    ax.set_ylabel(unit)
    ax.grid(True, axis="y", alpha=0.3)
    ax.legend(fontsize="small")
    return save(fig, directory, stem)


def rally_plots(rows: list[dict[str, str]], directory: Path) -> list[dict[str, str]]:
    """Per scenario: each top-level action's median and 95th percentile against concurrency
    (needs two concurrencies or more to be a plot)."""
    plt = pyplot()
    if not rows:
        return []
    by_scenario: dict[str, dict[str, list[tuple[int, float, float]]]] = {}
    for row in rows:  # rally.csv's
        if row["depth"] != "0" or not row["median_s"] or not row["concurrency"]:
            continue
        actions = by_scenario.setdefault(row["scenario"], {})
        point = (int(row["concurrency"]), float(row["median_s"]), float(row["p95_s"]))
        actions.setdefault(row["action"], []).append(point)
    made = []
    for index, (scenario, actions) in enumerate(by_scenario.items(), start=1):
        counts = sorted({c for points in actions.values() for c, _, _ in points})
        if len(counts) < 2:
            continue
        fig, ax = plt.subplots(figsize=(8.5, 4))
        for number, (action, points) in enumerate(actions.items()):
            points.sort()
            colour = f"C{number % 10}"
            xs = [c for c, _, _ in points]
            ax.plot(xs, [m for _, m, _ in points], "o-", color=colour, label=action)
            ax.plot(xs, [p for _, _, p in points], "s--", color=colour, alpha=0.7)
        ax.set_xticks(counts)
        ax.set_xlabel("concurrency")
        ax.set_ylabel("seconds")
        ax.set_title(scenario, fontsize=9)
        ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0))
        ax.grid(alpha=0.3)
        made.append({"stem": save(fig, directory, f"r{index}-rally"), "scenario": scenario})
    return made


def node_plot(
    steps: Sequence[dict[str, Any]], raw_dirs: dict[str, Path], directory: Path
) -> str | None:
    """Every node's per-second CPU busy, and its busiest disk's IOPS and utilisation,
    over the campaign's time (seconds from its first sample), from the raw samples."""
    busiest: dict[str, dict[str, float]] = {}  # node -> device -> summed mean IOPS
    for s in steps:
        for n in s.get("nodes") or []:
            for d in n.get("disks") or []:
                devices = busiest.setdefault(n["node"], {})
                devices[d["device"]] = devices.get(d["device"], 0.0) + d["iops_mean"]
    if not busiest:
        return None
    device_of = {node: max(devices, key=devices.__getitem__) for node, devices in busiest.items()}
    plt = pyplot()
    fig, axes = plt.subplots(3, 1, figsize=(10, 7), sharex=True)
    origin: float | None = None
    lines: dict[str, list[list[float]]] = {}  # node -> [t, cpu %, IOPS, util %] points
    starts = []
    for s in steps:
        samples = node_samples(raw_dirs[s["step"]]) if s["step"] in raw_dirs else {}
        for node, series in samples.items():
            if node not in busiest or len(series) < 2:
                continue
            device = device_of[node]
            origin = series[0].t if origin is None else min(origin, series[0].t)
            points = lines.setdefault(node, [])
            for a, b in zip(series, series[1:], strict=False):
                iops, _, util, _ = disk_rates(a, b, device)
                busy = cpu_busy(a, b)
                points.append([b.t, busy * 100 if busy is not None else float("nan"), iops, util])
            points.append([series[-1].t, float("nan"), float("nan"), float("nan")])  # a gap
        firsts = [series[0].t for series in samples.values() if series]
        if firsts:
            starts.append((min(firsts), s["step"].split("-")[0]))
    if origin is None:
        plt.close(fig)
        return None
    for node, points in sorted(lines.items()):
        device = device_of[node]
        xs = [p[0] - origin for p in points]
        axes[0].plot(xs, [p[1] for p in points], label=node)
        axes[1].plot(xs, [p[2] for p in points], label=f"{node}: {device}")
        axes[2].plot(xs, [p[3] * 100 for p in points], label=f"{node}: {device}")
    for ax, label in zip(axes, ("CPU busy %", "disk IOPS", "disk util %"), strict=True):
        ax.set_ylabel(label)
        ax.grid(True, alpha=0.3)
        for when, _ in starts:
            ax.axvline(when - origin, color="grey", linestyle=":", linewidth=0.8)
        ax.legend(fontsize="small", loc="upper right")
    for when, number in starts:
        axes[0].annotate(
            number,
            (when - origin, 1),
            xycoords=("data", "axes fraction"),
            fontsize="x-small",
            va="top",
        )
    axes[2].set_xlabel("seconds since the first sample")
    return save(fig, directory, "nodes")


def plot_of(
    plot: Plot,
    steps: Sequence[dict[str, Any]],
    events: dict[str, list[EventRecord]],
    directory: Path,
    prefix: str,
) -> str | None:
    """A tool's steps drawn as its declaration asks (``Plot``: its kind, its file's name)."""
    stem = f"{prefix}-{plot.name}"
    if plot.kind == "throughput":
        return throughput_plot(steps, directory, stem, (plot.phases[0], plot.phases[1]), plot.unit)
    if plot.kind == "phases":
        return app_plot(steps, directory, stem)
    if plot.kind == "migration":
        return migration_plot(steps, events, directory, stem)
    return tps_plot(steps, directory, stem)
