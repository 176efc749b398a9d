"""Kubernetes target for fio workloads: each step's consumers are pods, each with its own
PVC of the target's StorageClass, started at once in a namespace of the step's own
(labelled with the campaign, noted in created.json before it is made, deleted after the
step whatever happened). Each pod runs volperf's own fio job for its consumer (a
ConfigMap) and prints fio's JSON, which its log brings back to raw/pods/. PVC-bound and
pod-running times are polled every half second.

A PVC that never binds, an image that cannot be pulled or a pod that crash-loops ends the
wait for that pod within ``pod_timeout`` with its phase and last events in the row.
"""

from __future__ import annotations

import contextlib
import json
import math
import shutil
import threading
import time
from pathlib import Path
from typing import Any

from harness.core.faults import NodeFault
from harness.core.plan import Step
from harness.core.spec import CampaignSpec, FioWorkload, K8sTarget
from harness.core.store import CampaignStore, atomic_write_json
from harness.core.units import size_bytes
from harness.core.workloads.registry import family_of
from harness.planes.base import StepOutcome, TargetError, Tick
from harness.planes.faults import FaultInjector, FaultLedger
from harness.planes.fio_step import step_timeout
from harness.planes.k8s.cluster import (
    LABEL,
    NotOurs,
    api_client,
    k8s_name,
    kubeconfig_path,
    make_namespace,
    release_namespace,
    waiting_reason,
)
from harness.planes.k8s.json_api import STORAGE_CLASSES, VERSION, JsonApi
from harness.planes.k8s.node_faults import NodeSwitch
from harness.planes.k8s.node_states import NodeStateSampler
from harness.planes.k8s.pod_start import is_ready, signal_start, stuck
from harness.planes.k8s.pod_waiting import WaitingWatch
from harness.planes.k8s.step import LOGS_SUFFIX, PODS_DIR, PODS_FILE, k8s_step
from harness.tools.fio.printout import print_logs_command, printout_complete, split_printout
from harness.tools.fio.render import JobTarget, render_job, render_prefill

SCRATCH = "/volperf"  # in the pod: an emptyDir of its own
BLOCK_DEVICE = "/dev/volperf-data"  # the PVC in a pod of volume_mode Block
POLL_S = 0.5
LOG_COMPLETE_S = 15  # how long a pod's log may take to hold all it printed
DELETE_TIMEOUT_S = 300
LOGS = f"{SCRATCH}/logs"  # fio's per-second logs in the pod
READY = f"{SCRATCH}/ready"  # made once prefilled: the pod's readiness probe
START = f"{SCRATCH}/start"  # made by volperf once every pod is ready: when fio starts
# fio starts at a whole second this far after the signal is sent, on the node's clock:
# the pods share a start time, not the moments their signals (one exec each) arrive
START_AHEAD_S = 3


def _ms(moment: Any) -> int | None:
    return int(moment.timestamp() * 1000) if moment is not None else None


class K8sFioTarget:
    def __init__(self, spec: CampaignSpec):
        assert isinstance(spec.target, K8sTarget)
        self.spec = spec
        self.options: K8sTarget = spec.target
        self.kubeconfig = kubeconfig_path(self.options.kubeconfig)
        self.backend = spec.labels.get("backend", f"k8s:{self.options.storage_class}")
        self._api: Any = None
        self._switch: NodeSwitch | None = None
        self.announcements: list[str] = []

    @property
    def api(self) -> Any:
        """The client's ApiClient of the kubeconfig, made once."""
        if self._api is None:
            self._api = api_client(self.kubeconfig)
        return self._api

    @property
    def core(self) -> Any:
        from kubernetes import client

        return client.CoreV1Api(self.api)

    @property
    def switch(self) -> NodeSwitch:
        """How the workloads' node faults act on the cluster, made once."""
        if self._switch is None:
            self._switch = NodeSwitch(self.kubeconfig, self.core)
        return self._switch

    def prepare(self, spec: CampaignSpec, store: CampaignStore) -> None:
        if not self.kubeconfig.exists():
            raise TargetError(
                f"{self.kubeconfig}: no such kubeconfig (target.kubeconfig, "
                "$KUBECONFIG, or `volperf testbed up k8s`)"
            )
        try:
            classes = JsonApi(self.api).get(STORAGE_CLASSES)["items"]
        except Exception as exc:
            raise TargetError(
                f"the cluster of {self.kubeconfig} did not answer: {type(exc).__name__}: {exc}"
            ) from None
        names = sorted(sc["metadata"]["name"] for sc in classes)
        if self.options.storage_class not in names:
            raise TargetError(
                f"StorageClass {self.options.storage_class!r} does not exist "
                f"in the cluster (it has: {', '.join(names) or 'none'})"
            )
        self._check_faults(spec)

    def _check_faults(self, spec: CampaignSpec) -> None:
        faults = [f for w in spec.workloads for f in _node_faults(w)]
        if not faults:
            return
        if not self.options.start_together:
            raise TargetError(
                f"faults {', '.join(f.label for f in faults)}: their times are from the "
                "pods' shared start: the target needs start_together: true"
            )
        self.switch.check(faults, self.options.allow_faults)
        self.announcements = [
            f"faults on {self.switch.where}, in each step of their workload, each undone "
            "at the step's end; the step's pods spread over the nodes:",
            *(f"  {line}" for line in self.switch.plan(faults)),
        ]

    def tool_versions(self) -> dict[str, str]:
        with contextlib.suppress(Exception):
            version = JsonApi(self.api).get(VERSION)["gitVersion"]
            return {"kubernetes": version, "fio image": self.options.fio_image}
        return {"fio image": self.options.fio_image}

    def _namespace(self, step: Step) -> str:
        return k8s_name(f"volperf-{self.spec.name}-{step.index:03d}")

    def run_step(
        self, step: Step, store: CampaignStore, stop: threading.Event, tick: Tick
    ) -> StepOutcome:
        """A namespace with one pod per consumer, each on its own PVC of the class running
        volperf's fio job; each pod's output collected; the namespace deleted always."""
        workload = step.workload
        assert family_of(workload) == "fio"
        raw = store.raw_dir(step.id)
        shutil.rmtree(raw / PODS_DIR, ignore_errors=True)
        (raw / PODS_DIR).mkdir(parents=True)
        namespace = self._namespace(step)
        seen: dict[str, dict[str, Any]] = {
            c.name: {"storage_class": self.options.storage_class} for c in step.consumers
        }
        record = {
            "namespace": namespace,
            "storage_class": self.options.storage_class,
            "consumers": seen,
        }
        outcome = "done"
        made = False  # someone else's namespace of that name (NotOurs) is never deleted
        try:
            labels = {LABEL: k8s_name(self.spec.name)}
            kubeconfig = str(self.kubeconfig)
            make_namespace(self.core, store, kubeconfig, namespace, self.spec.name, labels)
            made = True
            self._create(step, workload, namespace, raw, seen)
            faults = self._faults(workload, store, raw, namespace, seen)
            states = (  # the cluster's own state through a faulted step: its phases
                NodeStateSampler(raw, self.api, namespace, faults.began)
                if faults.faults
                else contextlib.nullcontext()
            )
            with faults, states:
                outcome = self._wait(step, workload, namespace, seen, stop, tick, faults)
                self._collect(step, namespace, seen, raw)
        except NotOurs as exc:
            return StepOutcome("failed", str(exc))
        finally:
            self._delete(raw, namespace, record, made)
        return self._outcome(step, store, outcome)

    def _faults(
        self,
        workload: FioWorkload,
        store: CampaignStore,
        raw: Path,
        namespace: str,
        seen: dict[str, dict[str, Any]],
    ) -> FaultInjector:
        """The step's node faults, given on time from the pods' shared start (none: an
        injector that gives nothing)."""

        def began() -> float | None:
            starts = [entry["start_at"] for entry in seen.values() if "start_at" in entry]
            return float(min(starts)) if starts else None

        faults = _node_faults(workload)
        if faults:
            self.switch.namespace = namespace
        return FaultInjector(faults, FaultLedger(self.switch, store), began, raw)

    def _delete(self, raw: Path, namespace: str, record: dict[str, Any], made: bool) -> None:
        """raw/pods.json written, then the namespace deleted if volperf made it: the step
        ends once its pods and PVCs are gone; the campaign's end (or `volperf cleanup`)
        sees the namespace itself gone, by its note in created.json."""
        atomic_write_json(raw / PODS_FILE, record)
        if made and not release_namespace(self.core, namespace, DELETE_TIMEOUT_S):
            record["namespace_left"] = True
            atomic_write_json(raw / PODS_FILE, record)

    def _create(
        self,
        step: Step,
        workload: FioWorkload,
        namespace: str,
        raw: Any,
        seen: dict[str, dict[str, Any]],
    ) -> None:
        core = self.core
        labels = {LABEL: k8s_name(self.spec.name)}
        jobs = {}
        block = self.options.volume_mode == "Block"
        for index, consumer in enumerate(step.consumers):
            # Block: the PVC is the pod's device, written whole by fio (volperf made it)
            filename = BLOCK_DEVICE if block else f"/data/{consumer.name}"
            target = [JobTarget(consumer.jobname, consumer.rw, filename=filename)]
            jobs[f"{consumer.name}.job"] = render_job(workload, target, None, LOGS, [index])
            if workload.prefill:
                jobs[f"{consumer.name}.prefill"] = render_prefill(workload, target)
        for name, text in jobs.items():
            (raw / PODS_DIR / name).write_text(text)
        core.create_namespaced_config_map(
            namespace, {"metadata": {"name": "fio-jobs"}, "data": jobs}
        )
        # the PVC holds the file and fio's layout: a little more than the file
        request = f"{math.ceil(size_bytes(workload.size) * 1.1 / 2**20) + 64}Mi"
        for consumer in step.consumers:
            # times are taken from here: the API's own stamps are whole seconds
            seen[consumer.name]["created_ms"] = int(time.time() * 1000)
            core.create_namespaced_persistent_volume_claim(
                namespace,
                {
                    "metadata": {"name": consumer.name, "labels": labels},
                    "spec": {
                        "accessModes": ["ReadWriteOnce"],
                        "storageClassName": self.options.storage_class,
                        "volumeMode": self.options.volume_mode,
                        "resources": {"requests": {"storage": request}},
                    },
                },
            )
            data = (
                {"volumeDevices": [{"name": "data", "devicePath": BLOCK_DEVICE}]}
                if block
                else {"volumeMounts": [{"name": "data", "mountPath": "/data"}]}
            )
            # fio's own output goes to the pod's scratch volume, then to its log (stderr
            # would be mixed into a JSON on stdout)
            prefill = (
                f"fio --output={SCRATCH}/prefill.out /jobs/{consumer.name}.prefill || exit 3; "
                if workload.prefill
                else ""
            )
            # together: ready once prefilled, then fio on volperf's signal (_signal)
            barrier = (
                f"touch {READY}; while [ ! -e {START} ]; do sleep 0.05; done; "
                f"at=$(cat {START}); "
                'while [ "$(date +%s)" -lt "$((at - 1))" ]; do sleep 0.5; done; '
                'while [ "$(date +%s)" -lt "$at" ]; do sleep 0.01; done; '
                if self.options.start_together
                else ""
            )
            command = (
                f"mkdir -p {LOGS}; {prefill}{barrier}fio --output-format=json+ "
                f"--output={SCRATCH}/fio.json /jobs/{consumer.name}.job; rc=$?; "
                f"cat {SCRATCH}/fio.json; {print_logs_command(LOGS)}; exit $rc"
            )
            probe = (
                {
                    "readinessProbe": {
                        "exec": {"command": ["/bin/sh", "-c", f"test -e {READY}"]},
                        "periodSeconds": 1,
                    }
                }
                if self.options.start_together
                else {}
            )
            core.create_namespaced_pod(
                namespace,
                {
                    "metadata": {"name": consumer.name, "labels": labels},
                    "spec": {
                        **(_spread(labels) if _node_faults(workload) else {}),
                        "restartPolicy": "Never",
                        "terminationGracePeriodSeconds": 5,
                        "containers": [
                            {
                                "name": "fio",
                                "image": self.options.fio_image,
                                "imagePullPolicy": self.options.image_pull_policy,
                                "command": ["/bin/sh", "-c", command],
                                **probe,
                                **data,
                                "volumeMounts": [
                                    *data.get("volumeMounts", []),
                                    {"name": "jobs", "mountPath": "/jobs"},
                                    {"name": "scratch", "mountPath": SCRATCH},
                                ],
                            }
                        ],
                        "volumes": [
                            {"name": "data", "persistentVolumeClaim": {"claimName": consumer.name}},
                            {"name": "jobs", "configMap": {"name": "fio-jobs"}},
                            {"name": "scratch", "emptyDir": {}},
                        ],
                    },
                },
            )

    def _wait(
        self,
        step: Step,
        workload: FioWorkload,
        namespace: str,
        seen: dict[str, dict[str, Any]],
        stop: threading.Event,
        tick: Tick,
        faults: FaultInjector,
    ) -> str:
        """Poll PVCs and pods until every pod ended, or every one left ran on a node the
        faults acted on (lost to them: 'lost' in its entry): 'done', 'interrupted' or
        'timed out'."""
        core = self.core
        started = time.monotonic()
        limit = self.options.pod_timeout + step_timeout(self.spec, workload)
        pending = {c.name for c in step.consumers}
        ready: set[str] = set()
        signalled = not self.options.start_together
        waiting = WaitingWatch()
        while pending:
            tick(time.monotonic() - started, None)
            if stop.is_set():
                return "interrupted"
            now_ms = int(time.time() * 1000)
            for claim in core.list_namespaced_persistent_volume_claim(namespace).items:
                entry = seen.get(claim.metadata.name)
                if entry is not None and claim.status.phase == "Bound":
                    entry.setdefault("bound_ms", now_ms)
            for pod in core.list_namespaced_pod(namespace).items:
                entry = seen.get(pod.metadata.name)
                if entry is None or pod.metadata.name not in pending:
                    continue
                entry.setdefault("created_ms", _ms(pod.metadata.creation_timestamp))
                entry["phase"] = pod.status.phase
                if pod.spec.node_name:
                    entry["node"] = pod.spec.node_name
                if pod.status.phase in ("Running", "Succeeded", "Failed"):
                    entry.setdefault("running_ms", now_ms)
                if pod.status.phase in ("Succeeded", "Failed"):
                    pending.discard(pod.metadata.name)
                    continue
                if is_ready(pod):
                    entry.setdefault("ready_ms", now_ms)
                    ready.add(pod.metadata.name)
                reason = waiting_reason(pod)
                waited = time.monotonic() - started
                late = pod.status.phase == "Pending" and waited > self.options.pod_timeout
                if waiting.hopeless(pod.metadata.name, reason) or late:
                    entry["error"] = stuck(core, pod, reason, waited)
                    pending.discard(pod.metadata.name)
            if not signalled and pending and pending <= ready:
                signalled = True
                pods = {name: (namespace, name) for name in sorted(pending)}
                at = int(time.time()) + START_AHEAD_S
                for name in pods:
                    seen[name]["start_at"] = at
                signal_start(core, pods, "fio", START, seen, stop, dict.fromkeys(pods, str(at)))
            faulted = faults.given_on()
            lost = {n for n in pending if f"node {seen[n].get('node')}" in faulted}
            if signalled and pending and pending <= lost:
                for name in lost:
                    seen[name]["lost"] = f"its node {seen[name]['node']} was given faults"
                return "done"
            if time.monotonic() - started > limit:
                for name in pending:
                    seen[name]["error"] = (
                        f"still {seen[name].get('phase', 'unknown')} after {limit} s"
                    )
                return "timed out"
            time.sleep(POLL_S)
        return "done"

    def _collect(
        self, step: Step, namespace: str, seen: dict[str, dict[str, Any]], raw: Any
    ) -> None:
        for consumer in step.consumers:
            entry = seen[consumer.name]
            with contextlib.suppress(Exception):
                log = self._pod_log(consumer.name, namespace, entry)
                output, logs = split_printout(log)
                (raw / PODS_DIR / f"{consumer.name}.out").write_text(output)
                if logs and not entry.get("logs_cut"):
                    directory = raw / PODS_DIR / f"{consumer.name}{LOGS_SUFFIX}"
                    directory.mkdir(exist_ok=True)
                    for name, text in logs.items():
                        (directory / name).write_text(text)
            if entry.get("phase") == "Failed" and not entry.get("error"):
                with contextlib.suppress(Exception):
                    pod = self.core.read_namespaced_pod(consumer.name, namespace)
                    state = pod.status.container_statuses[0].state.terminated
                    said = (raw / PODS_DIR / f"{consumer.name}.out").read_text()[-300:]
                    entry["error"] = f"fio exited {state.exit_code}" + (
                        f": {said}" if said.strip() else " and wrote nothing"
                    )

    def _pod_log(self, pod: str, namespace: str, entry: dict[str, Any]) -> str:
        """The pod's log; a pod that succeeded, read again until it holds all of fio's
        logs (their end line): the kubelet can say the pod ended while the last lines it
        printed are still on their way to its log. Still cut after LOG_COMPLETE_S: said in
        ``entry`` (logs_cut) and its logs not kept (a cut IOPS log gives wrong figures)."""
        waited_until = time.monotonic() + LOG_COMPLETE_S
        while True:
            log = self.core.read_namespaced_pod_log(pod, namespace)
            if printout_complete(log) or entry.get("phase") != "Succeeded":
                return log
            if time.monotonic() > waited_until:
                entry["logs_cut"] = (
                    f"its log still ended before fio's per-second logs did {LOG_COMPLETE_S} s "
                    "after it succeeded: they are not kept"
                )
                return log
            time.sleep(POLL_S)

    def _outcome(self, step: Step, store: CampaignStore, waited: str) -> StepOutcome:
        plan = json.loads((store.step_dir(step.id) / "step.json").read_text())
        k8s = k8s_step(store.raw_dir(step.id), step.id, plan, self.backend)
        lost = set(k8s.summary.get("pods_lost") or [])  # to the faults: not a failure
        failed = [
            f"{r.context.consumer} ({r.error})"
            for r in k8s.records
            if r.error and (r.context.consumer not in lost or len(lost) == len(k8s.records))
        ]
        notes = [
            f"{k8s.summary['pods']} pods on StorageClass {self.options.storage_class}; "
            f"slowest PVC bound in {k8s.summary['pvc_bound_s_max']} s"
        ]
        if waited == "interrupted":
            return StepOutcome(
                "interrupted", "stopped on request; the namespace was deleted", notes
            )
        if waited == "timed out" or failed:
            return StepOutcome(
                "failed",
                f"{len(failed)} of {k8s.summary['pods']} pods gave no result: {'; '.join(failed)}",
                notes,
            )
        return StepOutcome("done", notes=notes)

    def cleanup(self, store: CampaignStore) -> list[str]:
        return []  # what it made is noted in created.json: the campaign removes it


def _node_faults(workload: Any) -> list[NodeFault]:
    return [f for f in getattr(workload, "faults", []) if isinstance(f, NodeFault)]


def _spread(labels: dict[str, str]) -> dict[str, Any]:
    """A faulted step's pods spread over the nodes, one more on a node at most: the
    faults of one node then leave the others' pods running."""
    return {
        "topologySpreadConstraints": [
            {
                "maxSkew": 1,
                "topologyKey": "kubernetes.io/hostname",
                "whenUnsatisfiable": "DoNotSchedule",
                "labelSelector": {"matchLabels": labels},
            }
        ]
    }
