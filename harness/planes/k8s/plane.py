"""The Kubernetes plane in the registry: the `k8s` target; fio steps whose pods printed
their outputs, and the cluster's state through a faulted one (its phases); provisioning
steps; migration steps (read as the database steps they are); the faults a killed run
left on its nodes, its namespaces, and a node a migration left failed."""

from __future__ import annotations

from harness.planes.base import Lazy, LazyTarget, PhaseSource, Plane
from harness.planes.k8s import cleanup, node_failure
from harness.planes.k8s.cluster import NAMESPACE_KIND
from harness.planes.k8s.node_states import sampled_states
from harness.planes.k8s.provision_step import is_provision_step, provision_step
from harness.planes.k8s.step import is_k8s_step, k8s_step
from harness.records.step import RawStep, StepParts


def pod_step(step: RawStep) -> StepParts:
    return k8s_step(step.raw, step.step_id, step.plan, step.backend).parts("k8s")


def pvc_step(step: RawStep) -> StepParts:
    if not is_provision_step(step.raw):
        return StepParts()
    events, figures, warnings = provision_step(step.raw, step.step_id)
    return StepParts(figures, warnings, events)


PLANE = Plane(
    "k8s",
    targets={"k8s": LazyTarget("harness.planes.k8s.target", "KubernetesTarget")},
    tool_steps={
        "pvc-provision": pvc_step,
        "migration": Lazy("harness.records.db_step", "database_step"),
    },
    fio_steps=[(is_k8s_step, pod_step)],
    phase_sources=[
        PhaseSource(
            sampled_states,
            "Kubernetes, from its nodes' Ready condition and cordon and the step's pods, "
            "sampled once a second: degraded, a node not Ready (the node controller says "
            "so once the node's lease has run out: tens of seconds after a crash) or "
            "cordoned; recovering, every node Ready and a pod of the step Pending or not "
            "ready",
        )
    ],
    removers=[
        # faults first: a node left crashed is restored before its pods' namespaces go
        (
            lambda kind: kind == "k8s-node-fault",
            Lazy("harness.planes.k8s.node_faults", "undo_noted"),
        ),
        (lambda kind: kind == NAMESPACE_KIND, cleanup.remove_noted),
        (lambda kind: kind == node_failure.NODE_KIND, node_failure.undo_noted),
    ],
)
