"""Campaign specification: what to run, where, at which concurrencies.

A spec is YAML validated by pydantic; every error names the field and the bad value.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, ClassVar, Literal

import yaml
from pydantic import (
    AfterValidator,
    Discriminator,
    Field,
    Tag,
    ValidationError,
    field_validator,
    model_validator,
)

from harness.core.spec.types import (
    Databases,
    DatabaseServerSettings,
    SpecError,
    _listed,
)
from harness.core.workloads.base import Name, ProjectPace, Size, _Strict, tagged_union
from harness.core.workloads.broker import BrokerWorkload
from harness.core.workloads.build import BuildSource, BuildWorkload
from harness.core.workloads.database import DatasetSize, ThreadCounts, dataset_factor
from harness.core.workloads.fio import (
    MIXED_MODES,
    READ_MODES,
    RW_MODES,
    WRITE_MODES,
    FioWorkload,
    SteadyStateOption,
)
from harness.core.workloads.git import GitRepo, GitWorkload
from harness.core.workloads.io_pause import IoPauseWorkload
from harness.core.workloads.migration import MigrationWorkload
from harness.core.workloads.pgbench import PgbenchWorkload
from harness.core.workloads.pvc_provision import PvcProvisionWorkload
from harness.core.workloads.rally import RallyWorkload
from harness.core.workloads.redis import RedisWorkload
from harness.core.workloads.registry import (
    TOOLS,
    WORKLOAD_MODELS,
    AppWorkload,
    Workload,
    running_on,
    tool,
)
from harness.core.workloads.sysbench_fileio import FileioWorkload
from harness.core.workloads.sysbench_oltp import OltpWorkload

# the names the spec has always exposed: the workload models, where they were before the tools'
# modules (harness/core/workloads), and those moved to the package's modules
__all__ = [
    "MIXED_MODES",
    "READ_MODES",
    "RW_MODES",
    "WORKLOAD_MODELS",
    "WRITE_MODES",
    "AppWorkload",
    "BrokerWorkload",
    "BuildSource",
    "BuildWorkload",
    "DatabaseServerSettings",
    "Databases",
    "DatasetSize",
    "FileioWorkload",
    "FioWorkload",
    "GitRepo",
    "GitWorkload",
    "IoPauseWorkload",
    "MigrationWorkload",
    "Name",
    "OltpWorkload",
    "PgbenchWorkload",
    "ProjectPace",
    "PvcProvisionWorkload",
    "RallyWorkload",
    "RedisWorkload",
    "Size",
    "SpecError",
    "SteadyStateOption",
    "ThreadCounts",
    "Workload",
    "dataset_factor",
    "tagged_union",
]


class LocalTarget(_Strict):
    only: ClassVar[str] = ""  # runs every tool that runs here at all
    type: Literal["local"] = Field("local", description="local, the default when type is missing")
    dir: Path | None = Field(
        None,
        description="the directory under test, where consumers' files and databases' data go, "
        "or a block device (allow_device); needed to run (run local --dir)",
    )
    allow_device: bool = Field(
        False,
        description="let dir be a block device, overwritten: each consumer gets a region of it",
    )
    allow_existing: bool = Field(
        False, description="let fio overwrite a consumer's file that volperf did not create"
    )


def _cephx_user(value: str) -> str:
    return value.removeprefix("client.")


class RbdTarget(_Strict):
    """RBD images volperf creates in ``pool``, one per consumer, driven by fio's rbd
    engine; the cluster's health is sampled during every step."""

    only: ClassVar[str] = (
        "the rbd target runs fio only (database workloads need a file system: use a local "
        "target on a mounted RBD device)"
    )
    type: Literal["rbd"] = Field(description="rbd")
    ceph_conf: Path | None = Field(
        None, description="default: $CEPH_CONF, the Ceph testbed's, /etc/ceph/ceph.conf"
    )
    user: Annotated[str, AfterValidator(_cephx_user)] = Field(
        "admin", description="cephx user, with or without 'client.'"
    )
    pool: Name = Field("volumes", description="Ceph pool volperf creates its images in")
    health_interval: float = Field(2.0, ge=0.5, le=60, description="seconds between samples")


class HeatSettings(_Strict):
    """How fio workloads run on an OpenStack cloud: Heat stacks of VMs (image, flavor,
    network) each with its own Cinder volume, from heat_templates/cinder-fio."""

    image: str = Field(description="Glance image of the VMs (cloud-init, curl, fio, gzip)")
    flavor: str = Field(description="Nova flavor of the VMs")
    network: str = Field("", description="network of the VMs; '' for none")
    key_name: str = Field("", description="Nova key pair; '' for none")
    volume_size: int | None = Field(
        None, ge=1, le=16384, description="GiB; default: the largest workload size"
    )
    prefill_image: str = Field("", description="prefill: volumes from this image, not a fio pass")
    device_mode: Literal["device", "rbd"] = Field(
        "device", description="rbd: the OpenStack testbed's local guest runner (a stand-in)"
    )
    agent_timeout: int | None = Field(
        None, ge=60, le=172800, description="seconds; default: runtime + 600"
    )
    delete_timeout: int = Field(600, ge=30, description="seconds a stack deletion may take")
    start_delay: int | None = Field(
        None,
        ge=0,
        le=86400,
        description="seconds from the step's stack requests to the start time every VM "
        "waits for once prefilled (a VM ready later starts at once, its lateness noted); "
        "default: 1.5 x the slowest VM's ready time in the step before plus 10 s, and in "
        "a campaign's first step each VM at once",
    )


class OpenStackTarget(_Strict):
    """An OpenStack cloud, by its name in clouds.yaml: Rally works on it as its admin,
    fio workloads run in VMs that Heat creates (``heat``)."""

    only: ClassVar[str] = (
        "the openstack target runs Rally workloads and fio in VMs (tool: rally or fio)"
    )
    type: Literal["openstack"] = Field(description="openstack")
    cloud: str = Field("volperf-testbed", description="the cloud's name in clouds.yaml")
    clouds_yaml: Path | None = Field(
        None, description="default: $OS_CLIENT_CONFIG_FILE, the usual places, the testbed's"
    )
    ceph_conf: Path | None = Field(None, description="sample Ceph health during every step")
    ceph_user: Annotated[str, AfterValidator(_cephx_user)] = Field(
        "admin", description="cephx user for the health samples, with or without 'client.'"
    )
    health_interval: float = Field(
        2.0, ge=0.5, le=60, description="seconds between Ceph health samples"
    )
    heat: HeatSettings | None = Field(None, description="needed by fio workloads")


class K8sTarget(_Strict):
    """A Kubernetes cluster: each consumer of a step is a pod with its own PVC of
    ``storage_class``, all in a namespace of the step's own, deleted after it."""

    only: ClassVar[str] = "the k8s target runs {tools}"
    type: Literal["k8s"] = Field(description="k8s")
    kubeconfig: Path | None = Field(
        None, description="default: $KUBECONFIG, the k8s testbed's, ~/.kube/config"
    )
    storage_class: str = Field(min_length=1, description="StorageClass of the PVCs volperf creates")
    fio_image: str = Field(
        "registry.local/fio:3.33",
        description="image with fio, for fio workloads' pods and pvc-provision's pods",
    )
    mariadb_image: str = Field(
        "registry.local/mariadb-sysbench:bookworm",
        description="mariadbd, mariadb-install-db and sysbench (sysbench fileio runs in it too)",
    )
    postgresql_image: str = Field(
        "registry.local/postgresql-pgbench:bookworm", description="PostgreSQL 15 with pgbench"
    )
    app_image: str = Field(
        "registry.local/apps:bookworm-3",
        description="the application workloads' image (git, build, redis, broker): sh, awk, "
        "tar, gzip, df, sync -f, git, make, redis-server, redis-cli, volperf-ycsb, "
        "nats-server and nats on PATH",
    )
    image_pull_policy: Literal["Never", "IfNotPresent", "Always"] = Field(
        "IfNotPresent", description="imagePullPolicy of volperf's pods"
    )
    pod_timeout: int = Field(300, ge=10, description="seconds for PVCs to bind, pods to start")
    volume_mode: Literal["Filesystem", "Block"] = Field(
        "Filesystem", description="fio workloads: Block gives each pod its PVC as a raw device"
    )
    start_together: bool = Field(
        True,
        description="fio workloads: pods prefill, then wait until every pod is ready and "
        "start their measured run together on volperf's signal",
    )
    node_load: bool = Field(
        True,
        description="sample every node's CPU, memory, disks and network once a second "
        "while each step runs, from a DaemonSet of host-network pods in a namespace of "
        "their own (labelled for Pod Security 'privileged'), removed at the end",
    )
    db_memory_limit: str | None = Field(
        None,
        pattern=r"^[0-9]+(Ki|Mi|Gi|Ti)$",
        description="memory limit of each database server container (e.g. 2Gi): the page "
        "cache its data can be read from; default none (the node's memory)",
    )


class FioHost(_Strict):
    """A host that runs ``fio --server`` (fio's own distributed mode), which volperf
    reaches as its client."""

    address: str = Field(
        min_length=1,
        pattern=r"^[A-Za-z0-9.:_-]+$",
        description="host name or address fio's client connects to ('ip6:ADDR' for IPv6)",
    )
    port: int = Field(8765, ge=1, le=65535, description="the port of its fio --server")
    dir: str = Field(
        pattern=r"^/",
        description="absolute directory on that host where volperf makes its consumers' "
        "files (volperf-<campaign>-cNN.dat)",
    )


class HostsTarget(_Strict):
    """Bare-metal or VM hosts volperf does not create, each running ``fio --server``:
    volperf runs ``fio --client`` with each host's job file, every job waiting for a
    shared start time, and the consumers of a step are spread over the hosts in turn
    (c01 on the first, c02 on the second, …), one fio job each on a file of its own in
    the host's ``dir``."""

    only: ClassVar[str] = "the hosts target runs fio only (through each host's fio --server)"
    type: Literal["hosts"] = Field(description="hosts")
    hosts: list[FioHost] = Field(
        min_length=1,
        description="hosts running fio --server; a step's consumers go over them in turn",
    )
    allow_existing: bool = Field(
        False, description="let fio overwrite a consumer's file that volperf did not create"
    )
    start_delay: float | None = Field(
        None,
        ge=0,
        le=3600,
        description="seconds from the start of a step's fio client to the instant every "
        "host's jobs begin their I/O (each job waits for it in fio's exec_prerun, on the "
        "host's clock: keep the hosts' clocks in sync); default 2 s plus 0.1 s per host; "
        "0 starts each host as fio's client reaches it",
    )

    @model_validator(mode="after")
    def _hosts_differ(self) -> HostsTarget:
        seen = [f"{h.address},{h.port}" for h in self.hosts]
        twice = sorted({h for h in seen if seen.count(h) > 1})
        if twice:
            raise ValueError(f"hosts repeat: {', '.join(twice)}")
        return self


TARGET_MODELS: dict[str, type[_Strict]] = {
    "local": LocalTarget,
    "rbd": RbdTarget,
    "openstack": OpenStackTarget,
    "k8s": K8sTarget,
    "hosts": HostsTarget,
}
Target = tagged_union(TARGET_MODELS, "type", "local", "target type")


class StopWhen(_Strict):
    """What ends an open-ended sweep: after each step its figures are held against these
    rules, and the first that holds ends the workload's sweep there (the later counts are
    skipped, the page says why); every step run so far is kept."""

    no_space: bool = Field(
        False,
        description="a step that ran out of space: a PVC no volume could be provisioned or "
        "bound for, a file system or pool full (ENOSPC), a storage quota exceeded",
    )
    bound_p95_above_s: float | None = Field(
        None, gt=0, description="the step's PVC-bound times (p95) above this many seconds"
    )
    failures_above_pct: float | None = Field(
        None,
        ge=0,
        lt=100,
        description="more than this % of the step's consumers failed (fio jobs, pods, "
        "database clients; PVCs of pvc-provision)",
    )
    per_consumer_below_pct: float | None = Field(
        None,
        gt=0,
        lt=100,
        description="throughput per consumer (IOPS of fio, TPS of databases) below this % "
        "of the sweep's first step's",
    )

    def has_rules(self) -> bool:
        return any(value not in (None, False) for value in self.model_dump().values())


class Sweep(_Strict):
    """Consumer counts that grow until the storage gives out: ``counts`` in order, or
    ``start`` multiplied by ``factor`` up to ``max`` (max itself last), each step held
    against ``stop_when``."""

    counts: list[int] | None = Field(
        None, min_length=1, description="the consumer counts in order (e.g. 1, 10, 50, 100, 250)"
    )
    start: int | None = Field(None, ge=1, description="the first consumer count")
    factor: float = Field(2, gt=1, le=100, description="each count is the one before times this")
    max: int | None = Field(None, ge=1, description="the last consumer count")
    stop_when: StopWhen = Field(
        default_factory=StopWhen, description="rules that end the sweep (none: it runs to max)"
    )

    @model_validator(mode="after")
    def _one_form(self) -> Sweep:
        if self.counts is not None:
            if self.start is not None or self.max is not None:
                raise ValueError("give counts, or start and max, not both")
            if any(b <= a for a, b in zip(self.counts, self.counts[1:], strict=False)):
                raise ValueError("counts must grow")
            if self.counts[0] < 1:
                raise ValueError(f"consumer count {self.counts[0]} must be at least 1")
        elif self.start is None or self.max is None:
            raise ValueError("give counts, or start and max")
        elif self.max < self.start:
            raise ValueError(f"max {self.max} is below start {self.start}")
        return self

    def values(self) -> list[int]:
        if self.counts is not None:
            return list(self.counts)
        assert self.start is not None and self.max is not None
        values, count = [self.start], float(self.start)
        while True:
            count *= self.factor
            step = max(values[-1] + 1, round(count))
            if step >= self.max:
                break
            values.append(step)
        return values + [self.max] if values[-1] != self.max else values


# a sweep is a list of counts or an open-ended Sweep: told apart by its form, so that an
# error names only the form given
SWEEP_FORMS = frozenset({"sweep-counts", "sweep-open"})
SweepField = Annotated[
    Annotated[list[int], Tag("sweep-counts")] | Annotated[Sweep, Tag("sweep-open")],
    Discriminator(lambda v: "sweep-counts" if isinstance(v, list) else "sweep-open"),
]


class CampaignSpec(_Strict):
    name: Name = Field(
        description="the campaign's name: its results directory and the names of what it makes"
    )
    target: Target = Field(
        description="where the consumers run: local (the default), rbd, openstack, k8s or hosts"
    )
    workloads: list[Workload] = Field(
        min_length=1,
        description="what runs, in this order, each swept over sweep; tool tells them apart "
        "(default fio)",
    )
    databases: Databases = Field(
        default_factory=Databases,
        description="options of the database servers volperf runs for database workloads",
    )
    sweep: SweepField = Field(
        description="consumer counts, one step each; or an open-ended sweep (counts, or "
        "start, factor and max) with the rules that end it (stop_when)"
    )
    repeats: int = Field(1, ge=1, le=100, description="runs of every step")
    labels: dict[str, str] = Field(
        default_factory=dict,
        description="free text recorded with the campaign; backend names the backend "
        "(default: from the target)",
    )
    step_timeout: int | None = Field(None, ge=1, description="seconds; default from runtime")
    fio: str = Field(
        "fio", description="the fio binary volperf runs here, a name on PATH or a path"
    )

    @field_validator("sweep")
    @classmethod
    def _sweep(cls, value: list[int] | Sweep) -> list[int] | Sweep:
        if isinstance(value, Sweep):
            return value
        if not value:
            raise ValueError("give at least one consumer count")
        for count in value:
            if count < 1:
                raise ValueError(f"consumer count {count} must be at least 1")
        if len(set(value)) != len(value):
            raise ValueError("consumer counts repeat")
        return value

    @model_validator(mode="after")
    def _unique_workloads(self) -> CampaignSpec:
        names = [w.name for w in self.workloads]
        duplicates = sorted({n for n in names if names.count(n) > 1})
        if duplicates:
            raise ValueError(f"workload names repeat: {', '.join(duplicates)}")
        return self

    @model_validator(mode="after")
    def _workloads_fit_target(self) -> CampaignSpec:
        """Each workload's tool runs on the target type (its declaration's ``targets``):
        a target that runs some tools only says which, else the tool says what it needs."""
        refused = [w for w in self.workloads if self.target.type not in tool(w.tool).targets]
        if refused and self.target.only:
            runs = self.target.only.format(tools=_listed(running_on(self.target.type)))
            raise ValueError(f"workloads {', '.join(w.name for w in refused)}: {runs}")
        if refused:
            needs = tool(refused[0].tool)
            names = ", ".join(w.name for w in refused if w.tool == needs.tag)
            raise ValueError(f"workloads {names}: {needs.elsewhere}")
        for declared in TOOLS:  # what each tool asks of the target beyond its type
            mine = [w for w in self.workloads if w.tool == declared.tag]
            if mine and declared.fits is not None:
                declared.fits(self.target, mine)
        return self

    @property
    def counts(self) -> list[int]:
        """The consumer counts of the sweep, in order."""
        return self.sweep.values() if isinstance(self.sweep, Sweep) else list(self.sweep)

    @property
    def stop_when(self) -> StopWhen | None:
        """The rules that end the sweep early, if it has any."""
        rules = self.sweep.stop_when if isinstance(self.sweep, Sweep) else None
        return rules if rules is not None and rules.has_rules() else None

    @property
    def space_count(self) -> int:
        """The consumer count whose space a target makes sure of before the campaign: the
        largest, or the first when the sweep is to stop where space runs out."""
        rules = self.stop_when
        return self.counts[0] if rules is not None and rules.no_space else max(self.counts)

    def to_dict(self) -> dict[str, Any]:
        return self.model_dump(mode="json")


_TAGS = frozenset(WORKLOAD_MODELS) | frozenset(TARGET_MODELS)


def _location(loc: tuple[Any, ...]) -> str:
    parts: list[str] = []
    for before, item in zip((None, *loc), loc, strict=False):
        if isinstance(item, int):
            parts[-1:] = [f"{parts[-1]}[{item}]"] if parts else [f"[{item}]"]
        elif item in _TAGS and (before == "target" or isinstance(before, int)):
            continue  # a discriminator's tag: the place already names the workload or target
        elif item in SWEEP_FORMS and before == "sweep":
            continue  # the sweep's form: the place already names it
        elif item not in ("function-after", "function-before") and not str(item).startswith(
            ("function-", "union[")
        ):
            parts.append(str(item))
    return ".".join(parts) or "(spec)"


def validate(data: Any, source: str = "<spec>") -> CampaignSpec:
    if not isinstance(data, dict):
        raise SpecError(source, [f"(spec): expected a mapping, got {type(data).__name__}"])
    try:
        return CampaignSpec.model_validate(data)
    except ValidationError as exc:
        problems = []
        for error in exc.errors():
            message = error["msg"].removeprefix("Value error, ")
            problem = f"{_location(error['loc'])}: {message}"
            if error["type"] != "missing" and error["loc"]:  # not the whole spec
                problem += f" (got {error['input']!r})"
            problems.append(problem)
        raise SpecError(source, problems) from None


def load(path: Path) -> CampaignSpec:
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise SpecError(str(path), [f"cannot read: {exc.strerror}"]) from exc
    except yaml.YAMLError as exc:
        raise SpecError(str(path), [f"not valid YAML: {exc}"]) from exc
    return validate(data, str(path))
