"""The local plane in the registry: the `local` target; the records of database and
application (git, build) steps, whose modules load when a step's records are built."""

from __future__ import annotations

from harness.core.workloads.registry import TOOLS
from harness.planes.base import Lazy, LazyTarget, Plane
from harness.planes.local import cleanup
from harness.records import APPS_CSV

# the k8s plane's database steps write the same raw files: this builder reads theirs too
DATABASE_TOOLS = tuple(t.tag for t in TOOLS if t.family == "database" and "local" in t.targets)
APP_TOOLS = tuple(t.tag for t in TOOLS if t.phases)  # an application times its phases

PLANE = Plane(
    "local",
    targets={"local": LazyTarget("harness.planes.local.target", "LocalTarget")},
    tool_steps={
        **dict.fromkeys(DATABASE_TOOLS, Lazy("harness.records.db_step", "database_step")),
        **dict.fromkeys(APP_TOOLS, Lazy("harness.records.app_step", "app_step")),
    },
    csv_files={APPS_CSV: Lazy("harness.records.app_step", "apps_csv")},
    removers=[(lambda kind: kind in cleanup.KINDS, cleanup.remove_noted)],
)
