"""redis: a redis-server per consumer under go-ycsb's load and run."""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from pydantic import Field

from harness.core.figures import COUNT, TAIL, Figure
from harness.core.workloads.base import Name, Plot, ProjectPace, Tool, _Strict
from harness.core.workloads.columns import Column, at, consumers
from harness.core.workloads.words import join, open_ended, paced


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

    served: ClassVar[bool] = True  # a redis-server, and go-ycsb its client
    port: ClassVar[int] = 6379
    client: ClassVar[str] = "volperf-ycsb"  # harness/tools/ycsb's build, on PATH in the image
    source_suffix: ClassVar[str] = ".properties"

    def source_sizes(self) -> list[str]:
        """YCSB's properties, as redis.sh's generate takes them."""
        return [self.workload, str(self.records), str(self.operations), str(self.field_length)]

    def run_args(self, client: str | None, server: str | None) -> list[str]:
        """go-ycsb, appendfsync, client threads, and a server of its own or ``server``."""
        given = [client or self.client, self.appendfsync, str(self.client_threads)]
        return given + ([server] if server else [])

    @property
    def sync(self) -> str:
        return self.appendfsync

    def ready_check(self) -> str:
        """A shell test that succeeds once the server answers Redis's PING."""
        return f'[ "$(redis-cli -p {self.port} ping)" = PONG ]'

    def record_bytes(self) -> int:
        """A YCSB record as Redis keeps it: its 10 fields, their names and its key."""
        return 10 * (self.field_length + 8) + 24

    def tree_bytes(self) -> int:
        """The records loaded."""
        return self.records * self.record_bytes()

    def peak_bytes(self) -> int:
        """Its append-only file: every iteration's load and updates (a field each), twice
        while Redis rewrites it."""
        updates = self.operations * (self.field_length + 64)
        return 2 * self.iterations * (self.tree_bytes() + updates)

    def timeout_s(self) -> float:
        """A minute an iteration and 10 ms an operation or record."""
        return self.iterations * (60 + (self.records + self.operations) / 100)


def step_line(w: dict[str, Any], threads: int | None) -> str:
    return (
        f"redis: {w.get('iterations')} x YCSB load of {w.get('records')} records, run of "
        f"{w.get('operations')} operations (workload {w.get('workload')}), appendfsync "
        f"{w.get('appendfsync')}"
    )


def describe(w: dict[str, Any]) -> str:
    return join(
        [
            "redis: each consumer runs its own redis-server with its data and append-only "
            f"file (appendfsync {w.get('appendfsync')}) on its own volume or folder, loads "
            f"{w.get('records')} records of 10 fields of {w.get('field_length')} bytes and "
            f"runs {w.get('operations')} operations of YCSB workload {w.get('workload')} "
            f"with {w.get('client_threads')} client threads (go-ycsb v1.0.3's core workload, "
            "volperf-ycsb)",
            f"{w.get('iterations')} iteration(s), each load phase emptying the database first",
            paced(w.get("pace") or {}, "projects"),
            "throughput and latencies as go-ycsb measured them",
        ]
    )


PHASES = ("load", "run")  # its timed phases, in order (its script's lines)


def _failed_operations(step: dict[str, Any]) -> str:
    """The operations go-ycsb counted as failed, over both phases."""
    app = step.get("app")
    return str(sum(app.get(f"{phase}_failed_operations") or 0 for phase in PHASES)) if app else "–"


COLUMNS = (
    consumers(),
    at("iterations", "app", "iterations"),
    at("load s", "app", "load_s", 2),
    at("run s", "app", "run_s", 2),
    at("load ops/s sum", "app", "load_ops_s", 1),
    at("run ops/s sum", "app", "run_ops_s", 1),
    at("run ops/s per consumer", "app", "run_ops_s_per_consumer", 1),
    at("run latency avg ms", "app", "run_latency_avg_ms", 3),
    at("run p95 ms (highest)", "app", "run_p95_ms_max", 3),
    at("run p99 ms (highest)", "app", "run_p99_ms_max", 3),
    Column("failed operations", _failed_operations),
    at("failed iterations", "app", "failed"),
)


# go-ycsb's figures that `volperf compare` sets side by side
COMPARED = (
    Figure("run_ops_s", "run ops/s (sum)", "ops/s", True),
    Figure("run_ops_s_per_consumer", "run ops/s per consumer", "ops/s", True),
    Figure("run_latency_avg_ms", "run latency avg ms", "ms", False),
    Figure("run_p95_ms_max", "run p95 ms (highest)", "ms", False, noise=TAIL),
    Figure("load_ops_s", "load ops/s (sum)", "ops/s", True),
    Figure("run_failed_operations", "failed run operations", "operations", False, noise=COUNT),
)


TOOL = Tool(
    "redis",
    RedisWorkload,
    "app",
    frozenset({"local", "k8s"}),
    describe,
    open_ended,
    step_line,
    columns=COLUMNS,
    compared=COMPARED,
    plot=Plot("throughput", "ycsb", PHASES, "operations/s"),
    phases=PHASES,
    script=("harness.tools.apps", "redis.sh"),
    programs=("redis-server", "redis-cli", "awk"),  # its YCSB client: built (tools/ycsb)
    versions=(("redis", ("redis-server", "--version")),),
    throughput="run_ops_s",
    setup={
        "local": "redis: each consumer's server keeps its data in its folder and its YCSB "
        "client reaches it on a Unix socket.",
        "k8s": "redis: the server has a pod of its own with its data on the PVC, and the YCSB "
        "client runs in the project's second pod against the server's pod address, over the "
        "pod network.",
    },
)
