"""Faults a workload injects into its backend during each of its steps' measured runs, so
that the step's figures can be split by the state the backend went through (the planes'
phases): what, to which part, and when.

A fault's time is in seconds after the step's measured fio run started (its ramp
included), or, in a Rally workload, after the workload started. What a fault did, the
plane that gave it undoes at the step's end, and ``volperf cleanup`` after a run that was
killed (created.json notes it first).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Any, Literal

from pydantic import Field, TypeAdapter, model_validator

from harness.core.workloads.base import _Strict

# Ceph's OSD faults, and what each does; on a cluster that is not a volperf testbed, only
# when its target says so (allow_faults), through Ceph's orchestrator and monitors
OSD_ACTIONS = {
    "stop-osd": "stop the OSD's daemon",
    "start-osd": "start the OSD's daemon again",
    "out-osd": "mark the OSD out (Ceph moves its data to the others)",
    "in-osd": "mark the OSD in again",
    "pause-osd": "freeze the OSD's daemon (SIGSTOP) for `seconds`, then let it go on "
    "(SIGCONT): the Ceph testbed only",
}
OsdAction = Literal["stop-osd", "start-osd", "out-osd", "in-osd", "pause-osd"]
RESUME = "resume-osd"  # a pause's end: the action that lets a frozen OSD go on


class OsdFault(_Strict):
    """One fault of a Ceph OSD during a step's measured run."""

    action: OsdAction = Field(description="; ".join(f"{k}: {v}" for k, v in OSD_ACTIONS.items()))
    osd: int = Field(ge=0, description="the OSD's id (osd.N)")
    at: float = Field(ge=0, description="seconds after the measured fio run starts")
    seconds: float | None = Field(
        None, gt=0, description="pause-osd: how long the daemon stays frozen"
    )

    @model_validator(mode="after")
    def _seconds(self) -> OsdFault:
        if self.action == "pause-osd" and self.seconds is None:
            raise ValueError("pause-osd needs seconds (how long the OSD stays frozen)")
        if self.action != "pause-osd" and self.seconds is not None:
            raise ValueError(f"{self.action} takes no seconds (pause-osd does)")
        return self

    @property
    def label(self) -> str:
        """E.g. 'stop-osd osd.1 at +10 s'."""
        pause = f" for {self.seconds:g} s" if self.seconds is not None else ""
        return f"{self.action} osd.{self.osd} at +{self.at:g} s{pause}"

    @property
    def last_s(self) -> float:
        """When its last action is due: a pause's end, else its time."""
        return self.at + (self.seconds or 0.0)

    @property
    def subject(self) -> int:
        """What it acts on, as its plane's switch names it: the OSD's id."""
        return self.osd

    @property
    def on(self) -> str:
        return f"osd.{self.osd}"

    @property
    def schedule(self) -> list[tuple[float, str]]:
        """(seconds into the run, action): a pause is frozen at its time, let go after."""
        if self.action == "pause-osd":
            return [(self.at, "pause-osd"), (self.last_s, RESUME)]
        return [(self.at, self.action)]


# Kubernetes' node faults, and what each does; a node of the volperf k8s testbed crashes
# and comes back as `volperf testbed crash-node` and `up` do; on any other cluster only
# drain and uncordon, and only when its target says so (allow_faults)
NODE_ACTIONS = {
    "crash-node": "kill the node's kubelet, container runtime and pods at once, as a power "
    "loss would: the k8s testbed only",
    "restore-node": "start the crashed node again, as `volperf testbed up` does",
    "drain-node": "cordon the node and evict the step's pods on it, as `kubectl drain` does",
    "uncordon-node": "make the node schedulable again",
}
NodeAction = Literal["crash-node", "restore-node", "drain-node", "uncordon-node"]


class NodeFault(_Strict):
    """One fault of a Kubernetes node during a step's measured run."""

    action: NodeAction = Field(description="; ".join(f"{k}: {v}" for k, v in NODE_ACTIONS.items()))
    node: str = Field(min_length=1, description="the node's name")
    at: float = Field(ge=0, description="seconds after the measured fio run starts")

    @property
    def label(self) -> str:
        """E.g. 'crash-node volperf-node-2 at +10 s'."""
        return f"{self.action} {self.node} at +{self.at:g} s"

    @property
    def last_s(self) -> float:
        return self.at

    @property
    def subject(self) -> str:
        return self.node

    @property
    def on(self) -> str:
        return f"node {self.node}"

    @property
    def schedule(self) -> list[tuple[float, str]]:
        return [(self.at, self.action)]


# OpenStack's services, and what each fault does to one; the volperf OpenStack testbed's
# only, as `volperf testbed stop-service` and `up` do
SERVICE_ACTIONS = {
    "stop-service": "stop the service's daemon as `systemctl stop` would: the OpenStack "
    "testbed only",
    "start-service": "start it again, as `volperf testbed up` does",
}
ServiceAction = Literal["stop-service", "start-service"]
Service = Literal["cinder-volume", "cinder-scheduler", "cinder-backup"]


class ServiceFault(_Strict):
    """One fault of an OpenStack service during a Rally workload."""

    action: ServiceAction = Field(
        description="; ".join(f"{k}: {v}" for k, v in SERVICE_ACTIONS.items())
    )
    service: Service = Field(description="the service's binary")
    at: float = Field(ge=0, description="seconds after the workload starts")

    @property
    def label(self) -> str:
        """E.g. 'stop-service cinder-volume at +10 s'."""
        return f"{self.action} {self.service} at +{self.at:g} s"

    @property
    def last_s(self) -> float:
        return self.at

    @property
    def subject(self) -> str:
        return self.service

    @property
    def on(self) -> str:
        return f"service {self.service}"

    @property
    def schedule(self) -> list[tuple[float, str]]:
        return [(self.at, self.action)]


AnyFault = OsdFault | NodeFault | ServiceFault
Fault = Annotated[OsdFault | NodeFault, Field(discriminator="action")]  # a fio step's
FAULT = TypeAdapter(Fault)
RallyFault = Annotated[OsdFault | ServiceFault, Field(discriminator="action")]  # Rally's
RALLY_FAULT = TypeAdapter(RallyFault)
KINDS = {OsdFault: "osd", NodeFault: "node", ServiceFault: "service"}


def fault_of(document: dict[str, Any]) -> OsdFault | NodeFault:
    """A fio step's fault from its spec entry."""
    return FAULT.validate_python(document)


def rally_fault_of(document: dict[str, Any]) -> OsdFault | ServiceFault:
    """A Rally workload's fault from its spec entry."""
    return RALLY_FAULT.validate_python(document)


def fault_kinds(faults: Sequence[AnyFault]) -> set[str]:
    """Which parts of a backend the faults act on: 'osd', 'node', 'service'."""
    return {KINDS[type(f)] for f in faults}
