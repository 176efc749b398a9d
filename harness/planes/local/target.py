"""The `local` target of a spec: fio workloads go to the fio target, database workloads
(sysbench, pgbench, io-pause) to the database target, application workloads (git, build)
to the application target; all use the same directory."""

from __future__ import annotations

import threading
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from harness.core.plan import Step
from harness.core.spec import CampaignSpec
from harness.core.store import CampaignStore
from harness.core.workloads.registry import families, family_of
from harness.planes.base import StepOutcome, Tick
from harness.planes.local.fio_target import LocalFioTarget

if TYPE_CHECKING:
    from harness.planes.local.app_target import LocalAppTarget
    from harness.planes.local.db_target import LocalDatabaseTarget

# a workload's family -> the part of the target that runs it
PARTS = {"fio": "fio", "database": "db", "app": "apps"}


class LocalTarget:
    path: Path  # the directory under test

    def __init__(self, spec: CampaignSpec):
        self.spec = spec
        self.fio = LocalFioTarget(spec)
        self.path = self.fio.path
        present = families(spec.workloads)
        self.has_fio, self.has_db = "fio" in present, "database" in present
        self.has_apps = "app" in present
        # the database and application parts (their servers', clients' and builds'
        # modules) are made when a workload of theirs is in the spec, else when asked for
        for family in present:
            getattr(self, PARTS[family])

    @cached_property
    def db(self) -> LocalDatabaseTarget:
        from harness.planes.local.db_target import LocalDatabaseTarget

        return LocalDatabaseTarget(self.spec)

    @cached_property
    def apps(self) -> LocalAppTarget:
        from harness.planes.local.app_target import LocalAppTarget

        return LocalAppTarget(self.spec)

    @property
    def backend(self) -> str:
        if self.has_fio:
            return self.fio.backend
        return self.db.backend if self.has_db else self.apps.backend

    def prepare(self, spec: CampaignSpec, store: CampaignStore) -> None:
        if self.has_fio:
            self.fio.prepare(spec, store)
        if self.has_db:
            self.db.prepare(spec, store)
        if self.has_apps:
            self.apps.prepare(spec, store)

    def tool_versions(self) -> dict[str, str]:
        versions = self.db.tool_versions() if self.has_db else {}
        return {**versions, **(self.apps.tool_versions() if self.has_apps else {})}

    def run_step(
        self, step: Step, store: CampaignStore, stop: threading.Event, tick: Tick
    ) -> StepOutcome:
        part = getattr(self, PARTS[family_of(step.workload)])
        return part.run_step(step, store, stop, tick)

    def cleanup(self, store: CampaignStore) -> list[str]:
        return self.db.cleanup(store)  # its servers
