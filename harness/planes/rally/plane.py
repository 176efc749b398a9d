"""The Rally plane in the registry: Rally steps' records (rally.csv); what tasks left,
each module imported when used."""

from __future__ import annotations

from harness.planes.base import Lazy, Plane
from harness.planes.rally.records import CSV_FILE, rally_csv

PLANE = Plane(
    "rally",
    # imported when a Rally step's records are built: another plane's campaign loads
    # neither Rally's step nor its faults' modules
    tool_steps={"rally": Lazy("harness.planes.rally.step", "task_step")},
    csv_files={CSV_FILE: rally_csv},
    removers=[
        # faults first: a Cinder service left stopped is started before volumes are deleted
        (
            lambda kind: kind == "openstack-service-fault",
            Lazy("harness.planes.rally.service_faults", "undo_noted"),
        ),
        (lambda kind: kind == "rally-task", Lazy("harness.planes.rally.cleanup", "remove_noted")),
        # then the images Cinder lost of the volumes the stops caught, once it forgot them
        (
            lambda kind: kind == "cinder-volumes-in-hand",
            Lazy("harness.planes.rally.lost_volumes", "remove_noted"),
        ),
    ],
)
