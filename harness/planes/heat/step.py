"""A Heat step's records from its raw output alone: a fio.csv row per VM (its agent's fio
output, or its failure with Heat's reason), and create times from Heat's events (volume,
server, attachment, agent result, whole stack) as events.csv rows. Heat stamps events to
the second, so these times are whole seconds. With the start time the VMs were given
(stack parameter start_at), when each was ready (its agent.log) and how late any was."""

from __future__ import annotations

import json
import re
import statistics
from datetime import datetime
from pathlib import Path
from typing import Any

from harness.core.redact import redact_text
from harness.core.spec import READ_MODES, RW_MODES, WRITE_MODES
from harness.core.store import read_raw_text
from harness.planes.heat import qos
from harness.records.aggregate import Warning
from harness.records.consumer_fio import (
    OwnOutputsStep,
    consumer_context,
    failed_record,
    own_output_records,
)
from harness.records.db import EventRecord
from harness.records.fio import ConsumerContext, FioConsumerRecord
from harness.tools.fio.logs import LogPlace

STACKS_FILE = "stacks.json"
HEAT_DIR = "heat"
# the VM template's resources whose creation is timed, and the event each becomes
TIMED = {
    "volume": "heat volume-create",
    "server": "heat server-create",
    "attachment": "heat volume-attach",
    "wait": "heat agent-result",
}
STACK_EVENT = "heat stack-create"
LOGS_PREFIX = "logs-"  # logs-CONSUMER/: its fio's per-second logs and the agent's agent.log
CONSOLE_PREFIX = "console-"  # console-CONSUMER.txt: a VM without a result, its console
CONSOLE_LINES = 20  # kept of such a console; the last CONSOLE_SHOWN go into the VM's error
CONSOLE_SHOWN = 5
CONSOLE_WIDTH = 160  # of each line shown, its end (a progress meter makes long lines)
KERNEL_LINE = re.compile(r"^\[\s*\d+\.\d+\]")  # "[  170.33] clocksource: ...": the kernel's own
# what a kernel line says that matters to a VM that gave no result, when it comes after the
# last line of the guest's own programs (a TCG guest's kernel talks of its clocks for minutes)
KERNEL_TROUBLE = re.compile(
    r"panic|Oops|BUG:|Call Trace|Out of memory|\boom|I/O error|blocked for more than|segfault"
)
# "ready=S start_at=S started=S kernel=K hypervisor=H": seconds since the epoch, the VM's
# kernel and the hypervisor it detected ("none" under QEMU's emulated CPU)
AGENT_LOG = "agent.log"
NO_HYPERVISOR = "none"
LATE_S = 1  # a VM ready this long after the start time started late
READING_MODES = READ_MODES | (RW_MODES - WRITE_MODES)


def is_heat_step(raw: Path) -> bool:
    return (raw / STACKS_FILE).exists()


def _read(path: Path) -> Any:
    """A raw JSON document, kept as NAME or NAME.gz (None: neither, or not JSON)."""
    try:
        return json.loads(read_raw_text(path))
    except (OSError, ValueError):
        return None


def _ms(stamp: str) -> int:
    return int(datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp() * 1000)


def _stack_id(item: dict[str, Any]) -> str:
    links = [link["href"] for link in item.get("links", []) if link.get("rel") == "stack"]
    return links[0].rstrip("/").rsplit("/", 1)[-1] if links else ""


def create_times(
    events: list[dict[str, Any]], stack_id: str, resource: str
) -> tuple[int, float, str] | None:
    """(start ms, seconds, final status or reason) of a resource's creation in one stack."""
    mine = [e for e in events if _stack_id(e) == stack_id and e.get("resource_name") == resource]
    started = [e for e in mine if e.get("resource_status") == "CREATE_IN_PROGRESS"]
    ended = [e for e in mine if e.get("resource_status") in ("CREATE_COMPLETE", "CREATE_FAILED")]
    if not started or not ended:
        return None
    start, end = _ms(started[0]["event_time"]), ended[-1]
    detail = end["resource_status"]
    if detail == "CREATE_FAILED":
        detail += f": {end.get('resource_status_reason', '')}"
    return start, (_ms(end["event_time"]) - start) / 1000, redact_text(detail)


def heat_step(raw: Path, step_id: str, plan: dict[str, Any], backend: str) -> OwnOutputsStep:
    result = OwnOutputsStep()
    stacks = _read(raw / STACKS_FILE) or []
    consumers = {c["name"]: c for c in plan.get("consumers", [])}
    summaries = []
    ready: dict[str, float] = {}  # VM -> seconds from its stack's creation to ready
    late: dict[str, int] = {}  # VM -> seconds it was ready after the start time
    guests: dict[str, dict[str, str]] = {}  # VM -> its kernel and detected hypervisor
    volumes: dict[str, dict[str, Any]] = {}  # VM -> its volume and QoS (qos.json)
    start_at = 0
    for stack_plan in stacks:
        start_at = int(stack_plan.get("parameters", {}).get("start_at") or start_at)
        folder = raw / HEAT_DIR / stack_plan["name"]
        stack = _read(folder / "stack.json") or {}
        events = _read(folder / "events.json") or []
        volumes.update(_read(folder / qos.QOS_FILE) or {})
        stack_reason = stack_plan.get("error") or stack.get("stack_status_reason", "")
        status = stack.get("stack_status", "NOT CREATED" if stack_plan.get("error") else "?")
        summaries.append(
            {
                "name": stack_plan["name"],
                "rw": stack_plan["rw"],
                "vms": len(stack_plan["consumers"]),
                "status": status,
                "reason": redact_text(stack_reason),
            }
        )
        timed = create_times(events, stack.get("id", ""), stack_plan["name"])
        if timed:
            detail = f"{stack_plan['name']}: {timed[2]}"
            result.events.append(
                EventRecord(step_id, "", STACK_EVENT, len(summaries), timed[0], timed[1], detail)
            )
        for index, name in enumerate(stack_plan["consumers"]):
            consumer = consumers.get(
                name,
                {"name": name, "rw": stack_plan["rw"], "jobname": f"{name}-{stack_plan['rw']}"},
            )
            context = consumer_context(step_id, plan, {**consumer, "name": name}, backend)
            vm = _read(folder / f"vm-{index}.json") or {}
            for resource, event in TIMED.items():
                timed = create_times(events, vm.get("id", "-"), resource)
                if timed:
                    result.events.append(EventRecord(step_id, name, event, index + 1, *timed))
            fio_path = folder / f"fio-{name}.json"
            result.records += _vm_records(fio_path, vm, stack_reason, consumer, context, result)
            logs = folder / f"{LOGS_PREFIX}{name}"
            if logs.is_dir():
                result.log_dirs[consumer["jobname"]] = LogPlace(logs, f"volperf-{stack_plan['rw']}")
                times = agent_times(logs / AGENT_LOG)
                described = guest_of(logs / AGENT_LOG)
                if described and stack_plan.get("parameters", {}).get("device_mode") != "rbd":
                    guests[name] = described
                if times and stack.get("creation_time"):
                    ready[name] = times["ready"] - _ms(stack["creation_time"]) / 1000
                    if times["start_at"] and times["ready"] - times["start_at"] >= LATE_S:
                        late[name] = times["ready"] - times["start_at"]
    order = list(consumers)  # the step's consumers in order, not stack by stack
    result.records.sort(
        key=lambda r: order.index(r.context.consumer) if r.context.consumer in order else len(order)
    )
    failed = [r for r in result.records if r.error]
    result.summary = {
        "stacks": summaries,
        "vms": len(result.records),
        "vms_failed": len(failed),
        "create_s": _create_summary(result.events),
        "start_at": start_at or None,
        "ready_s_max": max(ready.values()) if ready else None,
        "late": late,
        "guests": guests,
    }
    if volumes:
        asked = stacks[0].get("parameters", {})  # every stack of a step asks the same
        checks = _qos_checks(result.records, volumes)
        found = qos.warnings_of(
            checks, volumes, asked.get("volume_type", ""), asked.get("device_mode", "")
        )
        if found or any(c.limits for c in checks):  # else: no QoS asked, none to say
            result.summary["qos"] = {c.consumer: c.summary() for c in checks}
        for code, text in found:
            result.warnings.append(Warning(code, text))
    emulated = sorted(n for n, g in guests.items() if g["hypervisor"] == NO_HYPERVISOR)
    if emulated:
        result.warnings.append(
            Warning(
                "emulated-cpu",
                f"VMs {', '.join(emulated)} detected no hypervisor: their CPU is emulated "
                "(QEMU's TCG, as on a testbed without hardware virtualisation), so their "
                "figures are functional, not performance",
            )
        )
    if late:
        names = ", ".join(f"{n} ({s} s)" for n, s in sorted(late.items()))
        result.warnings.append(
            Warning(
                "late-start",
                f"VMs ready after the step's start time started at once, late: {names}; "
                "give heat.start_delay to wait longer",
            )
        )
    unwritten = [
        p["name"]
        for p in stacks
        if p.get("parameters", {}).get("prefill") == "none" and p["rw"] in READING_MODES
    ]
    if unwritten:
        why = (
            "VMs read volumes never written (prefill: false): thin volumes such as RBD "
            "answer those reads without touching the disks"
        )
        result.warnings.append(Warning("unwritten-volumes", f"{', '.join(unwritten)}: {why}"))
    for s in summaries:
        if s["status"] != "CREATE_COMPLETE":
            result.warnings.append(
                Warning("heat-stack", f"stack {s['name']} ended {s['status']}: {s['reason']}")
            )
    return result


def _qos_checks(
    records: list[FioConsumerRecord], volumes: dict[str, dict[str, Any]]
) -> list[qos.QosCheck]:
    """Each VM's QoS check, from its volume's limits and its fio figures."""

    def rates(figures: Any) -> tuple[float, float]:
        return (figures.iops, figures.bandwidth * 1024) if figures else (0.0, 0.0)

    return [
        qos.check(r.context.consumer, volumes[r.context.consumer], rates(r.read), rates(r.write))
        for r in records
        if r.context.consumer in volumes and not r.error
    ]


def agent_times(path: Path) -> dict[str, int]:
    """The agent's ready, start_at and started times (seconds since the epoch), or {}."""
    try:
        fields = dict(f.split("=", 1) for f in path.read_text(encoding="utf-8").split())
        return {key: int(fields[key]) for key in ("ready", "start_at", "started")}
    except (OSError, ValueError, KeyError):
        return {}


def guest_of(path: Path) -> dict[str, str]:
    """The VM's kernel and the hypervisor it detected, from its agent.log, or {} (an
    older agent's log has neither)."""
    try:
        fields = dict(f.split("=", 1) for f in path.read_text(encoding="utf-8").split())
    except (OSError, ValueError):
        return {}
    if "kernel" not in fields or "hypervisor" not in fields:
        return {}
    return {"kernel": fields["kernel"], "hypervisor": fields["hypervisor"]}


def _vm_records(
    fio_path: Path,
    vm: dict[str, Any],
    stack_reason: str,
    consumer: dict[str, Any],
    context: ConsumerContext,
    result: OwnOutputsStep,
) -> list[FioConsumerRecord]:
    at = _ms(vm["creation_time"]) if vm.get("creation_time") else 0
    if fio_path.exists():
        records, output, problem = own_output_records(fio_path, consumer["jobname"], context)
        if output is not None:
            result.outputs.append(output)
            return records
        return [
            failed_record(at, consumer["jobname"], context, f"its agent's fio output: {problem}")
        ]
    reason = vm.get("stack_status_reason") or stack_reason or "no result came back"
    status = vm.get("stack_status", "never created")
    error = f"VM stack {status}: {reason}"
    console = console_tail(fio_path.with_name(f"{CONSOLE_PREFIX}{consumer['name']}.txt"))
    if console:
        error += f"; its console's last lines: {' | '.join(console)}"
    return [failed_record(at, consumer["jobname"], context, redact_text(error))]


def console_tail(path: Path) -> list[str]:
    """The last CONSOLE_SHOWN lines with text of a kept console, each cut to the end of
    its last CONSOLE_WIDTH characters, or []. The kernel's lines after the last line of the
    guest's own programs are left out unless they tell of trouble (KERNEL_TROUBLE): the
    guest's agent said last what went wrong, and a TCG guest's kernel goes on about its
    clocks after it (the CI run of stop 69 showed five such lines and not the agent's)."""
    try:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return []
    lines = [line.strip() for line in lines if line.strip()]
    own = [i for i, line in enumerate(lines) if not KERNEL_LINE.match(line)]
    if own:
        last = own[-1]
        later = lines[last + 1 :]
        lines = lines[: last + 1] + [line for line in later if KERNEL_TROUBLE.search(line)]
    shown = lines[-CONSOLE_SHOWN:]
    return [line if len(line) <= CONSOLE_WIDTH else "…" + line[-CONSOLE_WIDTH:] for line in shown]


def _create_summary(events: list[EventRecord]) -> dict[str, dict[str, float]]:
    """Median and slowest seconds of each kind of creation in the step."""
    by_kind: dict[str, list[float]] = {}
    for e in events:
        if e.seconds is not None and "FAILED" not in e.detail:
            by_kind.setdefault(e.event.removeprefix("heat "), []).append(e.seconds)
    return {
        kind: {"median": statistics.median(values), "max": max(values), "count": len(values)}
        for kind, values in by_kind.items()
    }
