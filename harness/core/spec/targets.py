"""Where a campaign's consumers run: one model per target type (the spec's ``target``),
told apart by ``type``; ``only`` says which tools a target runs when it runs some only."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, ClassVar, Literal

from pydantic import AfterValidator, Field, field_validator, model_validator

from harness.core.workloads.base import Name, _Strict, tagged_union


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

    @field_validator("dir")
    @classmethod
    def _absolute(cls, value: Path | None) -> Path | None:
        """A relative dir is under the current directory, as `run local --dir`'s is; an
        absolute one stays as written. The campaign records where it ran."""
        return value if value is None else value.absolute()


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
    allow_faults: bool = Field(
        False,
        description="let the workloads' faults act on this cluster although it is not a "
        "volperf testbed (through `ceph orch` and `ceph osd`; the commands are printed "
        "before the campaign starts)",
    )


class HeatSettings(_Strict):
    """How fio workloads run on an OpenStack cloud: Heat stacks of VMs (image, flavor,
    network) each with its own Cinder volume, from heat_templates/cinder-fio."""

    image: str = Field(description="Glance image of the VMs (cloud-init, curl, fio, gzip)")
    flavor: str = Field(description="Nova flavor of the VMs")
    network: str = Field("", description="network of the VMs; '' for none")
    key_name: str = Field("", description="Nova key pair; '' for none")
    volume_type: str = Field(
        "",
        description="Cinder volume type of the VMs' volumes; '' for Cinder's default. A "
        "type with QoS specs: each volume's limits are kept beside its figures and checked",
    )
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
    allow_faults: bool = Field(
        False,
        description="let Rally workloads' faults act on ceph_conf's cluster although it is "
        "not a volperf testbed (through `ceph orch` and `ceph osd`; the commands are "
        "printed before the campaign starts)",
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
    allow_faults: bool = Field(
        False,
        description="let fio workloads' drain-node and uncordon-node act on this cluster "
        "although it is not the volperf k8s testbed (the commands are printed before the "
        "campaign starts); crash-node and restore-node act on the testbed only",
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
