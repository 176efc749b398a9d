"""Rows of the report's tables, as plain lists of formatted cells (pure functions)."""

from __future__ import annotations

from typing import Any

from harness.core.workloads.columns import cell, figure
from harness.core.workloads.registry import TOOLS
from harness.core.workloads.registry import tool as by_tag
from harness.planes import registry
from harness.records.repeats import CV_FLAG, repeat_spreads

DIRECTIONS = ("read", "write")


def runtime_s(step: dict[str, Any]) -> str:
    started, finished = step.get("started"), step.get("finished")
    if step.get("runtime_s") is not None:
        return cell(step["runtime_s"])
    return cell(finished - started) if started and finished else "–"


KIB_TO_MIB = 1 / 1024


def average_rows(steps: list[dict[str, Any]]) -> list[list[str]]:
    """Average per consumer, readers and writers apart (the reference's 'Average data')."""
    return [
        [
            str(s.get("concurrency")),
            figure(s, "read", "iops_avg"),
            figure(s, "write", "iops_avg"),
            figure(s, "read", "bandwidth_avg", 1, KIB_TO_MIB),
            figure(s, "write", "bandwidth_avg", 1, KIB_TO_MIB),
            figure(s, "read", "clat_mean_avg", 3),
            figure(s, "write", "clat_mean_avg", 3),
            figure(s, "read", "p95_consumer_mean", 3),
            figure(s, "write", "p95_consumer_mean", 3),
        ]
        for s in steps
    ]


def sum_rows(steps: list[dict[str, Any]]) -> list[list[str]]:
    """Sum over consumers (the reference's 'Summary data')."""
    return [
        [
            str(s.get("concurrency")),
            figure(s, "read", "iops_sum"),
            figure(s, "write", "iops_sum"),
            figure(s, "read", "bandwidth_sum", 1, KIB_TO_MIB),
            figure(s, "write", "bandwidth_sum", 1, KIB_TO_MIB),
        ]
        for s in steps
    ]


def window_rows(steps: list[dict[str, Any]]) -> list[list[str]]:
    """Each step over its common window beside the whole run, and whether the summed
    IOPS was steady over the window (SNIA's criteria): steps whose fio wrote logs."""
    rows = []
    for s in steps:
        window = s.get("window")
        if window is None:
            continue
        for d in DIRECTIONS:
            if not s.get(d):
                continue
            steady = _steady_cell(s, ((window.get(d) or {}).get("steady") or {}).get("steady"))
            rows.append(
                [
                    str(s.get("concurrency")),
                    d,
                    cell(window.get("seconds"), 1),
                    cell(window.get("start_spread_s"), 2),
                    figure(window, d, "iops_sum"),
                    figure(s, d, "iops_sum"),
                    figure(window, d, "bandwidth_sum", 1, KIB_TO_MIB),
                    figure(s, d, "bandwidth_sum", 1, KIB_TO_MIB),
                    figure(window, d, "clat_mean_avg", 3),
                    figure(s, d, "clat_mean_avg", 3),
                    figure(window, d, "p99_merged", 3),
                    steady,
                ]
            )
    return rows


def _steady_cell(step: dict[str, Any], snia: bool | None) -> str:
    """fio's own verdict where the workload asked for it, else SNIA's on the window."""
    fio = step.get("steadystate")
    if fio:
        return f"fio: {fio['attained']} of {len(fio['consumers'])} attained"
    return "–" if snia is None else ("steady" if snia else "not steady")


def tail_rows(steps: list[dict[str, Any]]) -> list[list[str]]:
    """Tail latency: merged histograms beside the mean of per-consumer percentiles."""
    rows = []
    for s in steps:
        for d in DIRECTIONS:
            if s.get(d):
                rows.append(
                    [
                        str(s.get("concurrency")),
                        d,
                        figure(s, d, "p95_merged", 3),
                        figure(s, d, "p95_consumer_mean", 3),
                        figure(s, d, "p99_merged", 3),
                        figure(s, d, "p99_consumer_mean", 3),
                        figure(s, d, "clat_max", 3),
                    ]
                )
    return rows


def run_rows(steps: list[dict[str, Any]]) -> list[list[str]]:
    """How each step ran: state, overlap, the device's view, host load, stalls."""
    rows = []
    for s in steps:
        device = s.get("device") or {}
        host = s.get("host") or {}
        overlap = s.get("overlap")
        gap = device.get("iops_gap")
        busy = host.get("cpu_busy")
        rows.append(
            [
                s["step"],
                str(s.get("concurrency")),
                s.get("state", ""),
                f"{overlap:.0%}" + (" (est.)" if s.get("overlap_estimated") else "")
                if overlap is not None
                else "–",
                cell(device.get("device_iops")),
                cell(device.get("fio_iops")),
                f"{gap:.1%}" if gap is not None else "–",
                f"{busy:.0%}" if busy is not None else "–",
                stall_cell(s.get("stalls")),
            ]
        )
    return rows


def stall_cell(stalls: dict[str, Any] | None) -> str:
    """A step's stalls: how many, the longest and all stalled time; – when not logged."""
    if not stalls:
        return "–"
    if not stalls["count"]:
        return "0"
    return (
        f"{stalls['count']}: longest {stalls['longest_s']:.1f} s, {stalls['total_s']:.1f} s in all"
    )


COST_HEADER = [
    "step",
    "consumers",
    "wall s",
    "volperf CPU s",
    "CPU s per consumer",
    "CPU of wall",
    "peak RSS MiB",
    "API calls",
    "of which not the step's own",
]


def cost_rows(steps: list[dict[str, Any]]) -> list[list[str]]:
    """volperf's own cost in each step that measured it: its process's CPU (per
    consumer, and as a share of the step's wall time), peak memory, and API calls; and
    what of them went to work that is not the step's own (the k8s node sampler)."""
    rows = []
    for s in steps:
        cost = s.get("cost")
        if not cost:
            continue
        peak = cost.get("peak_rss_bytes")
        calls = cost.get("api_calls") or {}
        rows.append(
            [
                s["step"],
                str(s.get("concurrency")),
                cell(cost["wall_s"], 1),
                cell(cost["cpu_s"], 2),
                cell(cost.get("cpu_s_per_consumer"), 3),
                f"{cost['cpu_s'] / cost['wall_s']:.1%}" if cost["wall_s"] else "–",
                (cell(peak / 2**20, 0) if peak is not None else "–")
                + (" (since start)" if cost.get("peak_since") == "process" else ""),
                _calls_cell(calls) or "0",
                "; ".join(
                    _part_cell(name, part) for name, part in (cost.get("parts") or {}).items()
                )
                or "–",
            ]
        )
    return rows


def _calls_cell(calls: dict[str, int]) -> str:
    return ", ".join(f"{service} {n}" for service, n in sorted(calls.items()))


def _part_cell(name: str, part: dict[str, Any]) -> str:
    calls = _calls_cell(part.get("api_calls") or {})
    return f"{name}: {part['cpu_s']:.2f} CPU s" + (f", {calls} API calls" if calls else "")


def repeat_rows(steps: list[dict[str, Any]]) -> list[list[str]]:
    """Each figure's repeats, mean and coefficient of variation; a CV over 10 % flagged."""
    rows = []
    for r in repeat_spreads(steps):
        digits = 0 if r.mean >= 100 else 3
        rows.append(
            [
                str(r.concurrency) + (f" × {r.threads} threads" if r.threads else ""),
                r.direction,
                r.label,
                ", ".join(cell(v, digits) for v in r.values),
                cell(r.mean, digits),
                f"{r.cv:.1%}" if r.cv is not None else "–",
                f"CV over {CV_FLAG:.0%}" if r.flagged else "",
            ]
        )
    return rows


def warning_items(steps: list[dict[str, Any]]) -> list[str]:
    items = []
    for s in steps:
        if s.get("ended_sweep"):
            ended = f"the sweep of {s['workload']} ended here: {s['ended_sweep']}"
            items.append(f"{s['step']}: {ended}")
        if s.get("state") not in (None, "done", "skipped"):
            items.append(f"{s['step']}: step {s['state']}: {s.get('error') or 'no error text'}")
        for w in s.get("warnings", []):
            items.append(f"{s['step']}: {w['message']}")
    return items


# database workloads (records/db_step.py), provisioning and the applications (app_step.py):
# each tool's table, as its declaration gives it (harness/core/workloads: columns)
DB_HEADERS = {t.tag: [c.label for c in t.columns] for t in TOOLS if t.columns}


def db_rows(steps: list[dict[str, Any]], tool: str) -> list[list[str]]:
    """Each step's row of the tool's table: sums over consumers and per-consumer averages,
    as the database studies show them (sysbench fileio rates, TPS per instance and in
    total, pgbench load time …), provisioning's times, the applications' phases."""
    columns = by_tag(tool).columns
    return [[column.cell(s) for column in columns] for s in steps]


STORAGE_HEADER = [
    "consumers",
    "threads",
    "data MiB",
    "memory MiB",
    "device reads/s",
    "device writes/s",
    "device read MiB/s",
    "device write MiB/s",
    "measured",
]


def storage_rows(steps: list[dict[str, Any]]) -> list[list[str]]:
    """Per database step: the largest consumer's data on disk, the memory its database
    may keep it in, and the device's own I/O while the clients ran."""
    rows = []
    for s in steps:
        use = s.get("storage")
        if not use:
            continue
        mib = {
            k: use[k] / 2**20 if use.get(k) is not None else None
            for k in ("data_bytes", "memory_bytes")
        }
        rows.append(
            [
                str(s.get("concurrency")),
                str(s.get("threads") or ""),
                cell(mib["data_bytes"], 1),
                cell(mib["memory_bytes"], 0),
                cell(use.get("device_read_iops"), 1),
                cell(use.get("device_write_iops"), 1),
                cell(use.get("device_read_mib_s"), 2),
                cell(use.get("device_write_mib_s"), 2),
                "memory, not storage" if use.get("memory_not_storage") else "storage",
            ]
        )
    return rows


HEAT_TIMES = ("volume-create", "server-create", "volume-attach", "agent-result")


def heat_rows(steps: list[dict[str, Any]]) -> list[list[str]]:
    """VMs through Heat: per step, VMs that answered, and create times (median / max s)."""
    rows = []
    for s in steps:
        heat = s.get("heat")
        if not heat:
            continue
        times = heat.get("create_s", {})

        def spread(kind: str, times: dict[str, Any] = times) -> str:
            t = times.get(kind)
            return f"{t['median']:.0f} / {t['max']:.0f}" if t else "–"

        rows.append(
            [
                str(s.get("concurrency")),
                str(len(heat.get("stacks", []))),
                f"{heat['vms'] - heat['vms_failed']} of {heat['vms']}",
                cell((times.get("stack-create") or {}).get("max")),
                *(spread(kind) for kind in HEAT_TIMES),
            ]
        )
    return rows


def qos_rows(steps: list[dict[str, Any]]) -> list[list[str]]:
    """Each VM's volume type, its QoS limits and the rates they bound, as measured."""
    rows = []
    for s in steps:
        for consumer, c in sorted(((s.get("heat") or {}).get("qos") or {}).items()):
            limits = c.get("limits") or {}
            rows.append(
                [
                    str(s.get("concurrency")),
                    consumer,
                    c.get("volume_type") or "–",
                    c.get("qos_consumer") or "none",
                    "; ".join(f"{k} {v:,.0f}" for k, v in limits.items()) or "–",
                    "; ".join(f"{c['measured'][k]:,.0f}" for k in limits) or "–",
                    ("exceeded: " + ", ".join(c["exceeded"]))
                    if c.get("exceeded")
                    else ("within" if limits else "–"),
                ]
            )
    return rows


def vm_rows(steps: list[dict[str, Any]], records: dict[str, list[Any]]) -> list[list[str]]:
    """Every VM's own result: IOPS, MiB/s, mean and p95 completion latency, or its error."""
    rows = []
    for s in steps:
        for r in records.get(s["step"], []):
            # a step that ran its VMs several times over (Rally's iterations) names the run
            vm = (
                f"{r.context.consumer}, run {r.context.repeat}"
                if s.get("runs")
                else r.context.consumer
            )
            figures = r.read or r.write
            if figures is None:
                rows.append(
                    [
                        str(s.get("concurrency")),
                        vm,
                        r.context.rw,
                        "–",
                        "–",
                        "–",
                        "–",
                        r.error,
                    ]
                )
                continue
            rows.append(
                [
                    str(s.get("concurrency")),
                    vm,
                    r.context.rw,
                    cell(figures.iops),
                    cell(figures.bandwidth * KIB_TO_MIB, 1),
                    cell(figures.complelatency_mean, 3),
                    cell(figures.complelatency_p95, 3),
                    r.error,
                ]
            )
    return rows


NODE_HEADER = [
    "step",
    "node",
    "window s",
    "CPU busy %",
    "memory used GiB",
    "busiest disk",
    "IOPS",
    "MiB/s",
    "util %",
    "await ms",
    "busiest interface",
    "received MiB/s",
    "sent MiB/s",
]


def _mean_peak(mean: float | None, peak: float | None, scale: float = 1.0, digits: int = 0) -> str:
    """'mean / peak' of a figure."""
    if mean is None:
        return "–"
    peak_text = cell(peak * scale, digits) if peak is not None else "–"
    return f"{cell(mean * scale, digits)} / {peak_text}"


def node_rows(steps: list[dict[str, Any]]) -> list[list[str]]:
    """Each node's load in each step: the mean over the step's window and the busiest
    second, its busiest disk and interface (nodes.csv has every one)."""
    rows = []
    for s in steps:
        for n in s.get("nodes") or []:
            disk = (n.get("disks") or [None])[0]
            net = (n.get("nets") or [None])[0]
            rows.append(
                [
                    s["step"],
                    n["node"],
                    cell(n["seconds"], 1),
                    _mean_peak(n["cpu_busy_mean"], n["cpu_busy_peak"], 100),
                    _mean_peak(n["mem_used_mean_kib"], n["mem_used_peak_kib"], 1 / 2**20, 2),
                    disk["device"] if disk else "–",
                    _mean_peak(disk["iops_mean"], disk["iops_peak"]) if disk else "–",
                    _mean_peak(disk["kib_s_mean"], disk["kib_s_peak"], KIB_TO_MIB, 1)
                    if disk
                    else "–",
                    _mean_peak(disk["util_mean"], disk["util_peak"], 100) if disk else "–",
                    cell(disk["await_ms"], 2) if disk else "–",
                    net["interface"] if net else "–",
                    _mean_peak(net["rx_kib_s_mean"], net["rx_kib_s_peak"], KIB_TO_MIB, 2)
                    if net
                    else "–",
                    _mean_peak(net["tx_kib_s_mean"], net["tx_kib_s_peak"], KIB_TO_MIB, 2)
                    if net
                    else "–",
                ]
            )
    return rows


OSD_HEADER = [
    "step",
    "OSD",
    "window s",
    "reads/s",
    "writes/s",
    "read MiB/s",
    "write MiB/s",
    "read ms",
    "write ms",
]


def osd_rows(steps: list[dict[str, Any]]) -> list[list[str]]:
    """Each Ceph OSD's client operations in each step, as its own perf counters tell:
    mean / busiest interval of reads and writes, the mean of the rest."""
    return [
        [
            s["step"],
            o["osd"],
            cell(o["seconds"], 1),
            _mean_peak(o["reads_s_mean"], o["reads_s_peak"]),
            _mean_peak(o["writes_s_mean"], o["writes_s_peak"]),
            cell(o["read_kib_s_mean"] * KIB_TO_MIB, 1),
            cell(o["write_kib_s_mean"] * KIB_TO_MIB, 1),
            cell(o["read_ms"], 2),
            cell(o["write_ms"], 2),
        ]
        for s in steps
        for o in s.get("ceph_osds") or []
    ]


CAPACITY_HEADER = [
    "step",
    "consumers",
    "asked IOPS",
    "achieved IOPS",
    "slowest consumer % of its rate",
    "most behind s",
    "p50 ms",
    "p99 ms",
    "objective",
]


def capacity_rows(found: dict[str, Any]) -> list[list[str]]:
    """A capacity search's steps, in the order it tried them."""
    rate = float(found["rate_iops"])

    def cell(value: float | None, digits: int) -> str:
        return "" if value is None else f"{value:,.{digits}f}"

    return [
        [
            trial["step"],
            str(trial["count"]),
            f"{trial['count'] * rate:,.0f}",
            cell(trial["achieved_iops"], 0),
            cell(trial["worst_achieved_pct"], 1),
            cell(trial["most_behind_s"], 2),
            _latency(trial["p50_ms"]),
            _latency(trial["p99_ms"]),
            "met" if trial["met"] else f"missed: {trial['why']}",
        ]
        for trial in found["trials"]
    ]


PHASE_HEADER = [
    "step",
    "phase",
    "from s",
    "seconds",
    "IOPS, sum",
    "% of healthy",
    "longest stall s",
    "p99 ms",
]


def _said(words: list[str | None]) -> list[str]:
    """Each backend's words for its states, once; a split kept before they were stored
    (None), in Ceph's, the only backend split then (its plane's, read only then)."""
    if None in words:
        [ceph] = [p.phase_sources[0].words for p in registry.planes() if p.name == "ceph"]
        words = [w or ceph for w in words]
    return sorted({w for w in words if w})


def phase_sources(steps: list[dict[str, Any]]) -> list[str]:
    """How each backend whose steps were split said its state (its plane's words)."""
    return _said([(s.get("phases") or {}).get("states_from") for s in steps if s.get("phases")])


def rally_phase_sources(steps: list[dict[str, Any]]) -> list[str]:
    """How each backend whose Rally workloads were split said its state."""
    return _said([w["phases"].get("states_from") for _, w in _rally_faulted(steps)])


def phase_rows(steps: list[dict[str, Any]]) -> list[list[str]]:
    """Each phase of the steps whose backend was not healthy all through (records/
    phases.py), all consumers together."""
    rows = []
    for step in steps:
        for phase in (step.get("phases") or {}).get("sum", []):
            rows.append(
                [
                    step["step"],
                    phase["state"],
                    f"{phase['start_s']:.1f}",
                    f"{phase['seconds']:.1f}",
                    "" if phase["iops"] is None else f"{phase['iops']:,.0f}",
                    "" if phase["kept_pct"] is None else f"{phase['kept_pct']:.0f}",
                    f"{phase['longest_stall_s']:.1f}",
                    # only where fio kept its per-second histograms (histogram_logs)
                    "" if phase.get("p99_ms") is None else f"{phase['p99_ms']:.2f}",
                ]
            )
    return rows


RALLY_PHASE_HEADER = [
    "step",
    "scenario",
    "phase",
    "from s",
    "seconds",
    "iterations",
    "failed",
    "median s",
    "max s",
]


def _rally_faulted(steps: list[dict[str, Any]]) -> list[tuple[str, dict[str, Any]]]:
    """(step, workload) of each Rally workload that was given faults."""
    return [
        (step["step"], workload)
        for step in steps
        for workload in (step.get("rally") or {}).get("workloads") or []
        if workload.get("phases")
    ]


def rally_phase_rows(steps: list[dict[str, Any]]) -> list[list[str]]:
    """Each phase of the Rally workloads given faults (planes/rally/phases.py): the
    iterations that started in it and Rally's durations of them."""
    return [
        [
            step,
            workload["scenario"],
            phase["state"],
            f"{phase['start_s']:.1f}",
            f"{phase['seconds']:.1f}",
            str(phase["iterations"]),
            str(phase["failed"]),
            "" if phase["median_s"] is None else f"{phase['median_s']:.2f}",
            "" if phase["max_s"] is None else f"{phase['max_s']:.2f}",
        ]
        for step, workload in _rally_faulted(steps)
        for phase in workload["phases"]["phases"]
    ]


def rally_fault_lines(steps: list[dict[str, Any]]) -> list[str]:
    """Each fault a Rally workload's hooks gave: when, the commands, or why it failed; and
    the time from the first to healed."""
    lines = []
    for step, workload in _rally_faulted(steps):
        faulted = workload["phases"]
        for fault in faulted["faults"]:
            what = f"{step}, {workload['scenario']}: {fault['fault']} ({fault['action']})"
            if fault["error"]:
                lines.append(f"{what}: NOT given as asked: {fault['error']}")
                continue
            at = "" if fault["at_s"] is None else f" at +{fault['at_s']:.1f} s"
            lines.append(f"{what}: given{at}: {'; '.join(fault['commands']) or 'nothing to do'}")
        healed = faulted.get("fault_to_healed_s")
        lines.append(
            f"{step}, {workload['scenario']}: "
            + (
                "not healed by the workload's end"
                if healed is None
                else f"healed {healed:.1f} s after the first fault"
            )
        )
    return lines


def fault_lines(steps: list[dict[str, Any]]) -> list[str]:
    """Each fault volperf gave in a step: when, how long it took, the commands, or why it
    was not given."""
    lines = []
    for step in steps:
        for fault in step.get("faults") or []:
            label, action = fault["fault"], fault["action"]
            what = f"{step['step']}: {label if label.startswith(action) else f'{label} ({action})'}"
            if fault["error"]:
                lines.append(f"{what}: NOT given as asked: {fault['error']}")
                continue
            commands = "; ".join(fault["commands"]) or "nothing to do"
            lines.append(
                f"{what}: given at +{fault['at_s']:.1f} s, done in {fault['took_s']:.1f} s: "
                f"{commands}"
            )
    return lines


def recovery_lines(steps: list[dict[str, Any]]) -> list[str]:
    """What the backend recovered in each step where it did (Ceph: at its manager's
    rate, summed over the step's health samples)."""
    lines = []
    for step in steps:
        recovery = step.get("ceph_recovery")
        if recovery:
            rate = recovery["bytes_per_s"]
            lines.append(
                f"{step['step']}: Ceph recovered {recovery['bytes'] / 2**20:,.1f} MiB in "
                f"{recovery['seconds']:.1f} s"
                + ("" if rate is None else f" ({rate / 2**20:,.2f} MiB/s)")
                + ", at its manager's rate"
            )
    return lines


def _latency(ms: float | None) -> str:
    """A latency in ms to 3 significant digits: 0.00675 (a page cache's) as 102 (a queue's)."""
    return "" if ms is None else f"{ms:.3g}"
