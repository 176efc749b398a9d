"""The VM data plane as a Rally scenario: `VolPerf.cinder_fio`.

Each iteration does what a step of `volperf run heat` does, with the same code: the
readers' and the writers' stacks of heat_templates/cinder-fio at once (the reference
method's split: consumers take the rw modes in turn), each VM with its own Cinder volume
and an agent that runs fio on it and returns fio's JSON through Heat; it waits until every
VM has answered or failed (a failed VM fails its stack at once while the others still run
fio, so Rally's own stack wait, which stops there, is not used), reads every VM's answer,
and deletes the stacks whatever happened. Atomic actions: ``heat.create_stack`` (creation
until every VM answered; inside it each VM's volume, server, attachment and agent result
as Heat's events time them), ``volperf.results`` and ``heat.delete_stack``. Rally's report
gets the additive charts of fio_output.py (the last: the iteration's warning codes, which
Rally's console prints too), the VM table and the table of the iteration's warnings
(unwritten volumes, emulated CPUs, low overlap, stalls, not steady, ...; SLA
``volperf_warnings`` fails on them when a task asks); an iteration whose VMs did not all
answer fails naming them and their reasons, after its output is added.
"""

from __future__ import annotations

import contextlib
import tempfile
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

from rally.common import validation
from rally.task import atomic
from rally_openstack.common import consts
from rally_openstack.task import scenario

from harness.core.plan import Step
from harness.core.spec import FioWorkload, HeatSettings
from harness.core.store import atomic_write_json
from harness.planes.heat import api
from harness.planes.heat.cleanup import delete_and_wait
from harness.planes.heat.collect import POLL_S, WAIT_MARGIN_S, collect_stacks, settled
from harness.planes.heat.parameters import StackPlan, listing, stack_plans, stack_timeout_min
from harness.planes.heat.step import STACKS_FILE, heat_step
from harness.records.aggregate import Warning, aggregate_step
from harness.records.consumer_fio import OwnOutputsStep
from harness.records.db import EventRecord
from harness.records.fio import FioConsumerRecord
from harness.records.stall_summary import stalls_of
from harness.records.steadystate import step_steadystate
from harness.tools.fio.histogram import top_bucket_ns
from harness.tools.fio.logs import read_places
from rally_plugins.scenarios.fio_output import (
    additive_charts,
    vm_table,
    warnings_chart,
    warnings_table,
)

STEP_ID = "iteration"
TAG = "volperf-rally"
DELETE_TIMEOUT_S = 600
# the scenario's args that are the fio workload's, and those that are the VMs'
DEFAULT_RW = ["randread", "randwrite"]  # the reference method's readers and writers
WORKLOAD_ARGS = (
    "rw",
    "bs",
    "iodepth",
    "size",
    "mode",
    "runtime",
    "prefill",
    "rate_iops",
    "rate_process",
)
HEAT_ARGS = (
    "image",
    "flavor",
    "network",
    "key_name",
    "volume_size",
    "volume_type",
    "prefill_image",
    "device_mode",
    "agent_timeout",
)


class DataPlaneError(RuntimeError):
    """VMs of an iteration returned no fio result; the message names them and why."""


def workload_and_heat(args: dict[str, Any]) -> tuple[FioWorkload, HeatSettings]:
    """The scenario's args as volperf's spec models (their checks and defaults)."""
    given = {k: args[k] for k in WORKLOAD_ARGS if k in args}
    if given.get("rate_iops") and not given.get("rate_process"):
        given["rate_process"] = "poisson"  # a fixed rate's arrivals, as a capacity search's
    workload = FioWorkload.model_validate({"name": "data-plane", "rw": DEFAULT_RW, **given})
    heat = HeatSettings.model_validate({k: args[k] for k in HEAT_ARGS if k in args})
    return workload, heat


@validation.configure(name="volperf_data_plane_args", platform="openstack")
class DataPlaneArgsValidator(validation.Validator):
    """The fio and VM args are ones volperf's spec takes (rw modes, sizes, device mode)."""

    def validate(
        self,
        context: dict[str, Any],
        config: dict[str, Any] | None,
        plugin_cls: type,
        plugin_cfg: dict[str, Any] | None,
    ) -> None:
        args = dict((config or {}).get("args") or {})
        for name in ("vm_count", "keep_raw"):
            args.pop(name, None)
        try:
            workload_and_heat(args)
        except ValueError as exc:  # pydantic's ValidationError is a ValueError
            self.fail(f"VolPerf.cinder_fio args: {exc}")


@validation.add(
    "required_services",
    services=[consts.Service.HEAT, consts.Service.NOVA, consts.Service.CINDER],
)
@validation.add("number", param_name="vm_count", minval=1, maxval=500, integer_only=True)
@validation.add("volperf_data_plane_args")
@validation.add("required_platform", platform="openstack", users=True)
@scenario.configure(
    name="VolPerf.cinder_fio",
    platform="openstack",
    context={"cleanup@openstack": ["heat"]},
)
class CinderFio(scenario.OpenStackScenario):
    def run(self, vm_count: int = 2, keep_raw: str = "", **args: Any) -> None:
        """vm_count VMs, each with a Cinder volume, running fio at once; half randread and
        half randwrite by default.

        :param vm_count: VMs in the iteration, over its stacks (one per rw mode)
        :param args: fio's rw (a list of modes the VMs take in turn), bs, iodepth,
            size, mode, runtime, prefill, and rate_iops (each VM's fixed rate, its
            arrivals Poisson unless rate_process says linear; SLA volperf_capacity
            judges it), and the VMs' image, flavor, network,
            key_name, volume_size, volume_type, prefill_image, device_mode and
            agent_timeout, as in a volperf spec's workload and ``heat:`` settings
        :param keep_raw: a folder to keep each iteration's Heat answers and VMs' fio
            JSON in (KEEP_RAW/iteration-N/, as raw/ of a `volperf run heat` step);
            "": they are read and removed
        """
        workload, heat = workload_and_heat(args)
        step = Step(STEP_ID, 1, workload, vm_count, 1)
        # Rally's names, which its heat cleanup finds
        plans = [
            replace(plan, name=self.generate_random_name())
            for plan in stack_plans("rally", step, heat)
        ]
        conn = self._connection()
        timeout_min = stack_timeout_min(heat, workload)
        created: list[tuple[StackPlan, str]] = []
        refused: dict[str, str] = {}  # stack name -> Heat's answer
        with self._raw_dir(keep_raw) as raw:
            try:
                with atomic.ActionTimer(self, "heat.create_stack") as timer:
                    self._create(conn, plans, timeout_min, created, refused)
                    waited = self._wait(conn, created, timeout_min)
                with atomic.ActionTimer(self, "volperf.results"):
                    problems = collect_stacks(conn, created, raw)
            finally:
                with atomic.ActionTimer(self, "heat.delete_stack"):
                    not_deleted = delete_and_wait(
                        conn, [path for _, path in created], heat.delete_timeout
                    )[1]
            outcome = self._outcome(raw, step, plans, refused)
            stalled = stalls_of(step.id, read_places(outcome.log_dirs), outcome.records)
        timer.atomic_action["children"] = heat_children(outcome.events)
        steady = step_steadystate([job for output in outcome.outputs for job in output.jobs])
        found = [stalled.warning, steady.warning() if steady else None]
        warnings = [*outcome.warnings, *(w for w in found if w is not None)]
        self._report(stalled.records, outcome.outputs, warnings)
        reasons = problems + [f"NOT deleted: {line}" for line in not_deleted]
        if waited != "settled":
            reasons.append(waited)
        failed = [f"{r.context.consumer} ({r.error})" for r in outcome.records if r.error]
        if failed or reasons:
            raise DataPlaneError(
                f"{len(failed)} of {vm_count} VMs returned no fio result: "
                + "; ".join(failed + reasons)
            )

    @contextlib.contextmanager
    def _raw_dir(self, keep_raw: str) -> Iterator[Path]:
        if not keep_raw:
            with tempfile.TemporaryDirectory(prefix="volperf-rally-") as folder:
                yield Path(folder)
            return
        raw = Path(keep_raw) / f"iteration-{self.context['iteration']:04d}"
        raw.mkdir(parents=True, exist_ok=True)
        yield raw

    def _connection(self) -> Any:
        """openstacksdk on the iteration's user's Keystone session (volperf's Heat calls)."""
        from openstack import connection

        credential = self.context["user"]["credential"]
        session = self._clients.keystone.get_session()[0]
        return connection.Connection(
            session=session,
            region_name=credential.region_name,
            interface=credential.endpoint_type or "public",
        )

    def _create(
        self,
        conn: Any,
        plans: list[StackPlan],
        timeout_min: int,
        created: list[tuple[StackPlan, str]],
        refused: dict[str, str],
    ) -> None:
        """``created`` gets each stack Heat took, ``refused`` Heat's answer to the others."""
        for plan in plans:
            try:
                stack = api.create(conn, plan, [TAG], timeout_min)
            except api.HeatError as exc:
                refused[plan.name] = str(exc)
                continue
            created.append((plan, api.ref(stack)))

    def _wait(self, conn: Any, created: list[tuple[StackPlan, str]], timeout_min: int) -> str:
        """'settled' once every stack and VM is final, else why not."""
        limit = time.monotonic() + timeout_min * 60 + WAIT_MARGIN_S
        pending = {path for _, path in created}
        while pending:
            for path in sorted(pending):
                with contextlib.suppress(Exception):  # a blip of the API: ask again
                    if settled(conn, path):
                        pending.discard(path)
            if not pending:
                break
            if time.monotonic() > limit:
                return (
                    f"stacks {', '.join(p.split('/')[1] for p in sorted(pending))} had not "
                    f"settled within Heat's timeout plus {WAIT_MARGIN_S} s"
                )
            time.sleep(POLL_S)
        return "settled"

    def _outcome(
        self, raw: Path, step: Step, plans: list[StackPlan], refused: dict[str, str]
    ) -> OwnOutputsStep:
        """The iteration's records and events, read by the Heat plane's own step code (a
        refused stack's VMs carry Heat's answer)."""
        atomic_write_json(raw / STACKS_FILE, listing(plans, refused))
        plan = {
            "workload": step.workload.model_dump(mode="json"),
            "concurrency": step.concurrency,
            "repeat": 1,
            "consumers": [c.to_dict() for c in step.consumers],
        }
        return heat_step(raw, step.id, plan, "openstack:rally")

    def _report(
        self, records: list[FioConsumerRecord], outputs: list[Any], warnings: list[Warning]
    ) -> None:
        ceiling_ms = top_bucket_ns(outputs[0].major_version if outputs else 3) / 1_000_000
        figures = aggregate_step(records, ceiling_ms).warnings
        for chart in [*additive_charts(records, ceiling_ms), warnings_chart([*warnings, *figures])]:
            self.add_output(additive=chart)
        self.add_output(complete=vm_table(records))
        table = warnings_table(warnings, figures)
        if table is not None:
            self.add_output(complete=table)


def heat_children(events: list[EventRecord]) -> list[dict[str, Any]]:
    """Heat's create times of the VMs' volumes, servers, attachments and agent results as
    Rally atomic actions, one per kind: from the first VM's start to the last VM's end
    (Rally would add up same-named actions, as if the VMs went one after another). Whole
    seconds: Heat stamps its events to the second."""
    spans: dict[str, dict[str, Any]] = {}
    for event in sorted(events, key=lambda e: (e.start_ms or 0, e.event)):
        if not event.consumer or event.start_ms is None or event.seconds is None:
            continue
        start = event.start_ms / 1000
        name = event.event.replace(" ", ".", 1)
        span = spans.setdefault(
            name, {"name": name, "children": [], "started_at": start, "finished_at": start}
        )
        span["finished_at"] = max(span["finished_at"], start + event.seconds)
        if "FAILED" in event.detail:
            span["failed"] = True
    return list(spans.values())
