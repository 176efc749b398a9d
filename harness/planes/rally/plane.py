"""The Rally plane in the registry: Rally steps' records (rally.csv); what tasks left."""

from __future__ import annotations

from harness.planes.base import Lazy, Plane
from harness.planes.rally import cleanup
from harness.planes.rally.data_plane import data_plane_parts
from harness.planes.rally.records import rally_csv
from harness.planes.rally.step import rally_step
from harness.records.step import RawStep, StepParts

CSV_FILE = "rally.csv"


def task_step(step: RawStep) -> StepParts:
    rally = rally_step(step.raw, step.step_id)
    vms = data_plane_parts(step.raw, step.step_id, step.backend)
    return StepParts(
        rally.summary,
        rally.warnings + vms.warnings,
        events=vms.events,
        fio_records=vms.fio_records,
        fio_outputs=vms.fio_outputs,
        rows={CSV_FILE: list(rally.records)},
    )


PLANE = Plane(
    "rally",
    tool_steps={"rally": task_step},
    csv_files={CSV_FILE: rally_csv},
    removers=[
        # faults first: a Cinder service left stopped is started before volumes are deleted
        (
            lambda kind: kind == "openstack-service-fault",
            Lazy("harness.planes.rally.service_faults", "undo_noted"),
        ),
        (lambda kind: kind == "rally-task", cleanup.remove_noted),
    ],
)
