"""A node made to fail and brought back, for the migration workload: ``drain`` cordons it
and evicts the campaign's pods on it (as `kubectl drain` does, for volperf's own pods
only); ``crash`` runs the user's command that stops the node (its kubelet and
containers), then taints it ``node.kubernetes.io/out-of-service`` as Kubernetes'
non-graceful node shutdown expects: once the node is NotReady its pods are deleted by
force and their volumes detached, so a StatefulSet can make them again elsewhere.
Bringing it back undoes exactly what volperf did (uncordon; the restore command, the
node Ready, the taint removed). What was done is noted in the campaign's created.json
before it is done, so that `volperf cleanup` undoes it after a run that died
(``undo_noted``); a crashed node it can only name, with the restore to run."""

from __future__ import annotations

import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.core.redact import redact_text
from harness.core.store import CampaignStore

OUT_OF_SERVICE = {
    "key": "node.kubernetes.io/out-of-service",
    "value": "nodeshutdown",
    "effect": "NoExecute",
}
COMMAND_TIMEOUT_S = 600
NODE_KIND = "k8s-node-failure"


class NodeFailureError(Exception):
    """The node cannot be made to fail, or brought back: says which and why."""


def ready(node: Any) -> bool:
    conditions = node.status.conditions or []
    return any(c.type == "Ready" and c.status == "True" for c in conditions)


def usable(node: Any) -> bool:
    return ready(node) and not node.spec.unschedulable


def home_node(core: Any, wanted: str | None) -> str:
    """The node that fails (``wanted``, else the first usable one by name); a node not
    usable, or no other usable node for its pods to move to, is an error."""
    nodes = {n.metadata.name: n for n in core.list_node().items}
    names = sorted(n for n, node in nodes.items() if usable(node))
    home = wanted or (names[0] if names else None)
    if home is None or home not in nodes:
        raise NodeFailureError(f"no node {home!r}: nodes are {', '.join(sorted(nodes)) or 'none'}")
    if home not in names:
        raise NodeFailureError(f"node {home} is not Ready and schedulable: it cannot fail now")
    if names == [home]:
        raise NodeFailureError(
            f"a migration needs a second Ready, schedulable node for the pods of {home}; "
            f"the cluster has {', '.join(sorted(nodes))}"
        )
    return home


def _command(argv: list[str], node: str) -> list[str]:
    return [part.replace("{node}", node) for part in argv]


def run_command(argv: list[str], node: str, what: str) -> str:
    """Run ``argv`` with {node} filled in; '' when it exits 0, else what it said."""
    command = _command(argv, node)
    try:
        result = subprocess.run(
            command,
            capture_output=True,
            text=True,
            timeout=COMMAND_TIMEOUT_S,
            stdin=subprocess.DEVNULL,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return redact_text(f"{what} {command[0]}: {exc}")
    if result.returncode == 0:
        return ""
    said = (result.stderr.strip() or result.stdout.strip()).splitlines()[-3:]
    return redact_text(f"{what} exited {result.returncode}: {' / '.join(said)}")


@dataclass
class NodeFailure:
    """One failure of ``node`` by ``how``; ``done`` lists what volperf did (noted in the
    campaign's created.json first), so that ``bring_back`` undoes exactly that."""

    core: Any
    node: str
    how: str  # drain or crash
    store: CampaignStore
    kubeconfig: str
    crash_command: list[str] | None = None
    restore_command: list[str] | None = None

    def __post_init__(self) -> None:
        self.done: list[str] = []
        self.key = f"{NODE_KIND}:{self.kubeconfig}:{self.node}"

    def _doing(self, what: str) -> None:
        self.done.append(what)
        self.store.record_created(
            self.key, kind=NODE_KIND, kubeconfig=self.kubeconfig, node=self.node, done=self.done
        )

    def fail(self, namespace: str, pods: list[str]) -> str:
        """Make the node fail; '' or why it could not (what was done is still undone)."""
        if self.how == "drain":
            self._doing("cordoned")
            cordon(self.core, self.node, True)
            return self._evict(namespace, pods)
        assert self.crash_command is not None
        self._doing("crashed")
        error = run_command(self.crash_command, self.node, "crash_command")
        if error:
            return error
        self._doing("tainted")
        _taint(self.core, self.node, True)
        return ""

    def _evict(self, namespace: str, pods: list[str]) -> str:
        for pod in pods:
            body = {"metadata": {"name": pod, "namespace": namespace}}
            try:
                self.core.create_namespaced_pod_eviction(pod, namespace, body)
            except Exception as exc:  # a disruption budget (429) or a pod gone
                return f"eviction of pod {namespace}/{pod} refused: {getattr(exc, 'reason', exc)}"
        return ""

    def bring_back(self, timeout: float) -> str:
        """Undo what ``fail`` did; '' or what could not be undone."""
        problems = []
        if "crashed" in self.done:
            assert self.restore_command is not None
            error = run_command(self.restore_command, self.node, "restore_command")
            if error:
                problems.append(error)
            elif not self._wait_ready(timeout):
                problems.append(f"node {self.node} not Ready {timeout:.0f} s after its restore")
        if "tainted" in self.done:
            _taint(self.core, self.node, False)
        if "cordoned" in self.done:
            cordon(self.core, self.node, False)
        if not problems:
            self.store.forget_created(self.key)
        self.done = []
        return "; ".join(problems)

    def _wait_ready(self, timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if ready(self.core.read_node(self.node)):
                return True
            time.sleep(1)
        return False


def cordon(core: Any, node: str, on: bool) -> None:
    core.patch_node(node, {"spec": {"unschedulable": on}})


def _taint(core: Any, node: str, on: bool) -> None:
    """The out-of-service taint put on or taken off; the node's other taints kept."""
    spec = core.read_node(node).spec
    taints = [t for t in (spec.taints or []) if t.key != OUT_OF_SERVICE["key"]]
    kept = [{"key": t.key, "value": t.value, "effect": t.effect} for t in taints]
    core.patch_node(node, {"spec": {"taints": kept + [OUT_OF_SERVICE] if on else kept}})


def undo_noted(store: CampaignStore, notes: dict[str, dict[str, Any]]) -> list[str]:
    """`volperf cleanup` after a run that died with a node failed: the node uncordoned,
    its taint taken off; a crashed node that is not Ready again stays noted, named with
    what brings it back."""
    from kubernetes import client

    from harness.planes.k8s.cluster import api_client

    said = []
    for key, note in notes.items():
        node, done = note["node"], note.get("done", [])
        try:
            core = client.CoreV1Api(api_client(Path(note["kubeconfig"])))
            if "tainted" in done:
                _taint(core, node, False)
            if "cordoned" in done:
                cordon(core, node, False)
            down = "crashed" in done and not ready(core.read_node(node))
        except Exception as exc:
            said.append(f"NOT removed: node {node}'s {', '.join(done)} ({type(exc).__name__})")
            continue
        undone = {"cordoned": "cordon", "tainted": "out-of-service taint"}
        what = [undone[w] for w in done if w in undone]
        if what:
            said.append(f"node {node}'s {' and '.join(what)}")
        if down:
            said.append(
                f"NOT removed: node {node} is down since the migration's crash_command: "
                "run its restore_command"
            )
            continue
        store.forget_created(key)
    return said
