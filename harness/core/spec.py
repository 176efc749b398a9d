"""Campaign specification: what to run, where, at which concurrencies.

A spec is YAML validated by pydantic; every error names the field and the bad value.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated, Any, Literal, Union

import yaml
from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Discriminator,
    Field,
    Tag,
    ValidationError,
    field_validator,
    model_validator,
)

from harness.core.units import size_bytes

READ_MODES = frozenset({"read", "randread"})
WRITE_MODES = frozenset({"write", "randwrite"})
MIXED_MODES = frozenset({"rw", "readwrite", "randrw"})
RW_MODES = READ_MODES | WRITE_MODES | MIXED_MODES
_SIZE = re.compile(r"^\d+(\.\d+)?[kKmMgGtT]?[iI]?[bB]?$")
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")


class SpecError(ValueError):
    """A spec that cannot run; ``problems`` lists 'field: message (got value)' lines."""

    def __init__(self, source: str, problems: list[str]):
        self.source = source
        self.problems = problems
        super().__init__(f"{source}: invalid campaign spec:\n  " + "\n  ".join(problems))


def _plain_name(value: str) -> str:
    """Names end up in file and directory names: keep them plain."""
    if not _NAME.match(value):
        raise ValueError("use letters, digits, '.', '_' and '-' only")
    return value


Name = Annotated[
    str, AfterValidator(_plain_name), Field(json_schema_extra={"pattern": _NAME.pattern})
]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


def _size_text(value: str) -> str:
    if not _SIZE.match(value):
        raise ValueError("expected a size such as 4k, 1M, 512, 10G")
    return value


# sizes are text (4k, 1M, 10G); a plain number from YAML becomes its text
Size = Annotated[
    str,
    BeforeValidator(str),
    AfterValidator(_size_text),
    Field(json_schema_extra={"pattern": _SIZE.pattern, "examples": ["4k", "1M", "10G"]}),
]


class SteadyStateOption(_Strict):
    """fio's own steady-state detection: the job ends once the criterion held for
    ``duration`` seconds (fio's steadystate, ss_dur, ss_ramp); runtime is the limit."""

    criterion: str = Field(
        pattern=r"^(iops|bw)(_slope)?:[0-9]+(\.[0-9]+)?%?$",
        description="fio's steadystate, e.g. iops:20% (max deviation from the mean) or "
        "iops_slope:0.1% (slope)",
    )
    duration: int = Field(ge=2, description="seconds the criterion must hold (ss_dur)")
    ramp: int = Field(0, ge=0, description="seconds before fio starts judging (ss_ramp)")


class FioWorkload(_Strict):
    """fio options of one workload; consumers of a step are assigned ``rw`` round-robin."""

    tool: Literal["fio"] = Field("fio", description="fio, the default when tool is missing")
    name: Name = Field(
        description="the workload's name: it names the workload's steps; unique in the campaign"
    )
    rw: list[str] = Field(
        min_length=1,
        description="fio's rw mode, or a list the consumers take in turn "
        "([randread, randwrite]: half readers and half writers at once)",
    )
    bs: Size = Field("4k", description="block size of every I/O (fio's bs)")
    iodepth: int = Field(
        1, ge=1, le=65536, description="I/Os each consumer keeps in flight (fio's iodepth)"
    )
    numjobs: int = Field(
        1,
        ge=1,
        le=1024,
        description="fio jobs per consumer, reported together as that consumer (fio's numjobs)",
    )
    size: Size = Field(
        "1G",
        description="per consumer: the size of its file, device region, image or volume "
        "(fio's size)",
    )
    mode: Literal["time", "size"] = Field(
        "time",
        description="time: each consumer runs for runtime seconds; size: until it has gone "
        "through its size once",
    )
    runtime: int | None = Field(60, ge=1, description="seconds, for mode: time")
    ramp_time: int = Field(
        0, ge=0, description="seconds of run before fio starts counting (fio's ramp_time)"
    )
    direct: bool = Field(True, description="O_DIRECT I/O, past the page cache (fio's direct)")
    ioengine: str = Field(
        "libaio", description="fio's ioengine; the rbd target uses fio's rbd engine instead"
    )
    prefill: bool = Field(
        False,
        description="write each consumer's file, image or volume in full before measuring, "
        "so reads hit real data",
    )
    rwmixread: int | None = Field(
        None,
        ge=0,
        le=100,
        description="percent of reads for the mixed rw modes (fio's rwmixread); default fio's 50",
    )
    rate_iops: int | None = Field(None, ge=1, description="per-consumer cap")
    start_stagger: int = Field(
        0,
        ge=0,
        description="seconds between consumers' starts, to reproduce consumers that start "
        "as they happen to boot; 0 starts them together",
    )
    steadystate: SteadyStateOption | None = Field(
        None,
        description="end each consumer's run once fio sees it steady; default none: the "
        "whole runtime",
    )
    histogram_logs: bool = Field(
        False,
        description="fio's per-second latency histogram logs too (log_hist_msec): p95 and "
        "p99 over the common window, at about 11 KB per consumer and second",
    )
    fio_options: dict[str, str | int] = Field(
        default_factory=dict,
        description="any further fio option, as key: value in the measured job's [global]",
    )

    @field_validator("rw", mode="before")
    @classmethod
    def _rw_list(cls, value: Any) -> Any:
        return [value] if isinstance(value, str) else value

    @field_validator("rw")
    @classmethod
    def _rw_known(cls, value: list[str]) -> list[str]:
        for mode in value:
            if mode not in RW_MODES:
                raise ValueError(f"unknown rw {mode!r}; one of {', '.join(sorted(RW_MODES))}")
        return value

    @model_validator(mode="after")
    def _mode(self) -> FioWorkload:
        if self.mode == "time" and self.runtime is None:
            raise ValueError("mode 'time' needs runtime (seconds)")
        if self.steadystate is not None and self.mode != "time":
            raise ValueError("steadystate needs mode 'time': runtime is its limit")
        return self


ThreadCounts = Annotated[list[Annotated[int, Field(ge=1, le=4096)]], Field(min_length=1)]


class _DbWorkload(_Strict):
    """A database-layer workload: every consumer of a step is one client process (and,
    except for fileio, its own database server); ``threads`` adds a sweep inside it."""

    name: Name = Field(
        description="the workload's name: it names the workload's steps; unique in the campaign"
    )
    report_interval: int = Field(1, ge=1, description="seconds between interval reports")

    @field_validator("threads", check_fields=False)
    @classmethod
    def _distinct(cls, value: list[int]) -> list[int]:
        if len(set(value)) != len(value):
            raise ValueError("thread counts repeat")
        return value


class FileioWorkload(_DbWorkload):
    """sysbench fileio: each consumer is one sysbench on its own set of files."""

    tool: Literal["sysbench-fileio"] = Field(description="sysbench-fileio")
    test: Literal["rndrd", "rndwr", "rndrw", "seqrd", "seqwr"] = Field(
        description="sysbench's file-test-mode: random or sequential read, write, or random mixed"
    )
    threads: ThreadCounts = Field(
        [1], description="sysbench threads of each consumer, one step per count"
    )
    runtime: int = Field(60, ge=1, description="seconds of measured run")
    file_total_size: Size = Field("1G", description="size of each consumer's files in all")
    file_num: int = Field(16, ge=1, le=100000, description="files per consumer")
    file_block_size: Size = Field("16k", description="block size of every I/O")
    file_io_mode: Literal["sync", "async", "mmap"] = Field(
        "sync", description="sysbench's file-io-mode"
    )
    file_extra_flags: list[Literal["direct", "dsync", "sync"]] = Field(
        ["direct"],
        description="flags the files are opened with; direct (O_DIRECT) keeps the page cache "
        "from answering for the disk",
    )
    file_fsync_freq: int = Field(100, ge=0, description="fsync every N requests, 0: never")
    file_fsync_all: bool = Field(False, description="fsync after every write")
    file_fsync_end: bool = Field(True, description="fsync at the end of the run")
    file_fsync_mode: Literal["fsync", "fdatasync"] = Field(
        "fsync", description="the call the syncs use"
    )
    file_rw_ratio: float = Field(1.5, gt=0, description="reads per write for rndrw")


_DATASET = re.compile(r"^(\d+(?:\.\d+)?)x-memory$")


def _dataset_factor(value: str | None) -> str | None:
    if value is not None and (not _DATASET.match(value) or dataset_factor(value) <= 0):
        raise ValueError("expected N x the memory, written like 2x-memory or 1.5x-memory")
    return value


def dataset_factor(value: str) -> float:
    """2 for '2x-memory'."""
    return float(value.removesuffix("x-memory"))


DatasetSize = Annotated[
    str | None,
    AfterValidator(_dataset_factor),
    Field(
        description="size the data to N times the memory the database may keep it in "
        "(2x-memory): sets table_size (sysbench) or scale (pgbench) when the step runs"
    ),
]


class _SizedDbWorkload(_DbWorkload):
    """A database workload whose data size is either given or derived from ``dataset``."""

    dataset: DatasetSize = None

    @model_validator(mode="after")
    def _one_size(self) -> _SizedDbWorkload:
        # a stored spec carries the default size beside dataset: only another one conflicts
        fields = type(self).model_fields
        sized = [
            name
            for name in ("table_size", "scale")
            if name in fields and getattr(self, name) != fields[name].default
        ]
        if self.dataset is not None and sized:
            raise ValueError(f"give {sized[0]} or dataset, not both")
        return self


class OltpWorkload(_SizedDbWorkload):
    """sysbench OLTP against volperf's own database server, one per consumer."""

    tool: Literal["sysbench-oltp"] = Field(description="sysbench-oltp")
    engine: Literal["mariadb", "postgresql"] = Field(
        "mariadb", description="the database server each consumer gets"
    )
    test: Literal["read_write", "read_only", "write_only"] = Field(
        "read_write", description="sysbench's OLTP test (oltp_read_write …)"
    )
    tables: int = Field(10, ge=1, le=10000, description="tables in each consumer's database")
    table_size: int = Field(10000, ge=1, description="rows per table; or give dataset")
    threads: ThreadCounts = Field(
        [1], description="client threads of each consumer, one step per count"
    )
    runtime: int = Field(60, ge=1, description="seconds of measured run")


class PgbenchWorkload(_SizedDbWorkload):
    """pgbench (TPC-B like) against volperf's own PostgreSQL, one per consumer; the
    init at ``scale`` is timed as the load time."""

    tool: Literal["pgbench"] = Field(description="pgbench")
    scale: int = Field(
        10,
        ge=1,
        description="pgbench's scale factor (-s, 100,000 accounts rows each); or give dataset",
    )
    threads: ThreadCounts = Field([1], description="pgbench clients (-c)")
    runtime: int = Field(60, ge=1, description="seconds of measured run")
    jobs: int | None = Field(None, ge=1, description="pgbench worker threads (-j)")
    protocol: Literal["simple", "extended", "prepared"] = Field(
        "prepared", description="how pgbench sends its queries (--protocol)"
    )


class _UnderLoadWorkload(_DbWorkload):
    """sysbench OLTP with 1-second reports against each consumer's MariaDB while volperf
    makes its server go (io-pause, migration)."""

    engine: Literal["mariadb"] = Field("mariadb", description="the database server: MariaDB")
    test: Literal["read_write", "read_only", "write_only"] = Field(
        "read_write", description="sysbench's OLTP test (oltp_read_write …)"
    )
    tables: int = Field(4, ge=1, le=10000, description="tables in each consumer's database")
    table_size: int = Field(10000, ge=1, description="rows per table")
    threads: ThreadCounts = Field(
        [4], description="client threads of each consumer, one step per count"
    )
    report_interval: Literal[1] = Field(  # io-pause is read from 1-second reports
        1, description="seconds between interval reports: always 1"
    )


class IoPauseWorkload(_UnderLoadWorkload):
    """sysbench OLTP with 1-second reports while every consumer's MariaDB is killed
    (SIGKILL) and restarted on the same data, ``kills`` times."""

    tool: Literal["io-pause"] = Field(description="io-pause")
    kills: int = Field(3, ge=1, le=100, description="kills and restarts in each step")
    before: int = Field(5, ge=2, description="seconds of load before each kill")
    after: int = Field(5, ge=2, description="seconds of load after the server is back")
    restart_delay: float = Field(0, ge=0, description="seconds between kill and restart")
    recovery_timeout: int = Field(120, ge=1, description="seconds a restart may take")


class MigrationWorkload(_UnderLoadWorkload):
    """Kubernetes only: the io-pause StatefulSet's MariaDB pods all start on one node under
    sysbench (1-second reports, from client pods on the other nodes); that node then
    fails (``drain``: cordoned, the pods evicted; ``crash``: ``crash_command`` stops it,
    then volperf taints it out of service, as Kubernetes' non-graceful node shutdown
    expects) and each pod's time to Running and Ready on another node, its client's
    io-pause, and the time until all are back are recorded; rows are counted before and
    after the move; the node is brought back at the end."""

    tool: Literal["migration"] = Field(description="migration")
    failure: Literal["drain", "crash"] = Field(
        description="how the node fails: drain (cordon, evict the pods) or crash "
        "(crash_command, then the out-of-service taint)"
    )
    node: str | None = Field(
        None,
        min_length=1,
        description="the node that fails, where the pods start; default the first Ready, "
        "schedulable node by name",
    )
    crash_command: list[str] | None = Field(
        None,
        min_length=1,
        description="crash: the command (run where volperf runs) that stops the node's "
        "kubelet and containers, {node} standing for its name; e.g. volperf testbed "
        "crash-node k8s --node {node}",
    )
    restore_command: list[str] | None = Field(
        None,
        min_length=1,
        description="crash: the command that brings the node back at the end, {node} "
        "standing for its name; e.g. volperf testbed up k8s",
    )
    before: int = Field(5, ge=2, description="seconds of load before the node fails")
    after: int = Field(5, ge=2, description="seconds of load after all pods are back")
    recovery_timeout: int = Field(
        300, ge=10, description="seconds all pods may take to be Ready on another node"
    )

    @model_validator(mode="after")
    def _crash_commands(self) -> MigrationWorkload:
        if self.failure == "crash" and not (self.crash_command and self.restore_command):
            raise ValueError("failure crash needs crash_command and restore_command")
        return self


class ProjectPace(_Strict):
    """How fast a step's projects (a consumer's namespace and what is in it) come and go:
    at most so many a minute, as a platform team paces tenants that all arrive at once
    (PVCs bound too slowly and deployments gave up when 100 projects came together)."""

    create_per_min: float | None = Field(
        None, gt=0, description="namespaces created a minute at most; default all at once"
    )
    delete_per_min: float | None = Field(
        None, gt=0, description="namespaces deleted a minute at most; default all at once"
    )


class PvcProvisionWorkload(_Strict):
    """Kubernetes PVC provisioning: each consumer is a namespace in which ``pvcs`` PVCs
    (and, with ``pods``, a pod mounting each) are created at once with every other
    namespace's; Pending→Bound and pod-ready times per PVC."""

    tool: Literal["pvc-provision"] = Field(description="pvc-provision")
    name: Name = Field(
        description="the workload's name: it names the workload's steps; unique in the campaign"
    )
    pvcs: int = Field(1, ge=1, le=1000, description="PVCs per namespace")
    size: Size = Field("64M", description="storage each PVC requests")
    pods: bool = Field(
        True,
        description="a pod per PVC (WaitForFirstConsumer classes bind "
        "only for one): pod-ready times too",
    )
    pod_image: str | None = Field(
        None,
        min_length=1,
        description="the pods' image, run with its own entrypoint (e.g. a pause image, as "
        "kube-burner's examples use); default the target's fio image running sleep",
    )
    qps: float | None = Field(
        None,
        gt=0,
        description="requests per second the creators may send (namespaces, PVCs, pods; "
        "a burst of as many), as kube-burner's qps and burst; default no limit",
    )
    pace: ProjectPace = Field(
        default_factory=ProjectPace,
        description="how fast namespaces (projects) are created and deleted",
    )


class GitRepo(_Strict):
    """The repository the git workload clones, generated by git fast-import (no network):
    source-like files in 40 folders; the first commit adds every file, each later one
    rewrites a tenth of them."""

    files: int = Field(2000, ge=1, le=1_000_000, description="files in the tree")
    file_size: Size = Field("8K", description="size of each file")
    commits: int = Field(20, ge=1, le=10_000, description="commits of history")


class GitWorkload(_Strict):
    """The seed study's git workload: every consumer clones a repository volperf generated
    onto the storage under test, tars the clone, untars it and removes both, each phase
    timed and ended with the file system synced; ``iterations`` times."""

    tool: Literal["git"] = Field(description="git")
    name: Name = Field(
        description="the workload's name: it names the workload's steps; unique in the campaign"
    )
    repo: GitRepo = Field(default_factory=GitRepo, description="the repository cloned")
    iterations: int = Field(3, ge=1, le=1000, description="clone, tar, untar, rm rounds")
    pace: ProjectPace = Field(
        default_factory=ProjectPace,
        description="k8s target: how fast projects (namespaces) are created and deleted",
    )


class BuildSource(_Strict):
    """The source tree the build workload unpacks and builds, generated by volperf: files
    of C-like source in 40 folders, a header every file includes, and its Makefile."""

    files: int = Field(2000, ge=1, le=1_000_000, description="source files in the tree")
    file_size: Size = Field("4K", description="size of each source file")


class BuildWorkload(_Strict):
    """A compile-like workload, as a CI job's build loads its volume: every consumer
    unpacks a generated source tree onto the storage under test, builds it with make -j
    (each job reads a source file and its header, writes an object and fsyncs it; then an
    archive per folder and a link, each fsynced; no compiler) and removes it, each phase
    timed and ended with the file system synced; ``iterations`` times, failed builds
    counted."""

    tool: Literal["build"] = Field(description="build")
    name: Name = Field(
        description="the workload's name: it names the workload's steps; unique in the campaign"
    )
    source: BuildSource = Field(default_factory=BuildSource, description="the tree built")
    jobs: int = Field(4, ge=1, le=256, description="make's parallel jobs (make -j)")
    iterations: int = Field(3, ge=1, le=1000, description="unpack, build, clean rounds")
    pace: ProjectPace = Field(
        default_factory=ProjectPace,
        description="k8s target: how fast projects (namespaces) are created and deleted",
    )


class RedisWorkload(_Strict):
    """Redis under a YCSB load: every consumer runs its own redis-server with its data and
    append-only file on the storage under test (``appendfsync`` as the spec says), loads
    ``records`` records with go-ycsb's core workload and runs ``operations`` operations of
    the YCSB workload named (a: 50 % reads, 50 % updates; b: 95/5; c: reads only; f: 50 %
    reads, 50 % read-modify-writes), each phase timed, its throughput and latencies as
    go-ycsb measured them; ``iterations`` times, each load emptying the database first.
    On Kubernetes the server has a pod of its own on the PVC and the client the second."""

    tool: Literal["redis"] = Field(description="redis")
    name: Name = Field(
        description="the workload's name: it names the workload's steps; unique in the campaign"
    )
    records: int = Field(10_000, ge=1, le=100_000_000, description="records loaded")
    operations: int = Field(10_000, ge=1, le=1_000_000_000, description="operations run")
    workload: Literal["a", "b", "c", "f"] = Field("a", description="the YCSB core workload")
    field_length: int = Field(
        100, ge=1, le=1_000_000, description="bytes of each of a record's 10 fields"
    )
    client_threads: int = Field(8, ge=1, le=1024, description="YCSB client threads per consumer")
    appendfsync: Literal["always", "everysec", "no"] = Field(
        "everysec",
        description="when Redis fsyncs its append-only file: every write, once a second "
        "(Redis's default) or when the kernel does",
    )
    iterations: int = Field(1, ge=1, le=1000, description="load and run rounds")
    pace: ProjectPace = Field(
        default_factory=ProjectPace,
        description="k8s target: how fast projects (namespaces) are created and deleted",
    )


class BrokerWorkload(_Strict):
    """A message broker persisting to the storage under test: every consumer runs its own
    NATS server (nats-server with JetStream) whose stream keeps its messages in files on
    that storage (fsynced before each is acknowledged with ``sync: always``, else NATS's
    default: every 2 minutes); NATS's own benchmark client (`nats bench`) publishes
    ``messages`` messages of ``message_size`` bytes from ``clients`` publishers, waiting
    for each batch's acknowledgements, then ``clients`` consumers read and acknowledge
    them all; each phase timed, its messages per second and publishing latencies as nats
    bench measured them; ``iterations`` times, each making the stream anew. On Kubernetes
    the server has a pod of its own on the PVC and the clients the second."""

    tool: Literal["broker"] = Field(description="broker")
    name: Name = Field(
        description="the workload's name: it names the workload's steps; unique in the campaign"
    )
    messages: int = Field(10_000, ge=1, le=1_000_000_000, description="messages per iteration")
    message_size: int = Field(1024, ge=1, le=8 * 2**20, description="bytes of each message")
    clients: int = Field(
        2, ge=1, le=1024, description="publishers, then consumers, per consumer (project)"
    )
    sync: Literal["always", "default"] = Field(
        "always",
        description="when the server fsyncs its stream's files: before acknowledging each "
        "write, or NATS's default (every 2 minutes)",
    )
    iterations: int = Field(1, ge=1, le=1000, description="publish and consume rounds")
    pace: ProjectPace = Field(
        default_factory=ProjectPace,
        description="k8s target: how fast projects (namespaces) are created and deleted",
    )


# they time their own phases
AppWorkload = GitWorkload | BuildWorkload | RedisWorkload | BrokerWorkload


class RallyWorkload(_Strict):
    """A Rally task run at each concurrency of the sweep: its scenarios get ``times``
    iterations (else ``times_per_user`` × concurrency) at that concurrency."""

    name: Name = Field(
        description="the workload's name: it names the workload's steps; unique in the campaign"
    )
    tool: Literal["rally"] = Field(description="rally")
    task: str = Field("control-plane", description="a task of rally_plugins/tasks, or a path")
    args: dict[str, Any] = Field(default_factory=dict, description="the task's args")
    times: int | None = Field(None, ge=1, description="iterations per scenario at every step")
    times_per_user: int = Field(
        2,
        ge=1,
        le=1000,
        description="iterations per scenario for each concurrent user, without times",
    )
    timeout: int = Field(3600, ge=10, description="seconds a step may take")
    poll_interval: float | None = Field(
        None,
        ge=0.1,
        le=10,
        description="seconds between Rally's checks of what it waits for (a volume "
        "available, a server active …): an action's time is rounded up to them; default "
        "rally-openstack's own, 1 to 4 s. Fewer seconds: finer times, more API requests",
    )

    def times_at(self, concurrency: int) -> int:
        return self.times or self.times_per_user * concurrency


WORKLOAD_MODELS: dict[str, type[_Strict]] = {
    "fio": FioWorkload,
    "sysbench-fileio": FileioWorkload,
    "sysbench-oltp": OltpWorkload,
    "pgbench": PgbenchWorkload,
    "io-pause": IoPauseWorkload,
    "migration": MigrationWorkload,
    "pvc-provision": PvcProvisionWorkload,
    "rally": RallyWorkload,
    "git": GitWorkload,
    "build": BuildWorkload,
    "redis": RedisWorkload,
    "broker": BrokerWorkload,
}


def tagged_union(models: dict[str, type[_Strict]], field: str, default: str, what: str) -> Any:
    """A union of models told apart by ``field`` (``default`` when it is missing), whose
    error for an unknown value lists the known ones."""

    def tag_of(value: Any) -> str:
        if isinstance(value, dict):
            return str(value.get(field, default))
        return str(getattr(value, field, default))

    members = tuple(Annotated[model, Tag(tag)] for tag, model in models.items())
    return Annotated[
        Union[members],  # noqa: UP007 - Annotated needs the Union spelled out for the tags
        Discriminator(
            tag_of,
            custom_error_type=f"unknown-{what.replace(' ', '-')}",
            custom_error_message=f"unknown {what}; one of {', '.join(models)}",
        ),
    ]


Workload = tagged_union(WORKLOAD_MODELS, "tool", "fio", "tool")


class DatabaseServerSettings(_Strict):
    """Server options passed as they are: mariadbd --key=value, postgres -c key=value."""

    options: dict[str, str | int] = Field(
        default_factory=dict,
        description="server options, key: value, passed to every server of this engine",
    )
    start_timeout: int = Field(120, ge=1, description="seconds a start may take")


def _mariadb_defaults() -> DatabaseServerSettings:
    # a capped buffer pool, so that data larger than it reaches the storage
    return DatabaseServerSettings(options={"innodb_buffer_pool_size": "128M"})


def _postgresql_defaults() -> DatabaseServerSettings:
    return DatabaseServerSettings(options={"shared_buffers": "128MB"})


class Databases(_Strict):
    mariadb: DatabaseServerSettings = Field(
        default_factory=_mariadb_defaults,
        description="volperf's MariaDB servers; default innodb_buffer_pool_size 128M, so "
        "data larger than it reaches the storage",
    )
    postgresql: DatabaseServerSettings = Field(
        default_factory=_postgresql_defaults,
        description="volperf's PostgreSQL servers; default shared_buffers 128MB",
    )


class LocalTarget(_Strict):
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


# fio options the VMs' agent (heat_templates/cinder-fio/agent.sh) runs with, as fio's
# defaults or the template's: a workload that asks for another value cannot run in VMs
AGENT_FIXED = {
    "numjobs": 1,
    "ramp_time": 0,
    "ioengine": "libaio",
    "direct": True,
    "rwmixread": None,
    "rate_iops": None,
    "start_stagger": 0,
    "steadystate": None,
    "histogram_logs": False,
    "fio_options": {},
}


def _check_heat(target: OpenStackTarget, workloads: list[FioWorkload]) -> None:

    if not workloads:
        return
    names = ", ".join(w.name for w in workloads)
    if target.heat is None:
        raise ValueError(
            f"workloads {names}: fio on an openstack target runs in VMs that Heat "
            "creates: give target.heat (image, flavor, …)"
        )
    for w in workloads:
        fixed = [f"{k}: {getattr(w, k)!r}" for k, v in AGENT_FIXED.items() if getattr(w, k) != v]
        if fixed:
            raise ValueError(
                f"workload {w.name}: the VMs' agent runs fio without "
                f"{', '.join(fixed)} (remove them for an openstack "
                "target)"
            )
        if (
            target.heat.volume_size is not None
            and size_bytes(w.size) > target.heat.volume_size * 2**30
        ):
            raise ValueError(
                f"workload {w.name}: size {w.size} does not fit the VMs' volumes "
                f"(target.heat.volume_size {target.heat.volume_size} "
                "GiB)"
            )


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
        provisioning = [w.name for w in self.workloads if isinstance(w, PvcProvisionWorkload)]
        if provisioning and self.target.type != "k8s":
            raise ValueError(
                f"workloads {', '.join(provisioning)}: pvc-provision needs the k8s target"
            )
        migrations = [w.name for w in self.workloads if isinstance(w, MigrationWorkload)]
        if migrations and self.target.type != "k8s":
            raise ValueError(
                f"workloads {', '.join(migrations)}: migration needs the k8s target "
                "(a node fails and its pods move to another)"
            )
        if self.target.type == "k8s":
            others = [w.name for w in self.workloads if isinstance(w, RallyWorkload)]
            if others:
                raise ValueError(
                    f"workloads {', '.join(others)}: the k8s target runs fio, pvc-provision, "
                    "sysbench-fileio, sysbench-oltp, pgbench, io-pause, migration and the "
                    "applications"
                )
            histograms = [
                w.name for w in self.workloads if isinstance(w, FioWorkload) and w.histogram_logs
            ]
            if histograms:
                raise ValueError(
                    f"workloads {', '.join(histograms)}: histogram_logs is for the local and "
                    "rbd targets (pods bring their logs back through the pod log, too small "
                    "for them)"
                )
        if self.target.type == "rbd":
            others = [w.name for w in self.workloads if not isinstance(w, FioWorkload)]
            if others:
                raise ValueError(
                    f"workloads {', '.join(others)}: the rbd target runs fio only (database "
                    "workloads need a file system: use a local target on a mounted RBD device)"
                )
        if self.target.type == "hosts":
            others = [w.name for w in self.workloads if not isinstance(w, FioWorkload)]
            if others:
                raise ValueError(
                    f"workloads {', '.join(others)}: the hosts target runs fio only "
                    "(through each host's fio --server)"
                )
        return self

    @model_validator(mode="after")
    def _rally_on_openstack(self) -> CampaignSpec:
        rally = [w.name for w in self.workloads if isinstance(w, RallyWorkload)]
        if self.target.type == "openstack":
            others = sorted(
                w.name for w in self.workloads if not isinstance(w, RallyWorkload | FioWorkload)
            )
            if others:
                raise ValueError(
                    f"workloads {', '.join(others)}: the openstack target runs "
                    "Rally workloads and fio in VMs (tool: rally or fio)"
                )
            _check_heat(self.target, [w for w in self.workloads if isinstance(w, FioWorkload)])
        if rally and self.target.type != "openstack":
            raise ValueError(
                f"workloads {', '.join(rally)}: Rally workloads need the openstack "
                "target (type: openstack, cloud: NAME)"
            )
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
