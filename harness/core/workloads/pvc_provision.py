"""pvc-provision (Kubernetes only): PVCs and pods created and timed per namespace."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from harness.core.workloads.base import Name, ProjectPace, Size, Tool, _Strict
from harness.core.workloads.columns import Column, cell, consumers
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


def _ended_of(kind: str, always: bool) -> Column:
    """How many of the step's events of a kind ended, of how many ("–" for none, unless
    ``always``)."""

    def shown(step: dict[str, Any]) -> str:
        seen = ((step.get("provision") or {}).get(kind)) or {}
        if not always and not seen.get("count"):
            return "–"
        return f"{seen.get('ended', 0)} of {seen.get('count', 0)}"

    return Column(f"{'bound' if kind == 'pvc-bound' else 'pods ready'}", shown)


def _time(label: str, kind: str, name: str) -> Column:
    return Column(
        label, lambda s: cell((((s.get("provision") or {}).get(kind)) or {}).get(name), 2)
    )


COLUMNS = (
    consumers("namespaces"),
    Column("PVCs", lambda s: str((s.get("provision") or {}).get("pvcs", "–"))),
    _ended_of("pvc-bound", always=True),
    _time("bound p50 s", "pvc-bound", "p50_s"),
    _time("bound p95 s", "pvc-bound", "p95_s"),
    _time("bound max s", "pvc-bound", "max_s"),
    _ended_of("pod-ready", always=False),
    _time("ready p50 s", "pod-ready", "p50_s"),
    _time("ready p95 s", "pod-ready", "p95_s"),
    _time("ready max s", "pod-ready", "max_s"),
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
    columns=COLUMNS,
)
