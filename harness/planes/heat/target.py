"""OpenStack target for fio workloads: each step creates its stacks of
heat_templates/cinder-fio at once (one per rw mode: the readers' and the writers'), each
VM with its own Cinder volume and an agent that runs fio on it and returns the result
through Heat; waits until every VM has answered or failed, keeps Heat's answers and
every VM's fio output under raw/heat/, and deletes the stacks, also when the step fails
or is stopped. Stacks are tagged with the campaign and noted in created.json before they
are created, so `volperf cleanup` finds them after a crash.
"""

from __future__ import annotations

import contextlib
import importlib.metadata
import json
import shutil
import threading
import time
from pathlib import Path
from typing import Any

from harness.core.plan import Step
from harness.core.spec import (
    CampaignSpec,
    HeatSettings,
    OpenStackTarget,
    SpecError,
    validate,
)
from harness.core.store import CampaignStore, atomic_write_json
from harness.core.workloads.registry import family_of
from harness.host.openstack_sdk import found
from harness.planes.base import StepOutcome, TargetError, Tick
from harness.planes.cloud import clouds_yaml, connect
from harness.planes.heat import api, qos
from harness.planes.heat.cleanup import delete_and_wait
from harness.planes.heat.collect import POLL_S, WAIT_MARGIN_S, collect_stacks, settled
from harness.planes.heat.parameters import (
    TAG,
    StackPlan,
    campaign_tag,
    stack_plans,
    stack_timeout_min,
    start_delay_s,
)
from harness.planes.heat.parameters import (
    listing as stack_listing,
)
from harness.planes.heat.step import HEAT_DIR, STACKS_FILE, heat_step

STACK_KIND = "heat-stack"
TAG_KIND = "heat-tag"


class HeatTarget:
    path: Path | None = None  # its storage is volumes in the cloud's VMs

    def __init__(self, spec: CampaignSpec):
        assert isinstance(spec.target, OpenStackTarget) and spec.target.heat is not None
        self.spec = spec
        self.options: OpenStackTarget = spec.target
        self.heat: HeatSettings = spec.target.heat
        self.backend = spec.labels.get("backend", f"openstack:{self.options.cloud}:cinder")
        self._conn: Any = None

    @property
    def conn(self) -> Any:
        if self._conn is None:
            self._conn = connect(self.options)
        return self._conn

    def _note(self) -> dict[str, Any]:
        clouds = clouds_yaml(self.options)
        return {
            "cloud": self.options.cloud,
            "clouds_yaml": str(clouds) if clouds else "",
            "campaign": self.spec.name,
        }

    def prepare(self, spec: CampaignSpec, store: CampaignStore) -> None:
        conn = self.conn
        missing = []
        if found(conn.image.find_image, self.heat.image) is None:
            missing.append(f"image {self.heat.image!r}")
        if (
            self.heat.prefill_image
            and found(conn.image.find_image, self.heat.prefill_image) is None
        ):
            missing.append(f"prefill_image {self.heat.prefill_image!r}")
        if found(conn.compute.find_flavor, self.heat.flavor) is None:
            missing.append(f"flavor {self.heat.flavor!r}")
        if self.heat.network and found(conn.network.find_network, self.heat.network) is None:
            missing.append(f"network {self.heat.network!r}")
        if missing:
            raise TargetError(
                f"cloud {self.options.cloud!r} has no {', '.join(missing)} (target.heat)"
            )
        # a standing note: cleanup also looks for stacks carrying the campaign's tag
        tag = campaign_tag(spec.name)
        store.record_created(
            f"{TAG_KIND}:{self.options.cloud}:{tag}", kind=TAG_KIND, tag=tag, **self._note()
        )

    def tool_versions(self) -> dict[str, str]:
        versions = {"heat template": "heat_templates/cinder-fio"}
        with contextlib.suppress(importlib.metadata.PackageNotFoundError):
            versions["openstacksdk"] = importlib.metadata.version("openstacksdk")
        return versions

    def run_step(
        self, step: Step, store: CampaignStore, stop: threading.Event, tick: Tick
    ) -> StepOutcome:
        """The readers' and the writers' stacks at once, until every VM has answered or
        failed; their answers kept under raw/heat/; the stacks deleted whatever happens."""
        workload = step.workload
        assert family_of(workload) == "fio"
        delay = start_delay_s(self.heat, _previous_ready_s(store, step))
        raw = _fresh_raw(store, step)
        start_at = int(time.time()) + delay if delay is not None else 0
        plans = stack_plans(self.spec.name, step, self.heat, start_at, delay or 0)
        listing = stack_listing(plans)
        timeout_min = stack_timeout_min(self.heat, workload, delay or 0)
        created: list[tuple[StackPlan, str]] = []
        started = time.monotonic()
        try:
            self._create(plans, listing, raw, store, timeout_min, created)
            limit = timeout_min * 60 + WAIT_MARGIN_S
            waited = self._wait([path for _, path in created], stop, tick, started, limit)
            problems = self._collect(created, raw)
        finally:
            not_deleted = self._delete(created, store)
        return self._outcome(step, store, listing, waited, problems, not_deleted)

    def _create(
        self,
        plans: list[StackPlan],
        listing: list[dict[str, Any]],
        raw: Path,
        store: CampaignStore,
        timeout_min: int,
        created: list[tuple[StackPlan, str]],
    ) -> None:
        """Each stack noted in created.json, then asked of Heat; ``created`` gets each one
        Heat took, the listing (raw/stacks.json) its id or why Heat refused it."""
        atomic_write_json(raw / STACKS_FILE, listing)
        for plan, entry in zip(plans, listing, strict=True):
            store.record_created(
                f"{STACK_KIND}:{self.options.cloud}:{plan.name}",
                kind=STACK_KIND,
                name=plan.name,
                **self._note(),
            )
            try:
                stack = api.create(
                    self.conn, plan, [TAG, campaign_tag(self.spec.name)], timeout_min
                )
            except api.HeatError as exc:
                entry["error"] = str(exc)
                continue
            entry["id"] = stack["id"]
            created.append((plan, api.ref(stack)))
        atomic_write_json(raw / STACKS_FILE, listing)

    def _wait(
        self, paths: list[str], stop: threading.Event, tick: Tick, started: float, limit: float
    ) -> str:
        """'settled' once every stack and VM is final, else 'interrupted' or 'timed out'."""
        pending = set(paths)
        last_poll = 0.0
        while pending:
            elapsed = time.monotonic() - started
            tick(elapsed, None)
            if stop.is_set():
                return "interrupted"
            if elapsed > limit:
                return "timed out"
            if time.monotonic() - last_poll >= POLL_S:
                last_poll = time.monotonic()
                for path in sorted(pending):
                    with contextlib.suppress(Exception):  # a blip of the API: ask again
                        if settled(self.conn, path):
                            pending.discard(path)
            time.sleep(0.25)
        return "settled"

    def _collect(self, created: list[tuple[StackPlan, str]], raw: Path) -> list[str]:
        return collect_stacks(self.conn, created, raw)

    def _delete(self, created: list[tuple[StackPlan, str]], store: CampaignStore) -> list[str]:
        gone, left = delete_and_wait(
            self.conn, [path for _, path in created], self.heat.delete_timeout
        )
        for path in gone:
            store.forget_created(f"{STACK_KIND}:{self.options.cloud}:{path.split('/')[1]}")
        return left

    def _outcome(
        self,
        step: Step,
        store: CampaignStore,
        listing: list[dict[str, Any]],
        waited: str,
        problems: list[str],
        not_deleted: list[str],
    ) -> StepOutcome:
        raw = store.raw_dir(step.id)
        plan = json.loads((store.step_dir(step.id) / "step.json").read_text())
        heat = heat_step(raw, step.id, plan, self.backend)
        times = ", ".join(
            f"{kind} {v['median']:.0f}/{v['max']:.0f}"
            for kind, v in heat.summary["create_s"].items()
        )
        notes = [
            f"{heat.summary['vms']} VMs in {len(listing)} stacks; create times (s, "
            f"median/max): {times or 'none'}"
        ]
        if heat.summary["start_at"]:
            late = heat.summary["late"]
            notes.append(
                f"VMs waited for a shared start time; slowest ready after "
                f"{heat.summary['ready_s_max'] or 0:.0f} s; "
                + (f"{len(late)} late" if late else "none late")
            )
        if heat.summary.get("qos"):
            notes.append(qos.console_line(heat.summary["qos"]))
        notes += problems + [f"NOT deleted: {line}" for line in not_deleted]
        not_created = [f"{e['name']}: {e['error']}" for e in listing if e["error"]]
        failed = [f"{r.context.consumer} ({r.error})" for r in heat.records if r.error]
        if waited == "interrupted":
            return StepOutcome(
                "interrupted",
                "stopped on request; the stacks were deleted, the "
                "results that had come back are in raw/heat/",
                notes,
            )
        if not_created:
            return StepOutcome("failed", "stacks not created: " + "; ".join(not_created), notes)
        if waited == "timed out":
            return StepOutcome(
                "failed",
                "the stacks' VMs had not all answered or failed within "
                f"Heat's timeout plus {WAIT_MARGIN_S} s",
                notes,
            )
        if failed:
            return StepOutcome(
                "failed",
                f"{len(failed)} of {heat.summary['vms']} VMs returned "
                f"no result: {'; '.join(failed)}",
                notes,
            )
        return StepOutcome("done", notes=notes)

    def cleanup(self, store: CampaignStore) -> list[str]:
        return []  # what it made is noted in created.json: the campaign removes it


class HeatCollectTarget(HeatTarget):
    """`volperf collect heat --stack NAME`: one step whose VMs are those of a cinder-fio
    stack someone created by hand; waits until it settles, keeps its answers and results
    like a step of its own, and leaves the stack alone (it is not volperf's)."""

    def __init__(self, spec: CampaignSpec, stack_path: str):
        super().__init__(spec)
        self.stack_path = stack_path

    def prepare(self, spec: CampaignSpec, store: CampaignStore) -> None:
        api.show(self.conn, self.stack_path)

    def run_step(
        self, step: Step, store: CampaignStore, stop: threading.Event, tick: Tick
    ) -> StepOutcome:
        raw = _fresh_raw(store, step)
        [plan] = stack_plans(self.spec.name, step, self.heat)
        name, stack_id = self.stack_path.split("/")[1:3]
        listing = [
            {
                "name": name,
                "id": stack_id,
                "rw": plan.rw,
                "consumers": list(plan.consumers),
                "parameters": plan.parameters,
                "error": "",
                "collected": True,
            }
        ]
        atomic_write_json(raw / STACKS_FILE, listing)
        timeout_min = stack_timeout_min(self.heat, step.workload)  # type: ignore[arg-type]
        waited = self._wait(
            [self.stack_path], stop, tick, time.monotonic(), timeout_min * 60 + WAIT_MARGIN_S
        )
        collected = StackPlan(name, plan.rw, plan.consumers, plan.parameters)
        problems = self._collect([(collected, self.stack_path)], raw)
        return self._outcome(step, store, listing, waited, problems, [])

    def cleanup(self, store: CampaignStore) -> list[str]:
        return []


def collected_spec(
    conn: Any, stack_name: str, campaign: str, cloud: dict[str, Any]
) -> tuple[CampaignSpec, str]:
    """A spec describing a hand-made cinder-fio stack from its parameters, and its path."""
    stacks = api.listed(conn, f"stacks?name={stack_name}")
    if not stacks:
        raise TargetError(f"cloud {cloud['cloud']!r} has no stack {stack_name!r}")
    path = api.ref(stacks[0])
    parameters = api.show(conn, path).get("parameters", {})
    needed = ("test_rw", "vm_count", "test_iodepth", "test_filesize", "test_mode", "bs")
    missing = [key for key in needed if key not in parameters]
    if missing:
        raise TargetError(
            f"stack {stack_name} is not a heat_templates/cinder-fio stack (no "
            f"parameter {', '.join(missing)})"
        )
    prefill = parameters.get("prefill", "none")
    heat = {
        "image": parameters.get("image", ""),
        "flavor": parameters.get("flavor", ""),
        "network": parameters.get("network_name", ""),
        "key_name": parameters.get("key_name", ""),
        "volume_type": parameters.get("volume_type", ""),
        "volume_size": int(parameters.get("volume_size", 0)) or None,
        "prefill_image": parameters.get("prefill_image", "") if prefill == "image" else "",
        "device_mode": parameters.get("device_mode", "device"),
    }
    workload = {
        "name": "collected",
        "rw": [parameters["test_rw"]],
        "bs": parameters["bs"],
        "iodepth": int(parameters["test_iodepth"]),
        "size": parameters["test_filesize"],
        "mode": parameters["test_mode"],
        "runtime": int(parameters.get("test_runtime", 1)),
        "prefill": prefill != "none",
    }
    rate = int(float(parameters.get("test_rate_iops", 0) or 0))
    if rate:
        workload |= {"rate_iops": rate, "rate_process": parameters.get("test_rate_process")}
    data = {
        "name": campaign,
        "target": {"type": "openstack", **cloud, "heat": heat},
        "workloads": [workload],
        "sweep": [int(parameters["vm_count"])],
        "labels": {"collected_stack": stack_name},
    }
    try:
        return validate(data, f"stack {stack_name}"), path
    except SpecError as exc:
        raise TargetError(str(exc)) from None


def _previous_ready_s(store: CampaignStore, step: Step) -> float | None:
    """How long the slowest VM of the campaign's step before took to be ready (from its
    stacks' creation to its agent's prefill done), if that step ran VMs."""
    earlier = [s for s in store.step_ids() if s < step.id]
    if not earlier or not (store.raw_dir(earlier[-1]) / STACKS_FILE).exists():
        return None
    return heat_step(store.raw_dir(earlier[-1]), earlier[-1], {}, "").summary["ready_s_max"]


def _fresh_raw(store: CampaignStore, step: Step) -> Path:
    """The step's raw/, without a former attempt's answers."""
    raw = store.raw_dir(step.id)
    shutil.rmtree(raw / HEAT_DIR, ignore_errors=True)
    raw.mkdir(parents=True, exist_ok=True)
    return raw
