"""The application workloads (git, build, redis, broker: harness/tools/apps) on a Kubernetes
target: each consumer of a step is a project, a namespace of its own (noted in
created.json before it is made) with a PVC of the class and one pod (the applications'
image) that generates the workload's source into a scratch volume (an emptyDir, untimed),
reports ready, and on volperf's start signal, given to every project's pod at once, runs
the workload's script on the PVC. A project's run ends with its script's last line, seen
in the pod's followed log (pod_end.py), or with its pod's end. The pods' logs (the
script's lines) come back to raw/app/<consumer>.out, what volperf saw of each PVC and pod
(bound and ready times, phase, reason) to raw/app/projects.json.

redis and broker have two pods: the application, a redis-server or a nats-server with its
data on the PVC (pod "server"), and its load generator, volperf-ycsb or nats bench in pod
"app" (no PVC), which learns the server's address (pod IP and port: the testbed has no
cluster DNS) from the start signal; the server's log comes back to
raw/app/<consumer>.server.log.

Namespaces are created and deleted at the workload's pace (at most so many a minute) or
all at once; each is deleted after the step whatever happened, and the step ends once
its pods and PVCs are gone."""

from __future__ import annotations

import contextlib
import math
import shutil
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from harness.core.plan import Step
from harness.core.spec import AppWorkload, CampaignSpec, K8sTarget
from harness.core.store import CampaignStore, atomic_write_json
from harness.core.workloads.registry import family_of
from harness.planes.base import StepOutcome, Tick
from harness.planes.k8s.cluster import (
    LABEL,
    NotOurs,
    k8s_name,
    make_namespace,
    release_namespace,
    waiting_reason,
)
from harness.planes.k8s.pod_end import LastLines
from harness.planes.k8s.pod_start import is_ready, signal_start, stuck
from harness.planes.k8s.pod_waiting import WaitingWatch
from harness.planes.k8s.provision_target import STEP_LABEL, Pace
from harness.records.app_step import APP_DIR, PROJECTS_FILE, read_runs
from harness.tools.apps import command
from harness.tools.apps.parse import DONE

SCRIPTS = "/scripts"  # the ConfigMap of the scripts (harness/tools/apps)
SCRATCH = "/origin"  # an emptyDir: the generated source, the start files
DATA = "/data"  # the PVC
READY = f"{SCRATCH}/ready"
START = f"{SCRATCH}/start"
CONTAINER = "app"
SERVER = "server"  # redis, broker: the application's pod, beside its load generator's ("app")
POLL_S = 0.5
DELETE_TIMEOUT_S = 300
DELETERS = 8


class K8sAppTarget:
    def __init__(self, spec: CampaignSpec, core: Any, kubeconfig: str):
        assert isinstance(spec.target, K8sTarget)
        self.spec = spec
        self.options: K8sTarget = spec.target
        self.core = core
        self.kubeconfig = kubeconfig

    def run_step(
        self, step: Step, store: CampaignStore, stop: threading.Event, tick: Tick
    ) -> StepOutcome:
        workload = step.workload
        assert family_of(workload) == "app"
        raw = store.raw_dir(step.id) / APP_DIR
        shutil.rmtree(raw, ignore_errors=True)
        raw.mkdir(parents=True)
        projects = {
            c.name: k8s_name(f"volperf-{self.spec.name}-{step.index:03d}-{c.name}")
            for c in step.consumers
        }
        seen: dict[str, dict[str, Any]] = {c: {"namespace": ns} for c, ns in projects.items()}
        record = {"storage_class": self.options.storage_class, "projects": seen}
        waited = "interrupted"
        try:
            self._create(step, workload, store, projects, seen, stop)
            if not stop.is_set():
                waited = self._wait(step, workload, projects, seen, stop, tick)
            self._collect(projects, seen, raw, command.is_served(workload))
        finally:
            atomic_write_json(raw / PROJECTS_FILE, record)
            self._delete(workload, projects, seen)
            atomic_write_json(raw / PROJECTS_FILE, record)
        return self._outcome(raw, seen, waited)

    def _create(
        self,
        step: Step,
        workload: AppWorkload,
        store: CampaignStore,
        projects: dict[str, str],
        seen: dict[str, dict[str, Any]],
        stop: threading.Event,
    ) -> None:
        labels = {LABEL: k8s_name(self.spec.name), STEP_LABEL: str(step.index)}
        pace = Pace.per_minute(workload.pace.create_per_min)
        scripts = command.scripts()
        for consumer, namespace in projects.items():
            pace.wait()
            if stop.is_set():
                return
            seen[consumer]["created_ms"] = int(time.time() * 1000)
            try:
                make_namespace(self.core, store, self.kubeconfig, namespace, self.spec.name, labels)
            except NotOurs as exc:  # never deleted
                seen[consumer].update(error=str(exc), not_ours=True)
                continue
            except Exception as exc:
                seen[consumer]["error"] = _not_created(exc)
                continue
            try:
                self.core.create_namespaced_config_map(
                    namespace, {"metadata": {"name": "app-scripts"}, "data": scripts}
                )
                self.core.create_namespaced_persistent_volume_claim(
                    namespace, self._claim(workload, labels)
                )
                if command.is_served(workload):
                    self.core.create_namespaced_pod(namespace, self._server(workload, labels))
                self.core.create_namespaced_pod(namespace, self._pod(workload, labels))
            except Exception as exc:  # a quota, a policy: the API's answer, and go on
                seen[consumer]["error"] = _not_created(exc)

    def _claim(self, workload: AppWorkload, labels: dict[str, str]) -> dict[str, Any]:
        # what a consumer holds at once, with room for the file system
        request = f"{math.ceil(1.1 * command.peak_bytes(workload) / 2**20) + 64}Mi"
        return {
            "metadata": {"name": "data", "labels": labels},
            "spec": {
                "accessModes": ["ReadWriteOnce"],
                "storageClassName": self.options.storage_class,
                "resources": {"requests": {"storage": request}},
            },
        }

    def _container(self, name: str, script: str, probe: str, mounts: list[str]) -> dict[str, Any]:
        """One of the applications' containers: ``script`` under sh, ready when ``probe``
        succeeds, the volumes named mounted where they go."""
        paths = {"data": DATA, "scripts": SCRIPTS, "scratch": SCRATCH}
        return {
            "name": name,
            "image": self.options.app_image,
            "imagePullPolicy": self.options.image_pull_policy,
            "command": ["/bin/sh", "-c", script],
            "env": [{"name": "HOME", "value": "/tmp"}],
            "readinessProbe": {"exec": {"command": ["/bin/sh", "-c", probe]}, "periodSeconds": 1},
            "volumeMounts": [{"name": m, "mountPath": paths[m]} for m in mounts],
        }

    def _server(self, workload: command.ServedWorkload, labels: dict[str, str]) -> dict[str, Any]:
        """redis, broker: the application's own pod, its data on the PVC."""
        serve = " ".join(command.serve(SCRIPTS, workload, f"{DATA}/{workload.tool}"))
        probe = command.server_ready(workload)
        container = self._container(SERVER, serve, probe, ["data", "scripts"])
        container["ports"] = [{"containerPort": workload.port}]
        return {
            "metadata": {"name": SERVER, "labels": labels},
            "spec": {
                "restartPolicy": "Never",
                "terminationGracePeriodSeconds": 5,
                "containers": [container],
                "volumes": [
                    {"name": "data", "persistentVolumeClaim": {"claimName": "data"}},
                    {"name": "scripts", "configMap": {"name": "app-scripts"}},
                ],
            },
        }

    def _pod(self, workload: AppWorkload, labels: dict[str, str]) -> dict[str, Any]:
        """The workload's own pod; redis's and the broker's their load generator, without
        the PVC, told the server's address by the start signal."""
        source = f"{SCRATCH}/{command.source_key(workload)}"
        generate = " ".join(command.generate(SCRIPTS, workload, source))
        served = command.is_served(workload)
        work, server = (
            (f"{SCRATCH}/work", f'"$(cat {START})"') if served else (f"{DATA}/work", None)
        )
        run = " ".join(command.run(SCRIPTS, workload, source, work, server=server))
        said = f"{SCRATCH}/source.out"
        script = (
            f"{generate} >{said} 2>&1 || {{ cat {said}; exit 2; }}; cat {said}; touch {READY}; "
            f"while [ ! -e {START} ]; do sleep 0.05; done; exec {run}"
        )
        mounts = ["scripts", "scratch"] if served else ["data", "scripts", "scratch"]
        volumes = [
            {"name": "scripts", "configMap": {"name": "app-scripts"}},
            {"name": "scratch", "emptyDir": {}},
        ]
        if not served:
            volumes.append({"name": "data", "persistentVolumeClaim": {"claimName": "data"}})
        return {
            "metadata": {"name": CONTAINER, "labels": labels},
            "spec": {
                "restartPolicy": "Never",
                "terminationGracePeriodSeconds": 5,
                "containers": [self._container(CONTAINER, script, f"test -e {READY}", mounts)],
                "volumes": volumes,
            },
        }

    def _wait(
        self,
        step: Step,
        workload: AppWorkload,
        projects: dict[str, str],
        seen: dict[str, dict[str, Any]],
        stop: threading.Event,
        tick: Tick,
    ) -> str:
        """Poll the projects' PVCs and pods until every pod ended, or printed its last
        line: 'done', 'interrupted' or 'timed out'. Once every pod still going is ready,
        the start signal."""
        selector = f"{LABEL}={k8s_name(self.spec.name)},{STEP_LABEL}={step.index}"
        consumer_of = {namespace: consumer for consumer, namespace in projects.items()}
        started = time.monotonic()
        limit = self.options.pod_timeout + command.timeout_s(workload)
        pending = {c for c in projects if not seen[c].get("error")}  # made, all of it
        ready: set[str] = set()
        servers: dict[str, str] = {}  # redis, broker: each ready server's address
        served = command.is_served(workload)
        signalled = False
        waiting = WaitingWatch()
        last_lines = LastLines(self.core, CONTAINER, DONE)
        while pending:
            tick(time.monotonic() - started, None)
            if stop.is_set():
                return "interrupted"
            now_ms = int(time.time() * 1000)
            claims = self.core.list_persistent_volume_claim_for_all_namespaces(
                label_selector=selector
            )
            for claim in claims.items:
                consumer = consumer_of.get(claim.metadata.namespace)
                if consumer and claim.status.phase == "Bound":
                    seen[consumer].setdefault("bound_ms", now_ms)
            for pod in self.core.list_pod_for_all_namespaces(label_selector=selector).items:
                consumer = consumer_of.get(pod.metadata.namespace)
                if consumer not in pending:
                    continue
                entry = seen[consumer]
                if pod.metadata.name == SERVER:
                    if problem := self._server_state(workload.tool, pod, started, waiting):
                        entry["error"] = problem
                        pending.discard(consumer)
                    elif is_ready(pod):
                        entry.setdefault("server_ready_ms", now_ms)
                        port = workload.port
                        servers[consumer] = f"{pod.status.pod_ip}:{port}"
                    continue
                entry["phase"] = pod.status.phase
                if pod.status.phase in ("Succeeded", "Failed"):
                    pending.discard(consumer)
                    continue
                if last_lines.said(consumer):  # the kubelet says so some 2 s later
                    entry["said_done_ms"] = now_ms
                    pending.discard(consumer)
                    continue
                if is_ready(pod):
                    entry.setdefault("ready_ms", now_ms)
                    ready.add(consumer)
                reason = waiting_reason(pod)
                waited = time.monotonic() - started
                late = pod.status.phase == "Pending" and waited > self.options.pod_timeout
                if waiting.hopeless(consumer, reason) or late:
                    entry["error"] = stuck(self.core, pod, reason, waited, claim="data")
                    pending.discard(consumer)
            if (
                not signalled
                and pending
                and pending <= ready
                and (not served or pending <= set(servers))
            ):
                signalled = True
                pods = {c: (projects[c], CONTAINER) for c in sorted(pending)}
                told = servers if served else None
                signal_start(self.core, pods, CONTAINER, START, seen, stop, told)
                for consumer, (namespace, pod) in pods.items():
                    last_lines.follow(consumer, namespace, pod)
            if time.monotonic() - started > limit:
                for consumer in pending:
                    seen[consumer]["error"] = (
                        f"still {seen[consumer].get('phase', 'unknown')} after {limit:.0f} s"
                    )
                return "timed out"
            time.sleep(POLL_S)
        return "done"

    def _server_state(self, tool: str, pod: Any, started: float, waiting: WaitingWatch) -> str:
        """Why a project's redis or broker server will not serve, or ''."""
        if pod.status.phase in ("Succeeded", "Failed"):  # its log says why
            return f"its {tool} server's pod ended {pod.status.phase}"
        reason = waiting_reason(pod)
        waited = time.monotonic() - started
        if waiting.hopeless(pod.metadata.name, reason) or (
            pod.status.phase == "Pending" and waited > self.options.pod_timeout
        ):
            why = stuck(self.core, pod, reason, waited, claim="data")
            return f"its {tool} server's pod: {why}"
        return ""

    def _collect(
        self, projects: dict[str, str], seen: dict[str, dict[str, Any]], raw: Any, served: bool
    ) -> None:
        """Each pod's log (the source's line, then the phases) as raw/app/<consumer>.out;
        a redis or broker server's as <consumer>.server.log."""
        for consumer, namespace in projects.items():
            with contextlib.suppress(Exception):  # a pod never made: its error says why
                log = self.core.read_namespaced_pod_log(CONTAINER, namespace)
                (raw / f"{consumer}.out").write_text(log, encoding="utf-8")
            if served:
                with contextlib.suppress(Exception):  # a pod never made: its error says why
                    log = self.core.read_namespaced_pod_log(SERVER, namespace)
                    (raw / f"{consumer}.server.log").write_text(log, encoding="utf-8")
            if seen[consumer].get("phase") == "Failed" and not seen[consumer].get("error"):
                with contextlib.suppress(Exception):
                    pod = self.core.read_namespaced_pod(CONTAINER, namespace)
                    state = pod.status.container_statuses[0].state.terminated
                    seen[consumer]["exit_code"] = state.exit_code

    def _delete(
        self, workload: AppWorkload, projects: dict[str, str], seen: dict[str, dict[str, Any]]
    ) -> None:
        """Every project's namespace deleted (at the workload's pace), its pods and PVCs
        waited for; one still there is noted (namespace_left)."""
        pace = Pace.per_minute(workload.pace.delete_per_min)

        def delete(consumer: str) -> None:
            if seen[consumer].get("not_ours"):
                return  # someone else's namespace of that name: never touched
            pace.wait()
            seen[consumer]["deleted_ms"] = int(time.time() * 1000)
            if not release_namespace(self.core, projects[consumer], DELETE_TIMEOUT_S):
                seen[consumer]["namespace_left"] = True

        with ThreadPoolExecutor(max_workers=DELETERS) as pool:
            list(pool.map(delete, projects))

    def _outcome(self, raw: Any, seen: dict[str, dict[str, Any]], waited: str) -> StepOutcome:
        if waited == "interrupted":
            return StepOutcome("interrupted", "stopped on request; the namespaces were deleted")
        runs = read_runs(raw)
        failed = []
        for consumer, entry in seen.items():
            run = runs.get(consumer)
            if entry.get("error"):
                failed.append(f"{consumer}: {entry['error']}")
            elif run is None or run.failed_iterations():
                phase = entry.get("phase", "unknown")
                said = "; ".join(run.errors) if run else ""
                failed.append(f"{consumer}: {said or f'its pod ended {phase}, output incomplete'}")
        if waited == "timed out" or failed:
            return StepOutcome(
                "failed", f"{len(failed)} of {len(seen)} projects failed: " + " | ".join(failed)
            )
        return StepOutcome("done")


def _not_created(exc: Exception) -> str:
    """The API's answer to a create request, on one line."""
    return f"not created: {type(exc).__name__}: {' '.join(str(exc).split())}"
