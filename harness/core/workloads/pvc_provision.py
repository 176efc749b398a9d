"""pvc-provision (Kubernetes only): PVCs and pods created and timed per namespace."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from harness.core.workloads.base import Name, ProjectPace, Size, Tool, _Strict
from harness.core.workloads.words import join, open_ended, per_minute


class PvcProvisionWorkload(_Strict):
    """Kubernetes PVC provisioning: each consumer is a namespace in which ``pvcs`` PVCs
    (and, with ``pods``, a pod mounting each) are created at once with every other
    namespace's; Pending→Bound and pod-ready times per PVC."""

    tool: Literal["pvc-provision"] = Field(description="pvc-provision")
    name: Name = Field(
        description="the workload's name: it names the workload's steps; unique in the campaign"
    )
    pvcs: int = Field(1, ge=1, le=1000, description="PVCs per namespace")
    size: Size = Field("64M", description="storage each PVC requests")
    pods: bool = Field(
        True,
        description="a pod per PVC (WaitForFirstConsumer classes bind "
        "only for one): pod-ready times too",
    )
    pod_image: str | None = Field(
        None,
        min_length=1,
        description="the pods' image, run with its own entrypoint (e.g. a pause image, as "
        "kube-burner's examples use); default the target's fio image running sleep",
    )
    qps: float | None = Field(
        None,
        gt=0,
        description="requests per second the creators may send (namespaces, PVCs, pods; "
        "a burst of as many), as kube-burner's qps and burst; default no limit",
    )
    pace: ProjectPace = Field(
        default_factory=ProjectPace,
        description="how fast namespaces (projects) are created and deleted",
    )


def step_line(w: dict[str, Any], threads: int | None) -> str:
    return f"{w.get('pvcs')} PVC(s) of {w.get('size')} per namespace"


def describe(w: dict[str, Any]) -> str:
    pace = w.get("pace") or {}
    return join(
        [
            f"PVC provisioning: each consumer a namespace with {w.get('pvcs')} PVC(s) of "
            f"{w.get('size')}",
            per_minute(pace, "create_per_min", "namespaces created"),
            per_minute(pace, "delete_per_min", "deleted"),
            "a pod mounting each PVC (pod-ready times)" if w.get("pods") else "no pods",
            "times from volperf's create request to Bound and to Ready, seen through watches",
        ]
    )


TOOL = Tool(
    "pvc-provision",
    PvcProvisionWorkload,
    "provision",
    frozenset({"k8s"}),
    describe,
    open_ended,  # as long as the cluster takes
    step_line,
    "pvc-provision needs the k8s target",
)
