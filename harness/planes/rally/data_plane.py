"""fio.csv rows of a Rally step's data-plane workloads (VolPerf.cinder_fio): one row per
VM per iteration, named and cast (reader, writer) as `volperf run heat` names them; the
iteration is the row's repeat, its VM count the row's concurrency.

Where the runner had each iteration keep its VMs' answers (raw/data-plane/subtask-I/
iteration-N/, laid out as a Heat step's raw/), the Heat plane's own step code reads them:
every figure from the VM's fio JSON, histograms included. A task run by plain Rally and
exported (`rally task export --type volperf`) has only Rally's report: the rows are read
back from the table of every VM the scenario put in each iteration's output, fio.csv's
own cells.

The scenario also puts the iteration's warnings in its output (WARNINGS_TITLE: the Heat
step's own, such as unwritten-volumes, and those of the iteration's figures, such as
low-overlap); the step's warnings get the Heat step's of every iteration, said once, from
the kept answers or from that table (volperf aggregates the figures again itself).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from harness.core.plan import role_of
from harness.planes.heat.step import STACKS_FILE, heat_step
from harness.planes.rally.records import RallyResultError, load_export, scenario_of, workloads
from harness.planes.rally.runner import DATA_PLANE_DIR, DATA_PLANE_SCENARIO, JSON_REPORT
from harness.records.aggregate import Warning
from harness.records.fio import REFERENCE_COLUMNS, ConsumerContext, from_row
from harness.records.step import StepParts

WARNINGS_TITLE = "volperf warnings"
# the iteration's additive chart of its latency percentiles: "<direction> p95|p99", ms
LATENCY_TITLE = "Completion latency over the VMs' merged histograms, ms"
WARNING_COLUMNS = ["code", "message", "source"]
# a warning's source in that table: the Heat step's reading of the VMs' answers, or the
# iteration's aggregated figures
FROM_STEP, FROM_FIGURES = "heat step", "figures"


def data_plane_parts(raw: Path, step_id: str, backend: str) -> StepParts:
    if (raw / DATA_PLANE_DIR).is_dir():
        return kept_parts(raw, step_id, backend)
    return table_parts(raw, step_id, backend)


def kept_parts(raw: Path, step_id: str, backend: str) -> StepParts:
    """From the VMs' answers each iteration kept."""
    parts = StepParts()
    for iteration in sorted((raw / DATA_PLANE_DIR).glob("subtask-*/iteration-*")):
        try:
            stacks = json.loads((iteration / STACKS_FILE).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue  # an iteration stopped before its stacks were asked for
        consumers = sorted(
            (
                {"name": name, "rw": stack["rw"], "role": role_of(stack["rw"])}
                | {"jobname": f"{name}-{stack['rw']}"}
                for stack in stacks
                for name in stack["consumers"]
            ),
            key=lambda consumer: consumer["name"],
        )
        parameters = stacks[0]["parameters"] if stacks else {}
        plan = {
            "workload": {
                "bs": parameters.get("bs", ""),
                "iodepth": parameters.get("test_iodepth", 1),
            },
            "concurrency": len(consumers),
            "repeat": int(iteration.name.removeprefix("iteration-")),
            "consumers": consumers,
        }
        own = heat_step(iteration, step_id, plan, backend)
        parts.fio_records += own.records
        parts.fio_outputs += own.outputs
        parts.events += own.events
        _add_once(parts, plan["repeat"], own.warnings)
    return parts


def _add_once(parts: StepParts, iteration: int, warnings: Iterable[Warning]) -> None:
    """An iteration's warnings, each named by its iteration, the same one said once."""
    for warning in warnings:
        said = Warning(warning.code, f"iteration {iteration}: {warning.message}")
        if said not in parts.warnings:
            parts.warnings.append(said)


def table_parts(raw: Path, step_id: str, backend: str) -> StepParts:
    """From the table of every VM in each iteration's output in Rally's report."""
    parts = StepParts()
    try:
        document = load_export(raw / JSON_REPORT)
    except RallyResultError:
        return parts  # the Rally step says why
    for _, workload in workloads(document):
        if scenario_of(workload) != DATA_PLANE_SCENARIO:
            continue
        args = workload["scenario"][DATA_PLANE_SCENARIO] or {}
        for repeat, iteration in enumerate(workload.get("data") or [], start=1):
            for row in vm_rows(iteration):
                consumer = row["consumer"]
                rw = row["jobname"].removeprefix(f"{consumer}-")
                context = ConsumerContext(
                    step=step_id,
                    consumer=consumer,
                    concurrency=int(args.get("vm_count") or 0),
                    role=row["role"],
                    rw=rw,
                    bs=str(args.get("bs", "")),
                    iodepth=int(args.get("iodepth") or 1),
                    backend=backend,
                    repeat=repeat,
                )
                parts.fio_records.append(from_row(row, context))
            _add_once(parts, repeat, step_warnings(iteration))
    return parts


def vm_rows(iteration: dict[str, Any]) -> Iterator[dict[str, str]]:
    """The rows of an iteration's table of every VM (fio.csv's reference columns, then the
    VM, its role and its error), by column."""
    for chart in (iteration.get("output") or {}).get("complete") or []:
        data = chart.get("data") or {}
        columns = data.get("cols") or []
        if columns[: len(REFERENCE_COLUMNS)] == REFERENCE_COLUMNS and "consumer" in columns:
            for row in data.get("rows") or []:
                yield dict(zip(columns, (str(cell) for cell in row), strict=True))


def step_warnings(iteration: dict[str, Any]) -> Iterator[Warning]:
    """The Heat step's warnings the scenario put in an iteration's output."""
    for row in warning_rows(iteration):
        if row["source"] == FROM_STEP:
            yield Warning(row["code"], row["message"])


def warning_rows(iteration: dict[str, Any]) -> Iterator[dict[str, str]]:
    """The rows of an iteration's table of warnings (WARNINGS_TITLE), by column."""
    for chart in (iteration.get("output") or {}).get("complete") or []:
        data = chart.get("data") or {}
        if chart.get("title") == WARNINGS_TITLE and data.get("cols") == WARNING_COLUMNS:
            for row in data.get("rows") or []:
                yield dict(zip(WARNING_COLUMNS, (str(cell) for cell in row), strict=True))


def merged_percentiles(iteration: dict[str, Any]) -> dict[str, float | None]:
    """An iteration's p95 and p99 over its VMs' merged histograms, by "<direction>
    <percentile>" as its latency chart (LATENCY_TITLE) gives them, in ms; None where the
    chart has 0 (no VM of that direction answered, or the figure was fio's ceiling)."""
    for chart in (iteration.get("output") or {}).get("additive") or []:
        if chart.get("title") == LATENCY_TITLE:
            return {str(name): (float(value) or None) for name, value in chart.get("data") or []}
    return {}
