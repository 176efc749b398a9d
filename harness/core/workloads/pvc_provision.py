"""pvc-provision (Kubernetes only): PVCs and pods created and timed per namespace."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from harness.core.workloads.base import Name, ProjectPace, Size, Tool, _Strict


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


TOOL = Tool(
    "pvc-provision",
    PvcProvisionWorkload,
    "provision",
    frozenset({"k8s"}),
    "pvc-provision needs the k8s target",
)
