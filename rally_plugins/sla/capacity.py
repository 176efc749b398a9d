"""SLA ``volperf_capacity``: every iteration of the data-plane scenario run at a fixed
rate (VolPerf.cinder_fio with ``rate_iops``) meets a capacity objective, judged as
volperf's capacity search judges a step (records/capacity.py's ``judge``): latency and
achieved rate together, since a VM the storage cannot keep up with submits late and
fio's latency, timed from submission, does not show the wait. The iteration's p99 over
its VMs' merged histograms, in each direction, at most ``p99_ms``, and every VM at least
``achieved_pct`` % (95 by default) of the ``rate_iops`` it was asked for; a VM with no
figures achieved nothing. E.g. ``volperf_capacity: {rate_iops: 100, p99_ms: 20}``.

The data-plane task (tasks/data-plane.yaml, args ``rate_iops`` and ``capacity_p99_ms``)
puts it on each VM count; with counts that double (the growing phase of volperf's
search) and ``rally task start --abort-on-sla-failure``, Rally stops after the first count
that misses it: the last count that met it and that one bound the capacity, and `volperf
run heat` with ``sweep.search`` bisects between them. Rally's report keeps only each VM's
whole-run figures, so how far behind its schedule a VM fell is not judged here (a
campaign's search gives it from each VM's per-second log)."""

from __future__ import annotations

from typing import Any

from rally import consts
from rally.task import sla

from harness.core.plan import role_of
from harness.core.spec import CapacitySearch
from harness.planes.rally.data_plane import merged_percentiles, vm_rows
from harness.records.capacity import Trial, judge

DIRECTIONS = {"reader": "read", "writer": "write"}


def iteration_trial(
    search: CapacitySearch, rate_iops: float, iteration: dict[str, Any], number: int
) -> Trial:
    """An iteration against the objective: its VMs (the rows of its table of every VM),
    each one's IOPS in its direction against the rate asked, and its merged p99s."""
    rows = list(vm_rows(iteration))
    directions = {DIRECTIONS.get(role_of(_rw(row)), "") for row in rows}
    percentiles = merged_percentiles(iteration)
    p99s = [percentiles.get(f"{direction} p99") for direction in sorted(directions)]
    achieved = [_iops(row) for row in rows]
    failed = ""
    if iteration.get("error"):
        failed = "the iteration failed: " + ": ".join(str(e) for e in iteration["error"][:2])
    elif not rows:
        failed = "the iteration has no table of its VMs"
    return judge(
        search,
        f"iteration {number}",
        len(rows),
        None if not p99s or None in p99s else max(p for p in p99s if p is not None),
        None,
        min(achieved) / rate_iops * 100 if achieved else None,
        sum(achieved),
        None,
        failed,
    )


def _rw(row: dict[str, str]) -> str:
    return row["jobname"].removeprefix(f"{row['consumer']}-")


def _iops(row: dict[str, str]) -> float:
    """A VM's IOPS in its direction (0 when it returned none: it achieved nothing)."""
    direction = DIRECTIONS.get(role_of(_rw(row)))
    if row.get("error") or direction is None:
        return 0.0
    return float(row.get(f"{direction}_iops") or 0.0)


@sla.configure(name="volperf_capacity")
class Capacity(sla.SLA):
    """Every iteration's VMs, each asked for rate_iops, within p99_ms and each achieving
    achieved_pct % of its rate."""

    CONFIG_SCHEMA = {
        "type": "object",
        "$schema": consts.JSON_SCHEMA,
        "properties": {
            "rate_iops": {"type": "number", "minimum": 0, "exclusiveMinimum": True},
            "p99_ms": {"type": "number", "minimum": 0, "exclusiveMinimum": True},
            "achieved_pct": {
                "type": "number",
                "minimum": 0,
                "exclusiveMinimum": True,
                "maximum": 100,
            },
        },
        "required": ["rate_iops", "p99_ms"],
        "additionalProperties": False,
    }

    def __init__(self, criterion_value: dict[str, Any]) -> None:
        super().__init__(criterion_value)
        self.rate_iops = float(criterion_value["rate_iops"])
        self.search = CapacitySearch.model_validate(
            {k: criterion_value[k] for k in ("p99_ms", "achieved_pct") if k in criterion_value}
        )
        self.trials: list[Trial] = []

    def add_iteration(self, iteration: dict[str, Any]) -> bool:
        number = len(self.trials) + 1
        self.trials.append(iteration_trial(self.search, self.rate_iops, iteration, number))
        self.success = all(t.met for t in self.trials)
        return self.success

    def merge(self, other: Capacity) -> bool:
        self.trials.extend(other.trials)
        self.success = all(t.met for t in self.trials)
        return self.success

    def details(self) -> str:
        counts = "/".join(str(c) for c in sorted({t.count for t in self.trials})) or "no"
        objective = (
            f"{counts} VMs × {self.rate_iops:g} IOPS at p99 ≤ {self.search.p99_ms:g} ms, each "
            f"VM ≥ {self.search.achieved_pct:g} % of its rate"
        )
        met = sum(t.met for t in self.trials)
        said = f"{objective}: met in {met} of {len(self.trials)} iterations"
        missed = [f"{t.step}: {t.why}" for t in self.trials if not t.met]
        if missed:
            said += " (" + "; ".join(missed[:3]) + ("; …" if len(missed) > 3 else "") + ")"
        return f"{said} - {self.status()}"
