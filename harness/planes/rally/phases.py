"""A Rally workload's phases, when faults were given to its backend during it (the
volperf_ceph_fault and volperf_service_fault hooks): the backend's states from its own
samples, Cinder's services (planes/rally/service_states.py, the plane's
raw/openstack-services.jsonl) where the plane sampled them, else Ceph's health
(planes/ceph/phases.py; the plane's raw/ceph-health.jsonl, else the volperf_ceph_health
hook's samples in the task's results), and in each phase the iterations that started
in it, how many failed and how long they took, as Rally timed them. Pure functions of
Rally's JSON export and the samples."""

from __future__ import annotations

import json
import statistics
from collections.abc import Sequence
from typing import Any

from harness.planes.ceph.phases import WORDS as CEPH_WORDS
from harness.planes.ceph.phases import states as ceph_states
from harness.planes.rally.service_states import WORDS as CINDER_WORDS
from harness.planes.rally.service_states import states as service_states
from harness.records.aggregate import Warning
from harness.records.phases import HEALED, HEALTHY, Phase, fault_to_healed_s, phases

FAULT_TITLE = "volperf Ceph fault"  # the volperf_ceph_fault hook's output
SERVICE_FAULT_TITLE = "volperf OpenStack service fault"  # volperf_service_fault's
FAULT_PREFIX = "fault "  # their line that carries what was given, as JSON
HEALTH_TITLE = "volperf Ceph health sample"  # the volperf_ceph_health hook's output
HEALTH_PREFIX = "sample "  # its line that carries the sample itself, as JSON


def hook_lines(workload: dict[str, Any], title: str, prefix: str) -> list[dict[str, Any]]:
    """The JSON each firing of the workload's hooks put after ``prefix`` in its output
    titled ``title``, in the order the firings began."""
    found = []
    for hook in workload.get("hooks") or []:
        for result in hook.get("results") or []:
            for output in (result.get("output") or {}).get("complete") or []:
                if output.get("title") != title:
                    continue
                lines = [line for line in output.get("data") or [] if isinstance(line, str)]
                found += [
                    (result.get("started_at") or 0, json.loads(line.removeprefix(prefix)))
                    for line in lines
                    if line.startswith(prefix)
                ]
    return [value for _, value in sorted(found, key=lambda pair: pair[0])]


def faults_given(workload: dict[str, Any]) -> list[dict[str, Any]]:
    """Every action the workload's fault hooks gave, in the order they were given."""
    given = [
        g
        for title in (FAULT_TITLE, SERVICE_FAULT_TITLE)
        for fired in hook_lines(workload, title, FAULT_PREFIX)
        for g in fired["given"]
    ]
    return sorted(given, key=lambda g: g.get("given_t") or 0)


def iterations_in(phase: Phase, iterations: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The iterations that started within the phase: how many, how many failed, and the
    median and longest of their durations (Rally's)."""
    inside = [i for i in iterations if phase.start <= float(i["timestamp"]) < phase.end]
    durations = [float(i["duration"]) for i in inside if not i.get("error")]
    return {
        "iterations": len(inside),
        "failed": sum(1 for i in inside if i.get("error")),
        "median_s": round(statistics.median(durations), 3) if durations else None,
        "max_s": round(max(durations), 3) if durations else None,
    }


def workload_phases(
    workload: dict[str, Any],
    health: Sequence[dict[str, Any]] = (),
    services: Sequence[dict[str, Any]] = (),
) -> dict[str, Any] | None:
    """The workload's phases, its faults and each phase's iterations; None when no fault
    was given during it. ``services``: the plane's samples of Cinder's services, which
    give the states where there are some; else ``health``, the plane's samples of Ceph's
    health, else the hook's."""
    given = faults_given(workload)
    if not given:
        return None
    start = float(workload["start_time"])
    end = start + float(workload.get("full_duration") or workload.get("load_duration") or 0)
    if services:
        samples, backend, words = list(services), "Cinder", CINDER_WORDS
        found = phases(service_states(samples), end=end, start=start)
    else:
        samples = list(health) or hook_lines(workload, HEALTH_TITLE, HEALTH_PREFIX)
        backend, words = "the Ceph cluster", CEPH_WORDS
        found = phases(ceph_states(samples), end=end, start=start)
    iterations = workload.get("data") or []
    first = min((g["given_t"] for g in given if g.get("given_t")), default=None)
    return {
        "faults": [
            {
                "fault": g["fault"],
                "action": g["action"],
                "at_s": None if g.get("given_t") is None else round(g["given_t"] - start, 3),
                "commands": g["commands"],
                "error": g["error"],
            }
            for g in given
        ],
        "phases": [
            {
                "state": p.state,
                "start_s": round(p.start - start, 3),
                "seconds": round(p.seconds, 3),
                **iterations_in(p, iterations),
            }
            for p in found
        ],
        "fault_to_healed_s": None if first is None else fault_to_healed_s(found, first),
        "backend": backend,  # whose own state gave the phases, and how it says them
        "states_from": words,
        "health_samples": len(samples),
    }


def phase_warnings(scenario: str, faulted: dict[str, Any]) -> list[Warning]:
    """A fault not given as asked; a cluster not healthy all through the workload."""
    found = [
        Warning("fault-not-given", f"{scenario}: fault {f['fault']} ({f['action']}): {f['error']}")
        for f in faulted["faults"]
        if f["error"]
    ]
    unhealthy = [p for p in faulted["phases"] if p["state"] not in (HEALTHY, HEALED)]
    if unhealthy:
        said = ", ".join(
            f"{p['state']} from +{p['start_s']:.1f} s for {p['seconds']:.1f} s "
            f"({p['iterations']} iterations, {p['failed']} failed, median "
            + ("-" if p["median_s"] is None else f"{p['median_s']:.2f} s")
            + ")"
            for p in unhealthy
        )
        found.append(
            Warning(
                "backend-phases",
                f"{scenario}: {faulted.get('backend', 'the Ceph cluster')} was not healthy "
                f"all through the workload, by its own state: {said}; the workload's figures "
                "mix its phases (each phase's own: summary.json, rally, workloads, phases)",
            )
        )
    return found
