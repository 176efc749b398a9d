"""The `local` target of a spec: fio workloads go to the fio target, database workloads
(sysbench, pgbench, io-pause) to the database target, application workloads (git, build)
to the application target; all use the same directory."""

from __future__ import annotations

import threading
from pathlib import Path

from harness.core.plan import Step
from harness.core.spec import CampaignSpec
from harness.core.store import CampaignStore
from harness.core.workloads.registry import families, family_of
from harness.planes.base import StepOutcome, Tick
from harness.planes.local.app_target import LocalAppTarget
from harness.planes.local.db_target import LocalDatabaseTarget
from harness.planes.local.fio_target import LocalFioTarget


class LocalTarget:
    path: Path  # the directory under test

    def __init__(self, spec: CampaignSpec):
        self.fio = LocalFioTarget(spec)
        self.db = LocalDatabaseTarget(spec)
        self.path = self.fio.path
        self.apps = LocalAppTarget(spec)
        present = families(spec.workloads)
        self.has_fio, self.has_db = "fio" in present, "database" in present
        self.has_apps = "app" in present
        self.parts = {"fio": self.fio, "database": self.db, "app": self.apps}

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
        return self.parts[family_of(step.workload)].run_step(step, store, stop, tick)

    def cleanup(self, store: CampaignStore) -> list[str]:
        return self.db.cleanup(store)  # its servers
