"""The `k8s` target of a spec: fio workloads run in pods of their own (fio_target.py),
pvc-provision steps create namespaces of PVCs (provision_target.py), database workloads
run in StatefulSet pods (db_target.py), application workloads (git, build) in a namespace
per project (app_target.py); all check the cluster and the StorageClass first, and share one
client. While any step runs, a sampler pod on every node records its load
(node_sampler.py)."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

from harness.core.plan import Step
from harness.core.spec import CampaignSpec
from harness.core.store import CampaignStore
from harness.core.workloads.registry import families, family_of
from harness.planes.base import StepOutcome, Tick
from harness.planes.k8s.fio_target import K8sFioTarget
from harness.planes.k8s.json_api import CoreJson
from harness.planes.k8s.node_sampler import NodeSampler
from harness.planes.k8s.provision_target import K8sProvisionTarget

if TYPE_CHECKING:  # the database and application parts: imported when a step needs them
    from harness.planes.k8s.app_target import K8sAppTarget
    from harness.planes.k8s.db_target import K8sDatabaseTarget

# the attribute of the part that runs each family of tools (harness/core/workloads)
PARTS = {"fio": "fio", "provision": "provision", "app": "applications", "database": "db"}


class KubernetesTarget:
    path: Path | None = None  # its storage is not a folder of this host

    def __init__(self, spec: CampaignSpec):
        self.fio = K8sFioTarget(spec)
        self.spec = spec
        self.backend = self.fio.backend
        self._provision: K8sProvisionTarget | None = None
        self._db: K8sDatabaseTarget | None = None
        self._applications: K8sAppTarget | None = None
        self._nodes: NodeSampler | None = None

    @property
    def provision(self) -> K8sProvisionTarget:
        if self._provision is None:
            core = CoreJson(self.fio.api)  # no typed API module imported for it
            self._provision = K8sProvisionTarget(self.spec, core, str(self.fio.kubeconfig))
        return self._provision

    @property
    def apps(self) -> Any:
        from kubernetes import client

        return client.AppsV1Api(self.fio.core.api_client)

    @property
    def db(self) -> K8sDatabaseTarget:
        if self._db is None:
            from harness.planes.k8s.db_target import K8sDatabaseTarget

            self._db = K8sDatabaseTarget(
                self.spec, self.fio.core, self.apps, str(self.fio.kubeconfig)
            )
        return self._db

    @property
    def applications(self) -> K8sAppTarget:
        if self._applications is None:
            from harness.planes.k8s.app_target import K8sAppTarget

            self._applications = K8sAppTarget(self.spec, self.fio.core, str(self.fio.kubeconfig))
        return self._applications

    @property
    def nodes(self) -> NodeSampler:
        if self._nodes is None:
            core = CoreJson(self.fio.api)
            self._nodes = NodeSampler(self.spec, core, str(self.fio.kubeconfig))
        return self._nodes

    def prepare(self, spec: CampaignSpec, store: CampaignStore) -> None:
        self.fio.prepare(spec, store)

    @property
    def announcements(self) -> list[str]:
        """The node faults the fio workloads will give, and their commands."""
        return self.fio.announcements

    def tool_versions(self) -> dict[str, str]:
        versions = self.fio.tool_versions()
        o = self.fio.options
        databases = [w for w in self.spec.workloads if family_of(w) == "database"]
        if databases:
            versions |= self._database_images(databases)
        if "app" in families(self.spec.workloads):
            versions["applications' image"] = o.app_image
        return versions

    def _database_images(self, databases: list[Any]) -> dict[str, str]:
        from harness.tools.db_clients import client_of

        o = self.fio.options
        engines = {client_of(w).engine(w) for w in databases}
        images = {}
        if "mariadb" in engines:
            images["mariadb image"] = o.mariadb_image
        if any(client_of(w).in_data_folder for w in databases):  # fileio's sysbench
            images["sysbench image (fileio)"] = o.mariadb_image
        if "postgresql" in engines:
            images["postgresql image"] = o.postgresql_image
        return images

    def run_step(
        self, step: Step, store: CampaignStore, stop: threading.Event, tick: Tick
    ) -> StepOutcome:
        if not self.fio.options.node_load:
            return self._run_step(step, store, stop, tick)
        notes: list[str] = []
        with self.nodes.sampling(store, store.raw_dir(step.id), notes):
            outcome = self._run_step(step, store, stop, tick)
        outcome.notes += notes
        return outcome

    def _run_step(
        self, step: Step, store: CampaignStore, stop: threading.Event, tick: Tick
    ) -> StepOutcome:
        part = getattr(self, PARTS[family_of(step.workload)])
        return part.run_step(step, store, stop, tick)

    def cleanup(self, store: CampaignStore) -> list[str]:
        return []  # every namespace is noted in created.json: the campaign removes them
