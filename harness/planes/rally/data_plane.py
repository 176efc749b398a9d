"""fio.csv rows of a Rally step's data-plane workloads (VolPerf.cinder_fio): the VMs'
answers the runner had each iteration keep in raw/data-plane/subtask-I/iteration-N/, laid
out as a Heat step's raw/, read by the Heat plane's own step code. One row per VM per
iteration, named and cast (reader, writer) as `volperf run heat` names them; the
iteration is the row's repeat, its VM count the row's concurrency."""

from __future__ import annotations

import json
from pathlib import Path

from harness.core.plan import role_of
from harness.planes.heat.step import STACKS_FILE, heat_step
from harness.planes.rally.runner import DATA_PLANE_DIR
from harness.records.step import StepParts


def data_plane_parts(raw: Path, step_id: str, backend: str) -> StepParts:
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
    return parts
