"""The figures volperf compares, follows over time and tabulates, each named once: the key
a step's summary keeps it under, its label, its unit, which way is better, and the
shorter header a table of one tool's steps gives it. ``volperf compare``, the history,
the repeats' spread and the database tools' tables take their words from here."""

from __future__ import annotations

from dataclasses import dataclass

# how much a figure moves between two runs with nothing changed, by kind (records/noise.py)
RATE = "rates"  # IOPS, bandwidth, TPS
MEAN = "mean times"  # mean and median latencies and times
TAIL = "p95s"  # p95 latencies and times, the slowest consumer's load
FAR_TAIL = "p99s and maxima"
COUNT = "counts"  # failed iterations, success %: a change is a change


@dataclass(frozen=True)
class Figure:
    name: str  # its key in a section of a step's summary (read, write, db, events, …)
    label: str  # comparisons, history, repeats
    unit: str
    higher_is_better: bool
    header: str = ""  # a tool's table of its steps, where that says it shorter
    noise: str = ""  # its kind for noise; "": a rate when more is better, else a mean time

    @property
    def column(self) -> str:
        return self.header or self.label

    @property
    def noise_kind(self) -> str:
        return self.noise or (RATE if self.higher_is_better else MEAN)


def _named(*figures: Figure) -> dict[str, Figure]:
    return {f.name: f for f in figures}


# fio, per direction (a step's read or write section, or its common window's); headers:
# the terminal's summary of a campaign
FIO = _named(
    Figure("iops_avg", "IOPS per consumer", "IOPS", True, "IOPS avg"),
    Figure("iops_sum", "IOPS, sum", "IOPS", True, "IOPS sum"),
    Figure("bandwidth_sum", "KiB/s, sum", "KiB/s", True),
    Figure("clat_mean_avg", "mean latency ms", "ms", False),
    Figure("p95_merged", "p95 ms (merged)", "ms", False, "p95 ms", TAIL),
    Figure("p95_consumer_mean", "p95 ms (mean of consumers)", "ms", False, "p95 mean", TAIL),
    Figure("p99_merged", "p99 ms (merged)", "ms", False, "p99 ms", FAR_TAIL),
)
# the database tools (a step's db section): sums over consumers, the slowest load, the
# highest consumer's p95
DB = _named(
    Figure("load_time_s_max", "load time s (slowest)", "s", False, "load s", TAIL),
    Figure("reads_per_s_total", "reads/s, sum", "reads/s", True, "reads/s"),
    Figure("writes_per_s_total", "writes/s, sum", "writes/s", True, "writes/s"),
    Figure("fsyncs_per_s_total", "fsyncs/s, sum", "fsyncs/s", True, "fsyncs/s"),
    Figure("read_mib_s_total", "read MiB/s, sum", "MiB/s", True, "read MiB/s"),
    Figure("written_mib_s_total", "written MiB/s, sum", "MiB/s", True, "written MiB/s"),
    Figure("tps_total", "TPS, sum", "TPS", True, "TPS sum"),
    Figure("tps_per_consumer", "TPS per consumer", "TPS", True),
    Figure("qps_total", "QPS, sum", "QPS", True, "QPS sum"),
    Figure("latency_avg_ms", "mean latency ms", "ms", False, "latency avg ms"),
    Figure(
        "latency_p95_ms_highest", "p95 ms (highest consumer)", "ms", False, "p95 ms (highest)", TAIL
    ),
)
# times of a step's PVCs and pods (pvc-provision)
TIMES = _named(
    Figure("p50_s", "p50 s", "s", False),
    Figure("p95_s", "p95 s", "s", False, noise=TAIL),
    Figure("max_s", "max s", "s", False, noise=FAR_TAIL),
)
# a step's events of one kind (io-pause's pauses, a migration's moves)
EVENTS = _named(
    Figure("mean_s", "mean s", "s", False), Figure("max_s", "max s", "s", False, noise=FAR_TAIL)
)
# a faulted step's phases (records/phases.py: its phases' sum), each phase's own figures
BACKEND_PHASES = _named(
    Figure("iops", "IOPS, sum", "IOPS", True),
    Figure("kept_pct", "IOPS kept % of healthy", "%", True),
    Figure("longest_stall_s", "longest stall s", "s", False, noise=FAR_TAIL),
    Figure("p99_ms", "p99 ms", "ms", False, noise=FAR_TAIL),
    # how long the backend stayed in a state: like the time it took to heal
    Figure("seconds", "seconds", "s", False, noise=FAR_TAIL),
)
# how long the backend took to heal, and (Ceph) how fast it recovered
RECOVERY = _named(
    Figure("fault_to_healed_s", "fault to healed s", "s", False, noise=FAR_TAIL),
    Figure("seconds", "recovering s", "s", False, noise=FAR_TAIL),
    Figure("bytes_per_s", "recovered B/s", "B/s", True),
)
# a Rally workload's iterations in one phase of its backend (planes/rally/phases.py)
RALLY_PHASES = _named(
    Figure("median_s", "median s", "s", False),
    Figure("max_s", "slowest s", "s", False, noise=FAR_TAIL),
    Figure("failed", "failed iterations", "iterations", False, noise=COUNT),
    Figure("seconds", "seconds", "s", False, noise=FAR_TAIL),
)
# a Rally action's response times and its iterations' success
RALLY = _named(
    Figure("median_s", "median s", "s", False),
    Figure("p95_s", "p95 s", "s", False, noise=TAIL),
    Figure("success_pct", "success %", "%", True, noise=COUNT),
)


# an application workload's iterations (records/compare.py; its phases' times beside them)
ITERATIONS = _named(
    Figure("iteration_s", "iteration s (mean)", "s", False),
    Figure("iteration_s_max", "iteration s (slowest)", "s", False, noise=FAR_TAIL),
    Figure("failed", "failed iterations", "iterations", False, noise=COUNT),
)


def pick(catalogue: dict[str, Figure], *names: str) -> list[Figure]:
    return [catalogue[n] for n in names]


def metrics(catalogue: dict[str, Figure], *names: str) -> list[tuple[str, str, bool]]:
    """(name, label, True when higher is better) of the named figures, in that order."""
    return [(f.name, f.label, f.higher_is_better) for f in (catalogue[n] for n in names)]
