"""The local plane in the registry: the `local` target; the records of database and
application (git, build) steps."""

from __future__ import annotations

from harness.core.workloads.registry import TOOLS
from harness.planes.base import LazyTarget, Plane
from harness.planes.local import cleanup
from harness.records.app_step import APP_TOOLS, APPS_CSV, app_step, apps_csv
from harness.records.db_step import build_db_step
from harness.records.step import RawStep, StepParts

# the k8s plane's database steps write the same raw files: this builder reads theirs too
DATABASE_TOOLS = tuple(t.tag for t in TOOLS if t.family == "database" and "local" in t.targets)


def database_step(step: RawStep) -> StepParts:
    db = build_db_step(step.raw, step.plan, step.step_id, step.backend)
    summary = {"threads": step.plan.get("threads"), **db.summary()}
    return StepParts(summary, list(db.warnings), list(db.events), db_records=list(db.records))


PLANE = Plane(
    "local",
    targets={"local": LazyTarget("harness.planes.local.target", "LocalTarget")},
    tool_steps={
        **dict.fromkeys(DATABASE_TOOLS, database_step),
        **dict.fromkeys(APP_TOOLS, app_step),
    },
    csv_files={APPS_CSV: apps_csv},
    removers=[(lambda kind: kind in cleanup.KINDS, cleanup.remove_noted)],
)
