"""Faults of a Kubernetes cluster's nodes during a fio step's measured run (core/faults.py):
given on time through the ledger of planes/faults.py, written down, undone.

On the volperf k8s testbed (its marker beside the kubeconfig) a node is crashed as
`volperf testbed crash-node` does (its kubelet, container runtime and pods killed at once)
and restored as `volperf testbed up` does; on any other cluster, only where the target
allows it (allow_faults), a node can be drained (cordoned, the step's pods on it evicted)
and uncordoned, through the API, and not crashed. What a fault changes of a node is noted
in created.json before it is done (kind ``k8s-node-fault``: crashed, cordoned), so that
`volperf cleanup` undoes it after a run that was killed."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from harness.core.faults import NodeFault
from harness.core.store import CampaignStore
from harness.planes.base import TargetError
from harness.planes.faults import PartState, undo_notes
from harness.planes.k8s.node_failure import cordon, run_command
from harness.testbeds import TestbedError
from harness.testbeds.k8s.testbed import MARKER

NOTE_KIND = "k8s-node-fault"
TESTBED_ONLY = ("crash-node", "restore-node")


@dataclass(frozen=True)
class NodeState(PartState):
    """What faults have left changed of one node."""

    CHANGES: ClassVar[dict[str, dict[str, bool]]] = {
        "crash-node": {"crashed": True},
        "restore-node": {"crashed": False},
        "drain-node": {"cordoned": True},
        "uncordon-node": {"cordoned": False},
    }
    UNDO = (("crashed", "restore-node"), ("cordoned", "uncordon-node"))  # start, schedule

    crashed: bool = False
    cordoned: bool = False


class NodeSwitch:
    """How faults act on one cluster's nodes: the testbed's daemons, or the API."""

    note_kind = NOTE_KIND

    def __init__(self, kubeconfig: Path, core: Any):
        self.kubeconfig, self.core = kubeconfig, core
        state = kubeconfig.parent
        self.testbed = state if (state / MARKER).exists() else None
        self.namespace = ""  # the step's: a drain evicts its pods on the node

    @property
    def where(self) -> str:
        if self.testbed is not None:
            return f"the k8s testbed in {self.testbed}"
        return f"the Kubernetes cluster of {self.kubeconfig}"

    def check(self, faults: list[NodeFault], allowed: bool) -> None:
        """Refuse faults this cluster may not be given, naming them."""
        if self.testbed is None:
            crashed = [f.label for f in faults if f.action in TESTBED_ONLY]
            if crashed:
                raise TargetError(
                    f"faults {', '.join(crashed)}: volperf crashes and restores only the "
                    "k8s testbed's nodes; on another cluster, drain-node and uncordon-node"
                )
            if not allowed:
                raise TargetError(
                    f"faults {', '.join(f.label for f in faults)}: {self.where} is not the "
                    "volperf k8s testbed; volperf injects faults there only if the target "
                    "says allow_faults: true. It would run: " + "; ".join(self.plan(faults))
                )
        try:
            names = {node.metadata.name for node in self.core.list_node().items}
        except Exception as exc:
            raise TargetError(f"the nodes of {self.where}: {type(exc).__name__}: {exc}") from None
        unknown = [f.label for f in faults if f.node not in names]
        if unknown:
            raise TargetError(
                f"faults {', '.join(unknown)}: no such node; the cluster has "
                f"{', '.join(sorted(names)) or 'none'}"
            )

    def plan(self, faults: list[NodeFault]) -> list[str]:
        """Each fault and the commands it will run, for the user to read first."""
        return [
            f"+{due:g} s: {' && '.join(self.commands(action, fault.node))}"
            for fault in faults
            for due, action in fault.schedule
        ]

    def commands(self, action: str, node: str) -> list[str]:
        kubectl = f"kubectl --kubeconfig {self.kubeconfig}"
        return {
            "crash-node": [f"volperf testbed crash-node k8s {node} --state {self.testbed}"],
            "restore-node": [f"volperf testbed up k8s --state {self.testbed}"],
            "drain-node": [
                f"{kubectl} cordon {node}",
                f"{kubectl} drain {node} --pod-selector (the step's pods, in its namespace)",
            ],
            "uncordon-node": [f"{kubectl} uncordon {node}"],
        }[action]

    def act(self, action: str, node: str) -> list[str]:
        """Do one action; the commands it ran."""
        if action in TESTBED_ONLY:
            if self.testbed is None:
                raise TestbedError(f"{action} {node}: not the volperf k8s testbed")
            verb = ["crash-node", "k8s", node] if action == "crash-node" else ["up", "k8s"]
            volperf = [sys.executable, "-m", "harness.cli", "testbed", *verb]
            error = run_command([*volperf, "--state", str(self.testbed)], node, action)
            if error:
                raise TestbedError(error)
            return self.commands(action, node)
        cordon(self.core, node, action == "drain-node")
        if action == "drain-node":
            evicted = self._evict(node)
            return [*self.commands(action, node)[:1], *(f"evict {pod}" for pod in evicted)]
        return self.commands(action, node)

    def _evict(self, node: str) -> list[str]:
        """The step's pods on the node evicted; their names."""
        if not self.namespace:
            return []
        evicted = []
        pods = self.core.list_namespaced_pod(self.namespace, field_selector=f"spec.nodeName={node}")
        for pod in pods.items:
            name = pod.metadata.name
            body = {"metadata": {"name": name, "namespace": self.namespace}}
            self.core.create_namespaced_pod_eviction(name, self.namespace, body)
            evicted.append(f"{self.namespace}/{name}")
        return evicted

    def on(self, node: str) -> str:
        return f"node {node}"

    def key(self, node: str) -> str:
        return f"{NOTE_KIND}:{self.kubeconfig}:{node}"

    def identity(self, node: str) -> dict[str, Any]:
        return {"kubeconfig": str(self.kubeconfig), "node": node}

    def state_of(self, note: dict[str, Any]) -> NodeState:
        return NodeState(bool(note.get("crashed")), bool(note.get("cordoned")))


def undo_noted(store: CampaignStore, notes: dict[str, dict[str, Any]]) -> list[str]:
    """`volperf cleanup`: put back what a killed run's node faults left changed (a node
    left crashed is restored, one left cordoned uncordoned)."""
    from kubernetes import client

    from harness.planes.k8s.cluster import api_client

    def switch_of(note: dict[str, Any]) -> NodeSwitch:
        kubeconfig = Path(note["kubeconfig"])
        return NodeSwitch(kubeconfig, client.CoreV1Api(api_client(kubeconfig)))

    return undo_notes(store, notes, switch_of, lambda note: note["node"])
