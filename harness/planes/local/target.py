"""The `local` target of a spec: fio workloads go to the fio target, database workloads
(sysbench, pgbench, io-pause) to the database target; both use the same directory."""

from __future__ import annotations

import threading

from harness.core.plan import Step
from harness.core.spec import CampaignSpec, FioWorkload
from harness.core.store import CampaignStore
from harness.planes.base import StepOutcome, Tick
from harness.planes.local.db_target import LocalDatabaseTarget
from harness.planes.local.fio_target import LocalFioTarget


class LocalTarget:
    def __init__(self, spec: CampaignSpec):
        self.fio = LocalFioTarget(spec)
        self.db = LocalDatabaseTarget(spec)
        self.path = self.fio.path
        self.has_fio = any(isinstance(w, FioWorkload) for w in spec.workloads)
        self.has_db = not all(isinstance(w, FioWorkload) for w in spec.workloads)

    @property
    def backend(self) -> str:
        return self.fio.backend if self.has_fio else self.db.backend

    def prepare(self, spec: CampaignSpec, store: CampaignStore) -> None:
        if self.has_fio:
            self.fio.prepare(spec, store)
        if self.has_db:
            self.db.prepare(spec, store)

    def tool_versions(self) -> dict[str, str]:
        return self.db.tool_versions() if self.has_db else {}

    def run_step(
        self, step: Step, store: CampaignStore, stop: threading.Event, tick: Tick
    ) -> StepOutcome:
        target = self.fio if isinstance(step.workload, FioWorkload) else self.db
        return target.run_step(step, store, stop, tick)

    def cleanup(self, store: CampaignStore) -> list[str]:
        return self.db.cleanup(store)  # its servers
