"""The load on every node while a step runs: a DaemonSet of sampler pods, one per node
(tolerating every taint), each reading the host's /proc once a second with the host's
network (host/node_snapshot.py's script) and printing it to its log, where the kubelet
stamps every line. It starts with the campaign's first step, in a namespace of its own
(noted in created.json before it is made, so the campaign's end, or `volperf cleanup`
after a crash, removes it); each step keeps what every node's pod logged while it ran
in raw/nodes/<node>.log.

A cluster that refuses such pods (a namespace policy, no room) costs no step: the step
runs, and its notes say why the nodes' load is missing. What the sampler costs volperf
(its threads' CPU, its API calls) is counted apart in the step's cost, as COST_PART."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from harness.core.spec import CampaignSpec, K8sTarget
from harness.core.store import CampaignStore
from harness.host.node_snapshot import NODES_DIR, SAMPLER_SCRIPT, epoch_of
from harness.host.owncost import spent_on
from harness.planes.k8s.cluster import (
    LABEL,
    NotOurs,
    drain,
    k8s_name,
    last_events,
    make_namespace,
    waiting_reason_of,
)
from harness.planes.k8s.json_api import DAEMON_SETS, CoreJson
from harness.planes.k8s.pod_waiting import WaitingWatch

APP = "volperf-node-load"
READY_TIMEOUT_S = 60
POLL_S = 0.5
MARGIN_S = 1.5  # the sample begun before the step's start: its first rates
COLLECTORS = 8
COST_PART = "node sampler"


class NodeSampler:
    def __init__(self, spec: CampaignSpec, core: CoreJson, kubeconfig: str):
        assert isinstance(spec.target, K8sTarget)
        self.spec = spec
        self.options = spec.target
        self.core: CoreJson = core
        self.kubeconfig = kubeconfig
        self.namespace = k8s_name(f"volperf-{spec.name}-nodes")
        self.started = False
        self.problem = ""  # why the nodes are not sampled

    @contextlib.contextmanager
    def sampling(self, store: CampaignStore, raw: Path, notes: list[str]) -> Iterator[None]:
        """Around a step: its nodes' samples into raw/nodes/, or a note why none."""
        if not self.started:
            self.started = True
            with spent_on(COST_PART):
                self._start(store)
        begun = time.time()
        try:
            yield
        finally:
            if self.problem:
                notes.append(f"the nodes' load was not sampled: {self.problem}")
            else:
                with spent_on(COST_PART):
                    self._collect(raw, begun)

    def _start(self, store: CampaignStore) -> None:
        """The namespace (a killed run's made anew) and its DaemonSet; then every sampler
        pod ready, or the reason it is not. Plain JSON requests (json_api.py): no typed
        API of the client imported for the sampler."""
        labels = {LABEL: k8s_name(self.spec.name)}
        # host-network pods: a cluster enforcing Pod Security needs this
        privileged = {**labels, "pod-security.kubernetes.io/enforce": "privileged"}
        daemon_sets = DAEMON_SETS.format(namespace=self.namespace)
        try:
            make_namespace(
                self.core,
                store,
                self.kubeconfig,
                self.namespace,
                self.spec.name,
                privileged,
                _preload_content=False,
            )
        except NotOurs as exc:
            self.problem = str(exc)
            return
        except Exception as exc:
            self.problem = f"its namespace could not be made: {type(exc).__name__}: {exc}"
            return
        try:
            drain(self.core.json.send("POST", daemon_sets, self._daemon_set(labels)))
        except Exception as exc:
            self.problem = f"its DaemonSet could not be made: {type(exc).__name__}: {exc}"
            return
        deadline = time.monotonic() + READY_TIMEOUT_S
        waiting = WaitingWatch()
        while time.monotonic() < deadline:
            status = self.core.json.get(f"{daemon_sets}/{APP}").get("status") or {}
            wanted = status.get("desiredNumberScheduled") or 0
            if wanted and (status.get("numberReady") or 0) >= wanted:
                return
            for pod in self.core.decoded("list_namespaced_pod", self.namespace)["items"]:
                reason, name = waiting_reason_of(pod), pod["metadata"]["name"]
                if waiting.hopeless(name, reason):
                    events = last_events(self.core, self.namespace, "Pod", name)
                    self.problem = f"its pod {name}: {reason}; {events}"
                    return
            time.sleep(POLL_S)
        self.problem = (
            f"its pods were not all ready after {READY_TIMEOUT_S} s "
            f"(DaemonSet {self.namespace}/{APP}: "
            f"{last_events(self.core, self.namespace, 'DaemonSet', APP)})"
        )

    def _daemon_set(self, labels: dict[str, str]) -> dict[str, Any]:
        return {
            "metadata": {"name": APP, "labels": labels},
            "spec": {
                "selector": {"matchLabels": {"app": APP}},
                "template": {
                    "metadata": {"labels": {**labels, "app": APP}},
                    "spec": {
                        "hostNetwork": True,  # the node's interfaces, not a pod's
                        "tolerations": [{"operator": "Exists"}],  # storage nodes too
                        "terminationGracePeriodSeconds": 1,
                        "containers": [
                            {
                                "name": "sampler",
                                "image": self.options.fio_image,  # busybox sh suffices
                                "imagePullPolicy": self.options.image_pull_policy,
                                "command": ["/bin/sh", "-c", SAMPLER_SCRIPT],
                                "resources": {"requests": {"cpu": "10m", "memory": "8Mi"}},
                            }
                        ],
                    },
                },
            },
        }

    def _collect(self, raw: Path, begun: float) -> None:
        """Each sampler pod's lines since just before the step began, as the kubelet
        stamped them, in raw/nodes/<node>.log (COLLECTORS pods' logs read at once)."""
        directory = raw / NODES_DIR
        directory.mkdir(parents=True, exist_ok=True)
        selector = f"app={APP}"
        pods = self.core.decoded("list_namespaced_pod", self.namespace, label_selector=selector)
        since = int(time.time() - begun + MARGIN_S) + 1

        def collect(pod: dict[str, Any]) -> None:
            # a node gone meanwhile: the others count
            with spent_on(COST_PART), contextlib.suppress(Exception):
                log = self.core.text(
                    "read_namespaced_pod_log",
                    pod["metadata"]["name"],
                    self.namespace,
                    timestamps=True,
                    since_seconds=since,
                )
                kept = [line for line in log.splitlines() if _after(line, begun - MARGIN_S)]
                path = directory / f"{k8s_name(pod['spec']['nodeName'])}.log"
                path.write_text("".join(f"{line}\n" for line in kept), encoding="utf-8")

        placed = [pod for pod in pods["items"] if (pod.get("spec") or {}).get("nodeName")]
        with ThreadPoolExecutor(max_workers=COLLECTORS) as pool:
            list(pool.map(collect, placed))


def _after(line: str, moment: float) -> bool:
    stamped = epoch_of(line)
    return stamped is not None and stamped[0] >= moment
