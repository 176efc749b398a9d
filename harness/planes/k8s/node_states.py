"""The cluster's state through a faulted step, as Kubernetes itself says it: once a
second from the measured run's start, every node's Ready condition and whether it is
cordoned, and the step's pods' phase, node and readiness, one JSON line each in
raw/k8s-states.jsonl (written as taken: an interrupted step keeps what was sampled). The
state in each sample (``state_of``) gives the step's phases (records/phases.py):

- degraded: a node is not Ready (False, or Unknown once the node controller has heard
  nothing from it for its grace period) or is cordoned;
- recovering: every node Ready and schedulable, but a pod of the step not settled yet:
  Pending (being placed again), or Running and not Ready with its containers not ended
  (its node just came back);
- healthy: every node Ready and schedulable, and every pod of the step running ready or
  ended.

Kubernetes learns of a crashed node only when its lease runs out: its phases start
then, not at the fault (which the page marks apart)."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from harness.host.sampler import SamplerThread, read_samples
from harness.planes.k8s.json_api import JsonApi
from harness.records.phases import DEGRADED, HEALTHY, RECOVERING

STATES_FILE = "k8s-states.jsonl"
INTERVAL_S = 1.0
NODES = "/api/v1/nodes"
PODS = "/api/v1/namespaces/{namespace}/pods"


def node_sample(node: dict[str, Any]) -> dict[str, Any]:
    conditions = node.get("status", {}).get("conditions") or []
    ready = next((c.get("status") for c in conditions if c.get("type") == "Ready"), "Unknown")
    return {"ready": ready, "cordoned": bool(node.get("spec", {}).get("unschedulable"))}


def pod_sample(pod: dict[str, Any]) -> dict[str, Any]:
    status = pod.get("status", {})
    conditions = status.get("conditions") or []
    ready = any(c.get("type") == "Ready" and c.get("status") == "True" for c in conditions)
    containers = status.get("containerStatuses") or []
    return {
        "phase": status.get("phase"),
        "node": pod.get("spec", {}).get("nodeName"),
        "ready": ready,
        # its containers ended (fio done, or lost): not ready, and not coming back
        "ended": bool(containers) and all("terminated" in c.get("state", {}) for c in containers),
    }


def state_of(sample: dict[str, Any]) -> str | None:
    """The cluster's state in one sample; None when the API did not answer."""
    if "error" in sample or not sample.get("nodes"):
        return None
    if any(n["ready"] != "True" or n["cordoned"] for n in sample["nodes"].values()):
        return DEGRADED
    unsettled = [
        p
        for p in (sample.get("pods") or {}).values()
        if p["phase"] == "Pending"
        or (p["phase"] == "Running" and not p["ready"] and not p.get("ended"))
    ]
    return RECOVERING if unsettled else HEALTHY


def states(samples: Sequence[dict[str, Any]]) -> list[tuple[float, str | None]]:
    return [(float(s["t"]), state_of(s)) for s in samples]


def sampled_states(raw: Path) -> list[tuple[float, str | None]]:
    """The cluster's state in each of the step's samples (none: the step kept none)."""
    return states(read_samples(raw / STATES_FILE))


class NodeStateSampler(SamplerThread):
    """Samples the nodes and the step's pods from ``began()`` (the measured run's start,
    None before) until its block ends."""

    def __init__(
        self, raw: Path, api_client: Any, namespace: str, began: Callable[[], float | None]
    ):
        super().__init__(raw / STATES_FILE, INTERVAL_S, "k8s-states")
        self.api = JsonApi(api_client)
        self.namespace = namespace
        self.began = began

    def take(self) -> dict[str, Any]:
        """One sample, stamped ``t`` when the API's answers came (the state they give is
        of some moment between ``asked_t`` and ``t``: a phase begins at a sample that
        already says so, never before)."""
        asked = time.time()
        try:
            nodes = self.api.get(NODES, _request_timeout=5)["items"]
            pods = self.api.get(PODS.format(namespace=self.namespace), _request_timeout=5)
        except Exception as exc:  # the API down or slow: the sample says so, None
            return {
                "t": time.time(),
                "asked_t": asked,
                "error": f"{type(exc).__name__}: {exc}"[:300],
            }
        sample: dict[str, Any] = {"t": time.time(), "asked_t": asked}
        sample["nodes"] = {n["metadata"]["name"]: node_sample(n) for n in nodes}
        sample["pods"] = {p["metadata"]["name"]: pod_sample(p) for p in pods["items"]}
        return sample

    def _run(self) -> None:
        while (began := self.began()) is None or time.time() < began:
            if self._stop.wait(0.1):
                return
        self._take_until_stopped(self.take)
