"""PVC provisioning on a Kubernetes target: each consumer of a step is a namespace; all
namespaces, their PVCs (and a pod mounting each) are created at once by a pool of
clients (at most ``qps`` requests a second if the workload sets it), and two watches
(PVCs, pods, by the step's labels) note when each PVC became Bound and each pod Ready.
Times are from volperf's own create request of the PVC (Bound) and of the pod (Ready),
on this host's clock; the API server's own stamps (whole seconds: creationTimestamp, the
Ready condition's lastTransitionTime) are kept beside them, so a figure can also be
given as tools that read only those (kube-burner) give it.

Cheap on volperf's side at hundreds of namespaces: watch events and create answers are
read as JSON, not turned into the client's model objects, and the namespaces' deletion
is followed by one list of namespaces every 2 s, not a read per namespace.

A PVC that stays Pending or a pod that never becomes Ready past ``pod_timeout`` ends the
step with its name and last events; the namespaces are deleted after the step whatever
happened (and noted in created.json before they are made, for `volperf cleanup`).
"""

from __future__ import annotations

import contextlib
import json
import math
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime
from pathlib import Path
from typing import Any

from harness.core.plan import Step
from harness.core.spec import CampaignSpec, K8sTarget, PvcProvisionWorkload
from harness.core.store import CampaignStore, atomic_write_json
from harness.core.units import size_bytes
from harness.core.workloads.registry import family_of
from harness.planes.base import StepOutcome, Tick
from harness.planes.k8s.cluster import (
    LABEL,
    NotOurs,
    begin_namespace_deletion,
    drain,
    k8s_name,
    last_events,
    make_namespace,
    namespace_key,
    note_namespaces,
    waiting_reason_of,
)
from harness.planes.k8s.pod_waiting import WaitingWatch
from harness.planes.k8s.provision_step import PROVISION_FILE

STEP_LABEL = "volperf-step"
CREATORS = 16  # clients creating at once
WATCH_WINDOW_S = 30
POLL_S = 0.25
DELETE_TIMEOUT_S = 300
DELETE_POLL_S = 2


def _now_ms() -> int:
    return int(time.time() * 1000)


class Pace:
    """At most ``qps`` calls a second, ``burst`` of them at once (client-go's token bucket
    as a virtual schedule): ``wait`` blocks until the calling thread may send. With a
    burst of 1, one at a time: each call goes an interval after the one before it went,
    however late that one's sleep ended on a busy machine (on the virtual schedule, one
    woken 12 ms late was followed by one 488 ms after it, at 120 a minute). ``wait``
    returns the moment the call was let go, in Unix milliseconds, read on the schedule's
    own clock: two calls one at a time are stamped an interval apart at the least, however
    late the calling thread runs after it was let go."""

    def __init__(self, qps: float | None, burst: int | None = None):
        self.interval = 1 / qps if qps else 0.0
        self.burst = burst or max(1, math.ceil(qps or 1))
        self.next = -math.inf
        self.lock = threading.Lock()
        self.epoch = time.time() - time.monotonic()  # the schedule's clock as Unix time

    @classmethod
    def per_minute(cls, rate: float | None) -> Pace:
        """At most ``rate`` a minute, one at a time (no rate: no limit)."""
        return cls(rate / 60 if rate else None, burst=1)

    def wait(self) -> int:
        if not self.interval:
            return self._ms(time.monotonic())
        if self.burst == 1:
            with self.lock:  # held while it sleeps: the next caller waits its turn
                delay = self.next - time.monotonic()
                if delay > 0:
                    time.sleep(delay)
                went = time.monotonic()
                self.next = went + self.interval
            return self._ms(went)
        with self.lock:
            now = time.monotonic()
            at = max(self.next, now - (self.burst - 1) * self.interval)
            self.next = at + self.interval
        if at > now:
            time.sleep(at - now)
        return self._ms(max(at, now))

    def _ms(self, monotonic: float) -> int:
        return round((monotonic + self.epoch) * 1000)


def _stamp_s(text: str | None) -> float | None:
    """An API server's timestamp ('2026-11-24T06:50:01Z') as Unix seconds."""
    return datetime.fromisoformat(text).timestamp() if text else None


class _Seen:
    """What the watches and the creators saw, keyed by (namespace, PVC name)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.claims: dict[tuple[str, str], dict[str, Any]] = {}
        self.waiting = WaitingWatch()  # the pods' waiting reasons

    def note(self, key: tuple[str, str], field: str, value: Any, first: bool = True) -> None:
        with self.lock:
            entry = self.claims.setdefault(key, {})
            if not first or field not in entry:
                entry[field] = value


def _expected(workload: PvcProvisionWorkload, namespaces: dict[str, str]) -> _Seen:
    """Every PVC the step makes, with its consumer, before any is made."""
    seen = _Seen()
    for consumer, namespace in namespaces.items():
        for number in range(1, workload.pvcs + 1):
            seen.note((namespace, f"pvc-{number:03d}"), "consumer", consumer)
    return seen


def _watch(list_call: Any, selector: str, on_object: Any, done: threading.Event) -> None:
    """Follow list_call's objects with the selector until done; resume where it left."""
    from kubernetes import watch
    from kubernetes.client.exceptions import ApiException

    version = None
    while not done.is_set():
        watcher = watch.Watch()
        try:
            for event in watcher.stream(
                list_call,
                label_selector=selector,
                resource_version=version,
                timeout_seconds=WATCH_WINDOW_S,
                deserialize=False,  # plain JSON: the client's models cost most of the CPU
            ):
                version = event["object"]["metadata"]["resourceVersion"]
                on_object(event["object"])
                if done.is_set():
                    watcher.stop()
        except ApiException as exc:
            if exc.status != 410:  # 410: the version is too old, list anew
                time.sleep(1)
            version = None
        except Exception:  # also an ERROR event, which the client fails to read undeserialized
            time.sleep(1)
            version = None


class K8sProvisionTarget:
    def __init__(self, spec: CampaignSpec, core: Any, kubeconfig: str):
        assert isinstance(spec.target, K8sTarget)
        self.spec = spec
        self.options: K8sTarget = spec.target
        self.core = core
        self.kubeconfig = kubeconfig

    def run_step(
        self, step: Step, store: CampaignStore, stop: threading.Event, tick: Tick
    ) -> StepOutcome:
        """Every consumer's namespace of PVCs (and pods) created at once, watched until
        each PVC is bound and each pod ready, then deleted; times kept in raw/."""
        workload = step.workload
        assert family_of(workload) == "provision"
        namespaces = {
            c.name: k8s_name(f"volperf-{self.spec.name}-{step.index:03d}-{c.name}")
            for c in step.consumers
        }
        labels = {LABEL: k8s_name(self.spec.name), STEP_LABEL: str(step.index)}
        seen = _expected(workload, namespaces)
        projects: dict[str, dict[str, int]] = {}  # namespace -> its create and delete requests
        state, error = "done", ""
        left: list[str] = []
        # every namespace noted in created.json in one write before any is made
        note_namespaces(store, self.kubeconfig, namespaces.values(), self.spec.name)
        try:
            with self._watching(labels, seen):
                error = self._create_all(workload, namespaces, labels, seen, store, projects)
                if error:
                    state = "failed"
                else:
                    state, error = self._wait(workload, seen, stop, tick)
        finally:
            ours = [ns for ns in namespaces.values() if not projects.get(ns, {}).get("not_ours")]
            left = self._delete_all(ours, store, workload, projects)
            self._keep(store.raw_dir(step.id), workload, namespaces, seen, left, projects)
        bound = sum(1 for e in seen.claims.values() if "bound_ms" in e)
        notes = [
            f"{bound} of {len(seen.claims)} PVCs of StorageClass {self.options.storage_class} bound"
        ]
        if state != "done" and not error:
            error = "stopped on request; the namespaces were deleted"
        return StepOutcome(state, error, notes)

    @contextlib.contextmanager
    def _watching(self, labels: dict[str, str], seen: _Seen) -> Iterator[None]:
        """Watches of the step's PVCs and pods (by its labels) noting their times."""
        selector = ",".join(f"{k}={v}" for k, v in labels.items())
        done = threading.Event()
        follow = (
            (
                "watch-pvcs",
                self.core.list_persistent_volume_claim_for_all_namespaces,
                lambda claim: self._on_claim(claim, seen),
            ),
            (
                "watch-pods",
                self.core.list_pod_for_all_namespaces,
                lambda pod: self._on_pod(pod, seen),
            ),
        )
        for name, list_call, on_object in follow:
            threading.Thread(
                target=_watch,
                daemon=True,
                name=name,
                args=(list_call, selector, on_object, done),
            ).start()
        try:
            yield
        finally:
            done.set()

    def _keep(
        self,
        raw: Path,
        workload: PvcProvisionWorkload,
        namespaces: dict[str, str],
        seen: _Seen,
        left: list[str],
        projects: dict[str, dict[str, int]],
    ) -> None:
        """raw/provision.json: every PVC's times, when each namespace's create and delete
        requests went, and the namespaces not deleted."""
        record: dict[str, Any] = {
            "storage_class": self.options.storage_class,
            "pods": workload.pods,
            "namespaces": sorted(namespaces.values()),
            "projects": dict(sorted(projects.items())),
            "pvcs": [
                {"namespace": ns, "name": name, **entry}
                for (ns, name), entry in sorted(seen.claims.items())
            ],
        }
        if left:
            record["namespaces_left"] = left
        atomic_write_json(raw / PROVISION_FILE, record)

    def _on_claim(self, claim: dict[str, Any], seen: _Seen) -> None:
        meta = claim["metadata"]
        key = (meta["namespace"], meta["name"])
        seen.note(key, "created_server_s", _stamp_s(meta.get("creationTimestamp")))
        if (claim.get("status") or {}).get("phase") == "Bound":
            seen.note(key, "bound_ms", _now_ms())

    def _on_pod(self, pod: dict[str, Any], seen: _Seen) -> None:
        meta, status = pod["metadata"], pod.get("status") or {}
        key = (meta["namespace"], meta["name"])
        seen.note(key, "pod_created_server_s", _stamp_s(meta.get("creationTimestamp")))
        ready = next((c for c in status.get("conditions") or [] if c.get("type") == "Ready"), None)
        waiting = waiting_reason_of(pod)
        if ready and ready.get("status") == "True":
            seen.note(key, "ready_ms", _now_ms())
            seen.note(key, "ready_server_s", _stamp_s(ready.get("lastTransitionTime")))
        elif seen.waiting.hopeless(key, waiting):  # an image, a crash loop: no use waiting
            seen.note(key, "cannot_start", waiting, first=False)

    def _create_all(
        self,
        workload: PvcProvisionWorkload,
        namespaces: dict[str, str],
        labels: dict[str, str],
        seen: _Seen,
        store: CampaignStore,
        projects_seen: dict[str, dict[str, int]],
    ) -> str:
        request = f"{max(1, math.ceil(size_bytes(workload.size) / 2**20))}Mi"

        pace = Pace(workload.qps)
        projects = Pace.per_minute(workload.pace.create_per_min)

        def create(namespace: str) -> None:
            # the answers are read as bytes, not made into the client's models
            answer = {"_preload_content": False}
            # the projects' one-at-a-time schedule last: it lets the request go
            pace.wait()
            projects_seen.setdefault(namespace, {})["created_ms"] = projects.wait()
            try:
                make_namespace(
                    self.core,
                    store,
                    self.kubeconfig,
                    namespace,
                    self.spec.name,
                    labels,
                    noted=True,
                    **answer,
                )
            except NotOurs:
                projects_seen[namespace]["not_ours"] = 1  # never deleted, nor listed as left
                raise
            for number in range(1, workload.pvcs + 1):
                name = f"pvc-{number:03d}"
                pace.wait()
                seen.note((namespace, name), "created_ms", _now_ms(), first=False)
                drain(
                    self.core.create_namespaced_persistent_volume_claim(
                        namespace,
                        {
                            "metadata": {"name": name, "labels": labels},
                            "spec": {
                                "accessModes": ["ReadWriteOnce"],
                                "storageClassName": self.options.storage_class,
                                "resources": {"requests": {"storage": request}},
                            },
                        },
                        **answer,
                    )
                )
                if workload.pods:
                    pace.wait()
                    seen.note((namespace, name), "pod_created_ms", _now_ms(), first=False)
                    drain(
                        self.core.create_namespaced_pod(
                            namespace, self._pod(name, labels, workload.pod_image), **answer
                        )
                    )

        with ThreadPoolExecutor(max_workers=min(CREATORS, len(namespaces))) as pool:
            failures = [
                f.exception() for f in [pool.submit(create, ns) for ns in namespaces.values()]
            ]
        errors = [f"{type(e).__name__}: {e}" for e in failures if e is not None]
        return f"creating the namespaces failed: {errors[0]}" if errors else ""

    def _pod(self, claim: str, labels: dict[str, str], image: str | None) -> dict[str, Any]:
        """An idle pod mounting the claim: the workload's pod_image with its own
        entrypoint (a pause image), else the target's fio image sleeping."""
        idle: dict[str, Any] = {"image": image}
        if image is None:
            idle = {"image": self.options.fio_image, "command": ["/bin/sh", "-c", "sleep 3600"]}
        return {
            "metadata": {"name": claim, "labels": labels},
            "spec": {
                "terminationGracePeriodSeconds": 0,
                "containers": [
                    {
                        "name": "idle",
                        **idle,
                        "imagePullPolicy": self.options.image_pull_policy,
                        "volumeMounts": [{"name": "data", "mountPath": "/data"}],
                    }
                ],
                "volumes": [{"name": "data", "persistentVolumeClaim": {"claimName": claim}}],
            },
        }

    def _wait(
        self, workload: PvcProvisionWorkload, seen: _Seen, stop: threading.Event, tick: Tick
    ) -> tuple[str, str]:
        started = time.monotonic()
        wanted = ("bound_ms", "ready_ms") if workload.pods else ("bound_ms",)
        while True:
            with seen.lock:
                open_ = [k for k, e in seen.claims.items() if not all(w in e for w in wanted)]
                stuck = any("cannot_start" in seen.claims[k] for k in open_)
            tick(time.monotonic() - started, None)
            if not open_:
                return "done", ""
            if stop.is_set():
                return "interrupted", ""
            waited = time.monotonic() - started
            if waited > self.options.pod_timeout or stuck:
                return "failed", self._why(open_, seen, waited, workload.pods)
            time.sleep(POLL_S)

    def _why(self, open_: list[tuple[str, str]], seen: _Seen, waited: float, pods: bool) -> str:
        for key in open_:
            namespace, name = key
            entry = seen.claims[key]
            what = "PVC not bound" if "bound_ms" not in entry else "pod not ready"
            events = (
                f"PVC events: {last_events(self.core, namespace, 'PersistentVolumeClaim', name)}"
            )
            if pods:
                events += f"; pod events: {last_events(self.core, namespace, 'Pod', name)}"
            seen.note(key, "error", f"{what} after {waited:.0f} s; {events}", first=False)
        namespace, name = open_[0]
        return (
            f"{len(open_)} of {len(seen.claims)} PVCs not done after {waited:.0f} s; first: "
            f"{namespace}/{name}: {seen.claims[open_[0]]['error']}"
        )

    def _delete_all(
        self,
        namespaces: list[str],
        store: CampaignStore,
        workload: PvcProvisionWorkload,
        projects_seen: dict[str, dict[str, int]],
    ) -> list[str]:
        """Delete every namespace at once (at the workload's pace), then follow them with
        one list of the cluster's namespaces every DELETE_POLL_S until all are gone; the
        names still there."""
        pace = Pace.per_minute(workload.pace.delete_per_min)

        def delete(namespace: str) -> None:
            projects_seen.setdefault(namespace, {})["delete_ms"] = pace.wait()
            with contextlib.suppress(Exception):  # left below
                begin_namespace_deletion(self.core, namespace, _preload_content=False)

        with ThreadPoolExecutor(max_workers=min(CREATORS, len(namespaces))) as pool:
            list(pool.map(delete, namespaces))
        wanted = set(namespaces)
        deadline = time.monotonic() + DELETE_TIMEOUT_S
        left = wanted
        while True:
            with contextlib.suppress(Exception):  # a failed list: try again
                answer = self.core.list_namespace(_preload_content=False)
                listed = json.loads(answer.data)["items"]
                left = wanted & {n["metadata"]["name"] for n in listed}
            if wanted - left:  # one write for all those gone since the last list
                store.forget_created(*(namespace_key(self.kubeconfig, g) for g in wanted - left))
            wanted = left
            if not left or time.monotonic() > deadline:
                return sorted(left)
            time.sleep(DELETE_POLL_S)
