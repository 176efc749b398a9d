"""fio: each consumer is a fio job (or numjobs of them) on its own file, device region,
image or volume; it runs on every target."""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from pydantic import Field, field_validator, model_validator

from harness.core.faults import Fault, fault_kinds, fault_of
from harness.core.units import size_bytes
from harness.core.workloads.base import TARGET_TYPES, Name, Size, Tool, _Strict
from harness.core.workloads.words import join

READ_MODES = frozenset({"read", "randread"})
WRITE_MODES = frozenset({"write", "randwrite"})
MIXED_MODES = frozenset({"rw", "readwrite", "randrw"})
RW_MODES = READ_MODES | WRITE_MODES | MIXED_MODES


class SteadyStateOption(_Strict):
    """fio's own steady-state detection: the job ends once the criterion held for
    ``duration`` seconds (fio's steadystate, ss_dur, ss_ramp); runtime is the limit."""

    criterion: str = Field(
        pattern=r"^(iops|bw)(_slope)?:[0-9]+(\.[0-9]+)?%?$",
        description="fio's steadystate, e.g. iops:20% (max deviation from the mean) or "
        "iops_slope:0.1% (slope)",
    )
    duration: int = Field(ge=2, description="seconds the criterion must hold (ss_dur)")
    ramp: int = Field(0, ge=0, description="seconds before fio starts judging (ss_ramp)")


class FioWorkload(_Strict):
    """fio options of one workload; consumers of a step are assigned ``rw`` round-robin."""

    size_field: ClassVar[str] = "size"  # what a profile's --size sets
    tool: Literal["fio"] = Field("fio", description="fio, the default when tool is missing")
    name: Name = Field(
        description="the workload's name: it names the workload's steps; unique in the campaign"
    )
    rw: list[str] = Field(
        min_length=1,
        description="fio's rw mode, or a list the consumers take in turn "
        "([randread, randwrite]: half readers and half writers at once)",
    )
    bs: Size = Field("4k", description="block size of every I/O (fio's bs)")
    iodepth: int = Field(
        1, ge=1, le=65536, description="I/Os each consumer keeps in flight (fio's iodepth)"
    )
    numjobs: int = Field(
        1,
        ge=1,
        le=1024,
        description="fio jobs per consumer, reported together as that consumer (fio's numjobs)",
    )
    size: Size = Field(
        "1G",
        description="per consumer: the size of its file, device region, image or volume "
        "(fio's size)",
    )
    mode: Literal["time", "size"] = Field(
        "time",
        description="time: each consumer runs for runtime seconds; size: until it has gone "
        "through its size once",
    )
    runtime: int | None = Field(60, ge=1, description="seconds, for mode: time")
    ramp_time: int = Field(
        0, ge=0, description="seconds of run before fio starts counting (fio's ramp_time)"
    )
    direct: bool = Field(True, description="O_DIRECT I/O, past the page cache (fio's direct)")
    ioengine: str = Field(
        "libaio", description="fio's ioengine; the rbd target uses fio's rbd engine instead"
    )
    prefill: bool = Field(
        False,
        description="write each consumer's file, image or volume in full before measuring, "
        "so reads hit real data",
    )
    rwmixread: int | None = Field(
        None,
        ge=0,
        le=100,
        description="percent of reads for the mixed rw modes (fio's rwmixread); default fio's 50",
    )
    rate_iops: int | None = Field(None, ge=1, description="per-consumer cap")
    rate_process: Literal["linear", "poisson"] | None = Field(
        None,
        description="how fio spaces a rate_iops consumer's I/Os (fio's rate_process): linear "
        "(fio's default) or poisson, as independent clients arrive; a capacity search uses "
        "poisson unless told otherwise",
    )
    start_stagger: int = Field(
        0,
        ge=0,
        description="seconds between consumers' starts, to reproduce consumers that start "
        "as they happen to boot; 0 starts them together",
    )
    steadystate: SteadyStateOption | None = Field(
        None,
        description="end each consumer's run once fio sees it steady; default none: the "
        "whole runtime",
    )
    histogram_logs: bool = Field(
        False,
        description="fio's per-second latency histogram logs too (log_hist_msec): p95 and "
        "p99 over the common window, at about 11 KB per consumer and second",
    )
    fio_options: dict[str, str | int] = Field(
        default_factory=dict,
        description="any further fio option, as key: value in the measured job's [global]",
    )
    faults: list[Fault] = Field(
        default_factory=list,
        description="faults injected into the backend during each step's measured run "
        "(the rbd target: its OSDs; the k8s target: its nodes), each undone at the step's "
        "end; the step's figures are then split by the states the backend went through",
    )

    @field_validator("rw", mode="before")
    @classmethod
    def _rw_list(cls, value: Any) -> Any:
        return [value] if isinstance(value, str) else value

    @field_validator("rw")
    @classmethod
    def _rw_known(cls, value: list[str]) -> list[str]:
        for mode in value:
            if mode not in RW_MODES:
                raise ValueError(f"unknown rw {mode!r}; one of {', '.join(sorted(RW_MODES))}")
        return value

    @model_validator(mode="after")
    def _mode(self) -> FioWorkload:
        if self.mode == "time" and self.runtime is None:
            raise ValueError("mode 'time' needs runtime (seconds)")
        if self.steadystate is not None and self.mode != "time":
            raise ValueError("steadystate needs mode 'time': runtime is its limit")
        if self.rate_process is not None and self.rate_iops is None:
            raise ValueError("rate_process spaces a rate: give rate_iops too")
        length = (self.runtime or 0) + self.ramp_time if self.mode == "time" else None
        late = [f.label for f in self.faults if length is not None and f.last_s >= length]
        if late:
            raise ValueError(
                f"faults {', '.join(late)}: not within the measured run ({length} s with its ramp)"
            )
        return self


def step_line(w: dict[str, Any], threads: int | None) -> str:
    length = f"{w['runtime']} s" if w.get("mode", "time") == "time" else f"size {w['size']}"
    return f"bs {w.get('bs')}, iodepth {w.get('iodepth')}, {length}"


def expected_seconds(w: dict[str, Any]) -> float | None:
    if w.get("mode", "time") == "time":
        return float((w.get("runtime") or 0) + w.get("ramp_time", 0))
    return None


def describe(w: dict[str, Any]) -> str:
    rw = w.get("rw", [])
    rw = rw if isinstance(rw, list) else [rw]
    who = (
        f"consumers take {', '.join(rw)} in turn" if len(rw) > 1 else f"every consumer runs {rw[0]}"
    )
    length = (
        f"for {w.get('runtime')} s"
        + (f" after {w['ramp_time']} s ramp" if w.get("ramp_time") else "")
        if w.get("mode", "time") == "time"
        else f"until {w.get('size')} is done"
    )
    return join(
        [
            f"fio: {who}, bs {w.get('bs')}, iodepth {w.get('iodepth')}",
            f"numjobs {w.get('numjobs', 1)}" if w.get("numjobs", 1) != 1 else "",
            f"{w.get('size')} per consumer",
            length,
            f"ioengine {w['ioengine']}" if w.get("ioengine") else "",
            {True: "direct I/O", False: "buffered I/O"}.get(w.get("direct"), ""),
            "every block written once before measuring (prefill)" if w.get("prefill") else "",
            f"capped at {w['rate_iops']} IOPS per consumer" if w.get("rate_iops") else "",
            _faults_text(w.get("faults") or []),
        ]
    )


def _faults_text(faults: list[dict[str, Any]]) -> str:
    if not faults:
        return ""
    made = [fault_of(f).label for f in faults]
    return f"faults injected in each step: {', '.join(made)}, each undone at the step's end"


# what a target type runs fio with whatever the workload says: the rbd target, fio's rbd
# engine (harness/planes/ceph/target.py adds its pool and client); the others the
# workload's ioengine
SET_BY_TARGET: dict[str, dict[str, Any]] = {"rbd": {"ioengine": "rbd"}}

# fio options the VMs' agent (heat_templates/cinder-fio/agent.sh) runs with, as fio's
# defaults or the template's: a workload that asks for another value cannot run in VMs
AGENT_FIXED = {
    "numjobs": 1,
    "ramp_time": 0,
    "ioengine": "libaio",
    "direct": True,
    "rwmixread": None,
    "start_stagger": 0,
    "steadystate": None,
    "histogram_logs": False,
    "fio_options": {},
    "faults": [],
}


def _check_heat(target: Any, workloads: list[FioWorkload]) -> None:

    if not workloads:
        return
    names = ", ".join(w.name for w in workloads)
    if target.heat is None:
        raise ValueError(
            f"workloads {names}: fio on an openstack target runs in VMs that Heat "
            "creates: give target.heat (image, flavor, …)"
        )
    for w in workloads:
        fixed = [f"{k}: {getattr(w, k)!r}" for k, v in AGENT_FIXED.items() if getattr(w, k) != v]
        if fixed:
            raise ValueError(
                f"workload {w.name}: the VMs' agent runs fio without "
                f"{', '.join(fixed)} (remove them for an openstack "
                "target)"
            )
        if (
            target.heat.volume_size is not None
            and size_bytes(w.size) > target.heat.volume_size * 2**30
        ):
            raise ValueError(
                f"workload {w.name}: size {w.size} does not fit the VMs' volumes "
                f"(target.heat.volume_size {target.heat.volume_size} "
                "GiB)"
            )


def fits(target: Any, workloads: list[FioWorkload]) -> None:
    """What fio asks of a target beyond its type: no histogram logs from pods; on an
    openstack target, Heat's settings and options the VMs' agent can run."""
    if target.type == "k8s":
        histograms = [w.name for w in workloads if w.histogram_logs]
        if histograms:
            raise ValueError(
                f"workloads {', '.join(histograms)}: histogram_logs is for the local and "
                "rbd targets (pods bring their logs back through the pod log, too small "
                "for them)"
            )
    if target.type == "openstack":
        _check_heat(target, workloads)
    where = {"osd": ("rbd", "Ceph's OSDs"), "node": ("k8s", "Kubernetes' nodes")}
    for kind, (target_type, parts) in where.items():
        faulted = [w.name for w in workloads if kind in fault_kinds(w.faults)]
        if faulted and target.type != target_type:
            raise ValueError(
                f"workloads {', '.join(faulted)}: faults act on {parts}: the {target_type} "
                "target only"
            )


TOOL = Tool(
    "fio",
    FioWorkload,
    "fio",
    TARGET_TYPES,
    describe,
    expected_seconds,
    step_line,
    fits=fits,
    set_by_target=SET_BY_TARGET,
)
