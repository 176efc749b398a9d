"""OpenStack target for Rally workloads: each step runs the workload's Rally task at the
step's concurrency, in a runner process of its own (harness/planes/rally/runner.py, Rally's
Python API) started ahead: at the campaign's preparation for its first step, at a step's
end for the next, so that no step waits for Rally to load; and keeps Rally's JSON and HTML
reports under the step's raw/.

Rally works as the cloud's admin (credentials from clouds.yaml, handed to the runner in a
0600 file in volperf's Rally state dir, never in the campaign). Each task's uuid is noted
in created.json as soon as the runner has it, so `volperf cleanup` can remove what a task
left even when volperf was killed mid-step, and its owner uuids (its workloads' and its
own: the owners in the names of what it made) once the task has ended. Ceph health is
sampled during every step when the target names a ceph_conf, and a workload's faults are
given by volperf fault hooks added to its task (planes/rally/faults.py): an OSD's to that
cluster, a Cinder service's to the OpenStack testbed, whose services are then sampled
through the step; what they left undone at the step's end.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.metadata
import json
import sys
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

from harness.core.faults import ServiceFault
from harness.core.plan import Step, plan_steps
from harness.core.resources import package_path
from harness.core.spec import CampaignSpec, OpenStackTarget, RallyWorkload
from harness.core.store import CampaignStore, atomic_write_text
from harness.core.workloads.registry import family_of
from harness.host.process import Command, ProcessResult, WarmProcess, log_tail, run_processes
from harness.planes.base import StepOutcome, TargetError, Tick
from harness.planes.ceph.access import CephAccess
from harness.planes.ceph.faults import OsdSwitch
from harness.planes.ceph.health_sampler import CephHealthSampler
from harness.planes.cloud import cloud_region, clouds_yaml, connect
from harness.planes.rally.cleanup import find_leftovers, ready_to_check
from harness.planes.rally.faults import Switches, fault_hooks, undo_left
from harness.planes.rally.runner import JSON_REPORT, TASK_FILE
from harness.planes.rally.service_faults import ServiceSwitch, openstack_testbed_of
from harness.planes.rally.service_states import ServiceStateSampler
from harness.testbeds import state_root

TASKS_DIR = package_path("rally_plugins", "tasks")
TASK_KIND = "rally-task"
RUNNER = "harness.planes.rally.runner"


def rally_state_dir() -> Path:
    """Volperf's Rally database and environments (credentials: kept out of campaigns)."""
    return state_root() / "rally"


def task_file(task: str) -> Path:
    """A task of rally_plugins/tasks by name, else a path."""
    named = TASKS_DIR / f"{task}.yaml"
    path = named if named.exists() else Path(task).expanduser()
    if not path.is_file():
        known = ", ".join(sorted(p.stem for p in TASKS_DIR.glob("*.yaml")))
        raise TargetError(f"Rally task {task!r}: no such file, nor one of volperf's ({known})")
    return path


def rally_env_spec(region: Any) -> dict[str, Any]:
    """Rally's environment spec for an admin from a clouds.yaml entry."""
    auth = region.config["auth"]
    admin = {
        key: auth[key]
        for key in (
            "username",
            "password",
            "project_name",
            "user_domain_name",
            "project_domain_name",
        )
        if auth.get(key)
    }
    return {
        "openstack": {
            "auth_url": auth["auth_url"],
            "region_name": region.region_name or "",
            "https_insecure": not region.verify,
            "admin": admin,
        }
    }


class RallyTarget:
    path: Path | None = None  # it measures the cloud's control plane

    def __init__(self, spec: CampaignSpec, rally_dir: Path | None = None):
        assert isinstance(spec.target, OpenStackTarget)
        self.spec = spec
        self.options = spec.target
        self.rally_dir = rally_dir or rally_state_dir()
        self.env = "volperf"  # and the credentials' digest, once known
        self.backend = spec.labels.get("backend", f"openstack:{self.options.cloud}")
        self.announcements: list[str] = []
        # the next step's runner, started ahead (Rally and its plugins load meanwhile:
        # about 1.8 s here, which a step no longer waits for), and the steps it may serve
        self.warm: WarmProcess | None = None
        self.steps_left = 0
        # each task's check of what it left in the cloud, started once the runner has
        # noted its owners (while it writes its reports), by the note's key: True when
        # it left nothing (its note is then done with at the campaign's end)
        self.conn: Any = None
        self.checks: dict[str, Future[bool]] = {}
        self.checker: ThreadPoolExecutor | None = None

    def prepare(self, spec: CampaignSpec, store: CampaignStore) -> None:
        # a search chooses its steps as it goes: each starts its runner then
        planned = plan_steps(spec) if spec.search is None else []
        self.steps_left = len(
            [
                s
                for s in planned  # an openstack spec's fio workloads are Heat's steps
                if family_of(s.workload) == "rally" and not store.read_status(s.id).settled
            ]
        )
        self._warm_up()  # loads while the cloud is reached and the campaign written
        try:
            self._prepare(spec)
        except BaseException:
            self.cleanup(store)
            raise

    def _prepare(self, spec: CampaignSpec) -> None:
        region = cloud_region(self.options)
        self.conn = connect(self.options, region)
        self.checker = ThreadPoolExecutor(1, thread_name_prefix="rally-leftovers")
        # the check's clients made (each finds its API's version: a request apiece) and
        # Rally's naming loaded while the steps run, not after each
        self.checker.submit(ready_to_check, self.conn)
        for workload in spec.workloads:
            assert family_of(workload) == "rally"
            task_file(workload.task)
        self.check_faults(spec)
        self.rally_dir.mkdir(parents=True, exist_ok=True)
        self.rally_dir.chmod(0o700)
        env_spec = json.dumps(rally_env_spec(region), sort_keys=True)
        # a Rally environment per cloud and credentials, made by the first campaign that
        # needs it (Rally checks the cloud as it makes one) and used by every later one: a
        # testbed made again (new passwords) gets a new one instead of the stale one
        digest = hashlib.sha256(env_spec.encode()).hexdigest()[:8]
        self.env = f"volperf-{digest}"
        # whole when it appears (mkstemp's 0600): another campaign's runner may read it
        atomic_write_text(self.rally_dir / f"{self.env}.env.json", env_spec)

    def _switches(self) -> Switches:
        conf = self.options.ceph_conf
        clouds = clouds_yaml(self.options)
        return Switches(
            osds=None if conf is None else OsdSwitch(conf.expanduser(), self.options.ceph_user),
            services=ServiceSwitch(openstack_testbed_of(clouds)),
            clouds_yaml=clouds,
            allow_faults=self.options.allow_faults,
        )

    def check_faults(self, spec: CampaignSpec) -> None:
        """Refuse faults that may not be given; else say what they will run."""
        faults = [f for w in spec.workloads for f in getattr(w, "faults", [])]
        if not faults:
            return
        planned = self._switches().check(faults)
        self.announcements = [
            "faults in each workload of their Rally task (seconds after it starts), those "
            "left at the step's end undone:",
            *(f"  {line}" for line in planned),
        ]

    def tool_versions(self) -> dict[str, str]:
        versions = {}
        for package in ("rally", "rally-openstack", "openstacksdk"):
            with contextlib.suppress(importlib.metadata.PackageNotFoundError):
                versions[package] = importlib.metadata.version(package)
        return versions

    def _note_task(self, store: CampaignStore, raw: Path) -> None:
        path = raw / TASK_FILE
        if not path.exists():
            return
        with contextlib.suppress(ValueError, OSError, KeyError):
            task = json.loads(path.read_text())
            key = f"{TASK_KIND}:{task['uuid']}"
            noted = store.created().get(key)
            if noted is None:
                clouds = clouds_yaml(self.options)
                store.record_created(
                    key,
                    kind=TASK_KIND,
                    uuid=task["uuid"],
                    cloud=self.options.cloud,
                    clouds_yaml=str(clouds) if clouds else "",
                    rally_dir=str(self.rally_dir),
                )
            if "owners" in task and (noted or {}).get("owners") != task["owners"]:
                store.record_created(key, owners=task["owners"])
                self._check(key, task["owners"])

    def run_step(
        self, step: Step, store: CampaignStore, stop: threading.Event, tick: Tick
    ) -> StepOutcome:
        """The task at the step's concurrency, in a runner process, the cluster's health
        sampled meanwhile; the task's uuid noted as soon as Rally has one."""
        workload = step.workload
        assert family_of(workload) == "rally"
        raw = store.raw_dir(step.id)
        raw.mkdir(parents=True, exist_ok=True)
        command = self._task_command(workload, step.concurrency, raw, store)

        def on_tick(elapsed: float) -> None:
            self._note_task(store, raw)
            tick(elapsed, None)

        try:
            with self._health_sampler(raw), self._service_sampler(workload, raw):
                [result] = run_processes([command], workload.timeout, stop, on_tick)
        finally:
            if workload.faults:  # what the hooks left changed, put back
                undo_left(workload.faults, self._switches(), store, raw)
        self.steps_left -= 1
        if not stop.is_set():
            self._warm_up()  # the next step's, while this one's records are written
        self._note_task(store, raw)
        return _outcome(workload, result, raw, stop)

    def _task_command(
        self, workload: RallyWorkload, concurrency: int, raw: Path, store: CampaignStore
    ) -> Command:
        args = {
            **workload.args,
            "times": workload.times_at(concurrency),
            "concurrency": concurrency,
        }
        argv = [
            sys.executable,
            "-m",
            RUNNER,
            "--rally-dir",
            str(self.rally_dir),
            "--env",
            self.env,
            "--task",
            str(task_file(workload.task)),
            "--args",
            json.dumps(args),
            "--out",
            str(raw),
            "--tag",
            "volperf",
            "--tag",
            self.spec.name,
        ]
        if workload.poll_interval is not None:
            argv += ["--poll-interval", str(workload.poll_interval)]
        if workload.wait_timeout is not None:
            argv += ["--wait-timeout", str(workload.wait_timeout)]
        if workload.faults:
            hooks = fault_hooks(workload.faults, self._switches(), store.root)
            argv += ["--hooks", json.dumps(hooks)]
        warm, self.warm = self.warm, None
        return Command(argv, raw / "runner.out", raw / "runner.err", warm=warm)

    def _warm_up(self) -> None:
        """A runner started ahead for the next step, if a step is left to run."""
        if self.warm is None and self.steps_left > 0:
            self.warm = WarmProcess(RUNNER)

    def _health_sampler(self, raw: Path) -> contextlib.AbstractContextManager[Any]:
        if self.options.ceph_conf is None:
            return contextlib.nullcontext()
        access = CephAccess(self.options.ceph_conf.expanduser(), self.options.ceph_user, pool="")
        return CephHealthSampler(raw / "ceph-health.jsonl", access, self.options.health_interval)

    def _service_sampler(
        self, workload: RallyWorkload, raw: Path
    ) -> contextlib.AbstractContextManager[Any]:
        """Cinder's services sampled through a workload given service faults."""
        if not any(isinstance(f, ServiceFault) for f in workload.faults):
            return contextlib.nullcontext()
        return ServiceStateSampler(raw, connect(self.options))

    def _check(self, key: str, owners: list[str]) -> None:
        """What the task left, listed in the background: its runner has ended the task
        and goes on with its reports meanwhile."""
        if self.conn is None or self.checker is None:
            return
        conn = self.conn
        self.checks[key] = self.checker.submit(lambda: not find_leftovers(conn, owners).found())

    def cleanup(self, store: CampaignStore) -> list[str]:
        if self.warm is not None:  # a runner started for a step that did not run
            self.warm.close()
            self.warm = None
        # a task whose check found nothing left is done with; the others, and any whose
        # check failed, are the campaign's removers' (planes/rally/cleanup.py)
        for key, check in self.checks.items():
            with contextlib.suppress(Exception):
                if check.result() and key in store.created():
                    store.forget_created(key)
        self.checks = {}
        if self.checker is not None:
            self.checker.shutdown()
            self.checker = None
        return []  # what it made is noted in created.json: the campaign removes it


def _outcome(
    workload: RallyWorkload, result: ProcessResult, raw: Path, stop: threading.Event
) -> StepOutcome:
    """Done once Rally's report is there (a runner that exited non-zero after it is noted)."""
    if stop.is_set():
        return StepOutcome("interrupted", "stopped: the Rally task was aborted")
    if result.timed_out:
        return StepOutcome(
            "failed", f"the Rally task ran past {workload.timeout} s and was aborted"
        )
    if not (raw / JSON_REPORT).exists():
        return StepOutcome(
            "failed",
            f"the Rally runner exited {result.returncode} without "
            f"a report: {log_tail(raw / 'runner.err')}",
        )
    notes = [] if result.returncode == 0 else [log_tail(raw / "runner.err")]
    return StepOutcome("done", notes=notes)
