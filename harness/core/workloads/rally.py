"""rally (OpenStack only): a Rally task at each concurrency of the sweep."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from harness.core.faults import OsdFault, RallyFault, rally_fault_of
from harness.core.workloads.base import Name, Tool, _Strict
from harness.core.workloads.words import join, open_ended


class RallyWorkload(_Strict):
    """A Rally task run at each concurrency of the sweep: its scenarios get ``times``
    iterations (else ``times_per_user`` × concurrency) at that concurrency."""

    name: Name = Field(
        description="the workload's name: it names the workload's steps; unique in the campaign"
    )
    tool: Literal["rally"] = Field(description="rally")
    task: str = Field("control-plane", description="a task of rally_plugins/tasks, or a path")
    args: dict[str, Any] = Field(default_factory=dict, description="the task's args")
    times: int | None = Field(None, ge=1, description="iterations per scenario at every step")
    times_per_user: int = Field(
        2,
        ge=1,
        le=1000,
        description="iterations per scenario for each concurrent user, without times",
    )
    timeout: int = Field(3600, ge=10, description="seconds a step may take")
    poll_interval: float | None = Field(
        None,
        ge=0.1,
        le=10,
        description="seconds between Rally's checks of what it waits for (a volume "
        "available, a server active …): an action's time is rounded up to them; default "
        "rally-openstack's own, 1 to 4 s. Fewer seconds: finer times, more API requests",
    )
    wait_timeout: float | None = Field(
        None,
        ge=1,
        le=3600,
        description="seconds Rally waits for what it waits for before it fails the "
        "iteration (every rally-openstack ``*_timeout`` of the task's Rally); default "
        "rally-openstack's own, 120 to 3600 s (600 s for a volume). With faults, a request "
        "the stopped service lost fails after these seconds",
    )
    faults: list[RallyFault] = Field(
        default_factory=list,
        description="faults given during each of the task's workloads, ``at`` seconds "
        "after the workload starts (Rally's time trigger: a volperf fault hook each): to "
        "the OSDs of the Ceph cluster of the target's ceph_conf, or to a Cinder service "
        "of the OpenStack testbed; those left at the step's end undone; the workload's "
        "iterations split by the backend's own states (Ceph's PGs, Cinder's services)",
    )

    def times_at(self, concurrency: int) -> int:
        return self.times or self.times_per_user * concurrency


def step_line(w: dict[str, Any], threads: int | None) -> str:
    return f"Rally task {w.get('task')}"


def describe(w: dict[str, Any]) -> str:
    if w.get("task") == "exported":
        return f"Rally task {w.get('args', {}).get('task_uuid')}, run by Rally and exported."
    times = (
        f"{w['times']} iterations"
        if w.get("times")
        else f"{w.get('times_per_user', 2)} iteration(s) per concurrent user"
    )
    args = ", ".join(f"{k}={v}" for k, v in (w.get("args") or {}).items())
    return join(
        [
            f"Rally task {w.get('task')} at each concurrency of the sweep",
            times,
            f"task args {args}" if args else "",
            f"Rally checked what it waited for every {w['poll_interval']:g} s"
            if w.get("poll_interval")
            else "Rally checked what it waited for at rally-openstack's default intervals "
            "(1 to 4 s: an action's time is rounded up to them)",
            f"Rally failed an iteration that waited over {w['wait_timeout']:g} s for a status"
            if w.get("wait_timeout")
            else "",
            _faults_text(w.get("faults") or []),
        ]
    )


def _faults_text(faults: list[dict[str, Any]]) -> str:
    if not faults:
        return ""
    made = [rally_fault_of(f).label for f in faults]
    return (
        f"faults given in each of the task's workloads (seconds after it starts): "
        f"{', '.join(made)}, those left at the step's end undone"
    )


def fits(target: Any, workloads: list[RallyWorkload]) -> None:
    """OSD faults act on the Ceph cluster whose health the target samples."""
    faulted = [w.name for w in workloads if any(isinstance(f, OsdFault) for f in w.faults)]
    if faulted and target.ceph_conf is None:
        raise ValueError(
            f"workloads {', '.join(faulted)}: OSD faults act on Ceph's OSDs: the openstack "
            "target needs ceph_conf (the cluster under Cinder, its health sampled too)"
        )
    fractional = [f.label for w in workloads for f in w.faults if f.at != int(f.at)]
    if fractional:
        raise ValueError(
            f"faults {', '.join(fractional)}: Rally's time trigger fires on whole seconds "
            "of the workload: give at in whole seconds"
        )


TOOL = Tool(
    "rally",
    RallyWorkload,
    "rally",
    frozenset({"openstack"}),
    describe,
    open_ended,  # as long as the cloud takes
    step_line,
    "Rally workloads need the openstack target (type: openstack, cloud: NAME)",
    fits=fits,
)
