"""Render fio job files from a workload and the consumers of one step."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from harness.core.spec import FioWorkload


@dataclass(frozen=True)
class JobTarget:
    """Where one consumer does its I/O: its own file, a region of a device, or an RBD
    image (with the rbd engine)."""

    jobname: str
    rw: str
    filename: str = ""
    offset: int | None = None  # bytes, for a shared block device
    rbdname: str | None = None


# fio's own per-interval logs: 1 s averages, stamped in milliseconds since the epoch so
# the consumers of a step (other processes, pods, VMs) share one clock
LOG_AVG_MS = 1000
# Stalls (records/stalls.py) are read from when I/Os completed: fio writes a histogram
# log line at the first completion after each STALL_LOG_MS, none while nothing completes.
# Coarse buckets keep it to about 1 KB per consumer and second; a step that keeps the full
# histogram logs (histogram_logs) reads its stalls from those, a second apart.
STALL_LOG_MS = 100
STALL_LOG_SUFFIX = "-completions"  # LOGS/<jobname>-completions_clat_hist.<n>.log
LOG_KINDS = ("iops", "bw", "clat")  # write_lat_log also writes lat and slat

# how fio reaches the storage: the workload's ioengine, or e.g. rbd with its pool and user
Engine = Mapping[str, str]


def _engine_lines(workload: FioWorkload, engine: Engine | None) -> list[str]:
    engine = engine or {"ioengine": workload.ioengine}
    return [f"{key}={value}" for key, value in engine.items()]


def _where(target: JobTarget) -> list[str]:
    if target.rbdname is not None:
        return [f"rbdname={target.rbdname}"]
    lines = [f"filename={target.filename}"]
    if target.offset is not None:
        lines.append(f"offset={target.offset}")
    return lines


def wait_until_prerun(start_ns: int, directory: str) -> str:
    """An exec_prerun that makes a job wait, once set up, until ``start_ns`` (ns since the
    epoch, on the host's clock) before its I/O begins: a shell command without ';' (fio's
    job files end a value there), run in ``directory`` so that the <jobname>.prerun.txt
    fio writes its output to lands there."""
    wait = (
        f'ms=$(( ({start_ns} - $(date +%s%N)) / 1000000 )) && [ "$ms" -gt 0 ] && '
        'sleep "$((ms / 1000)).$(printf %03d $((ms % 1000)))" || true'
    )
    return f"cd {directory} && sh -c '{wait}'"


def _global_section(workload: FioWorkload, numjobs: int, engine: Engine | None) -> list[str]:
    lines = [
        "[global]",
        *_engine_lines(workload, engine),
        f"direct={int(workload.direct)}",
        f"bs={workload.bs}",
        f"iodepth={workload.iodepth}",
        f"size={workload.size}",
        "randrepeat=0",
        "percentile_list=50:90:95:99:99.9",
    ]
    if workload.mode == "time":
        lines += [f"runtime={workload.runtime}", "time_based=1"]
    if workload.ramp_time:
        lines.append(f"ramp_time={workload.ramp_time}")
    if workload.rwmixread is not None:
        lines.append(f"rwmixread={workload.rwmixread}")
    if workload.rate_iops is not None:
        lines.append(f"rate_iops={workload.rate_iops}")
    if workload.rate_process is not None:
        lines.append(f"rate_process={workload.rate_process}")
    if workload.steadystate is not None:
        ss = workload.steadystate
        lines += [f"steadystate={ss.criterion}", f"ss_dur={ss.duration}", f"ss_ramp={ss.ramp}"]
    if numjobs > 1:
        # One JSON entry per consumer: each section is its own group, reported as one.
        lines += [f"numjobs={numjobs}", "group_reporting=1"]
    lines += [f"{key}={value}" for key, value in workload.fio_options.items()]
    return lines


def _log_lines(logs: str, jobname: str, histograms: bool) -> list[str]:
    """A consumer's logs as LOGS/<jobname>_iops.<job number>.log (and _bw, _clat …), and
    its completions: _clat_hist each second with ``histograms``, else every STALL_LOG_MS
    in coarse buckets as LOGS/<jobname>-completions_clat_hist.<job number>.log."""
    prefix = f"{logs.rstrip('/')}/{jobname}"
    lines = [
        f"write_iops_log={prefix}",
        f"write_bw_log={prefix}",
        f"write_lat_log={prefix}",
        f"log_avg_msec={LOG_AVG_MS}",
        "log_unix_epoch=1",
    ]
    if histograms:
        lines += [f"write_hist_log={prefix}", f"log_hist_msec={LOG_AVG_MS}"]
    else:
        lines += [
            f"write_hist_log={prefix}{STALL_LOG_SUFFIX}",
            f"log_hist_msec={STALL_LOG_MS}",
            "log_hist_coarseness=6",
        ]
    return lines


def _job_section(
    target: JobTarget, workload: FioWorkload, logs: str | None, start_delay: int
) -> list[str]:
    lines = ["", f"[{target.jobname}]", f"rw={target.rw}", *_where(target)]
    if workload.numjobs > 1:
        lines.append("new_group")
    if start_delay:
        lines.append(f"startdelay={start_delay}")
    if logs is not None:
        lines += _log_lines(logs, target.jobname, workload.histogram_logs)
    return lines


def render_job(
    workload: FioWorkload,
    targets: Sequence[JobTarget],
    engine: Engine | None = None,
    logs: str | None = None,
    positions: Sequence[int] | None = None,
    prerun: str | None = None,
) -> str:
    """The measured job: one section per consumer, all starting together (or each
    ``start_stagger`` seconds after the one before: ``positions`` are the consumers' places
    in the step, default 0, 1, … for a job file that holds all of them), each writing its
    per-second logs under ``logs``; every job runs ``prerun`` (fio's exec_prerun) once set
    up."""
    lines = _global_section(workload, workload.numjobs, engine)
    if prerun is not None:
        lines.append(f"exec_prerun={prerun}")
    for position, target in zip(positions or range(len(targets)), targets, strict=True):
        lines += _job_section(target, workload, logs, position * workload.start_stagger)
    return "\n".join(lines) + "\n"


def render_prefill(
    workload: FioWorkload, targets: Sequence[JobTarget], engine: Engine | None = None
) -> str:
    """Write every block of every consumer's file once, so reads hit real data."""
    lines = [
        "[global]",
        *_engine_lines(workload, engine),
        "direct=1",
        "bs=1M",
        "iodepth=16",
        f"size={workload.size}",
        "rw=write",
    ]
    for target in targets:
        lines += ["", f"[prefill-{target.jobname}]", *_where(target)]
    return "\n".join(lines) + "\n"
