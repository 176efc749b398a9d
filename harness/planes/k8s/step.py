"""A Kubernetes fio step's records from its raw output alone: raw/pods.json (what volperf
saw of each consumer's PVC and pod: times, phase, exit code, reason, last events) and
raw/pods/<consumer>.out (the pod's log: fio's JSON). One fio.csv row per pod, a failed
pod's row with its reason and events; PVC-bound and pod-running times as events."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from harness.records.aggregate import Warning
from harness.records.consumer_fio import (
    OwnOutputsStep,
    consumer_context,
    failed_record,
    own_output_records,
)
from harness.records.db import EventRecord
from harness.records.phases import FAULTS_FILE
from harness.tools.fio.logs import LogPlace

PODS_FILE = "pods.json"
PODS_DIR = "pods"
LOGS_SUFFIX = ".logs"  # raw/pods/<consumer>.logs/: fio's per-second logs of the pod
TIMED = {"bound": "k8s pvc-bound", "running": "k8s pod-running"}
LATE_S = 0.5  # a pod signalled this long after the pods' start time started late


def is_k8s_step(raw: Path) -> bool:
    return (raw / PODS_FILE).exists()


def k8s_step(raw: Path, step_id: str, plan: dict[str, Any], backend: str) -> OwnOutputsStep:
    result = OwnOutputsStep()
    pods = json.loads((raw / PODS_FILE).read_text())
    faulted = faulted_nodes(raw)
    lost = []
    for index, consumer in enumerate(plan.get("consumers", []), start=1):
        seen = pods["consumers"].get(consumer["name"], {})
        context = consumer_context(step_id, plan, consumer, backend)
        created = int(seen.get("created_ms") or 0)
        for key, event in TIMED.items():
            at = seen.get(f"{key}_ms")
            if at is not None:
                result.events.append(
                    EventRecord(
                        step_id,
                        consumer["name"],
                        event,
                        index,
                        created,
                        (at - created) / 1000,
                        seen.get("storage_class", ""),
                    )
                )
        if seen.get("logs_cut"):
            result.warnings.append(
                Warning("logs-cut", f"pod {consumer['name']}: {seen['logs_cut']}")
            )
        if seen.get("signal_error"):
            result.warnings.append(
                Warning(
                    "start-signal",
                    f"pod {consumer['name']}: volperf's start signal failed: "
                    f"{seen['signal_error']}",
                )
            )
        late = _late_s(seen)
        if late >= LATE_S:
            result.warnings.append(
                Warning(
                    "late-start",
                    f"pod {consumer['name']}: volperf's start signal reached it {late:.1f} s "
                    "after the pods' start time; it started at once, late",
                )
            )
        log = raw / PODS_DIR / f"{consumer['name']}.out"
        problem = seen.get("error", "")
        if not problem and log.exists():
            records, output, problem = own_output_records(log, consumer["jobname"], context)
            if output is not None:
                result.outputs.append(output)
                result.records += records
                logs = raw / PODS_DIR / f"{consumer['name']}{LOGS_SUFFIX}"
                if logs.is_dir():
                    result.log_dirs[consumer["jobname"]] = LogPlace(logs, consumer["jobname"])
                continue
        why = problem or "the pod left no output"
        node = seen.get("node")
        if node in faulted:
            lost.append(consumer["name"])
            why = f"lost to the fault {faulted[node]} (it ran on {node}): {why}"
        result.records.append(
            failed_record(created, consumer["jobname"], context, f"pod {consumer['name']}: {why}")
        )
    bound = [e.seconds for e in result.events if e.event == TIMED["bound"] and e.seconds]
    result.summary = {
        "namespace": pods.get("namespace"),
        "storage_class": pods.get("storage_class"),
        "pods": len(result.records),
        "pods_failed": sum(1 for r in result.records if r.error),
        "pvc_bound_s_max": max(bound) if bound else None,
        "pods_lost": lost,
    }
    if lost:
        kept = len(result.records) - len(lost)
        result.warnings.append(
            Warning(
                "pods-lost",
                f"{'pods' if len(lost) > 1 else 'pod'} {', '.join(lost)} ran on nodes the "
                "faults acted on and gave no result: the step's figures are of the "
                f"{kept} other {'pod' if kept == 1 else 'pods'}",
            )
        )
    if pods.get("namespace_left"):
        result.warnings.append(
            Warning(
                "k8s-namespace",
                f"namespace {pods['namespace']}: its pods or PVCs were still being deleted "
                "when the step ended",
            )
        )
    return result


def faulted_nodes(raw: Path) -> dict[str, str]:
    """Each node a fault was given to during the step (raw/faults.json), and the first
    fault given to it."""
    try:
        given = json.loads((raw / FAULTS_FILE).read_text())["given"]
    except (OSError, ValueError, KeyError):
        return {}
    nodes: dict[str, str] = {}
    for g in given:
        on = g.get("on") or ""
        if on.startswith("node ") and g["given_t"] and not g["error"]:
            nodes.setdefault(on.removeprefix("node "), g["fault"])
    return nodes


def _late_s(seen: dict[str, Any]) -> float:
    """How long after the pods' shared start time (start_at, s) the pod's signal arrived."""
    if seen.get("start_at") is None or seen.get("signalled_ms") is None:
        return 0.0
    return max(0.0, seen["signalled_ms"] / 1000 - seen["start_at"])
