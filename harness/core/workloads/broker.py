"""broker: a NATS JetStream server per consumer under nats bench."""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from pydantic import Field

from harness.core.figures import FAR_TAIL, Figure
from harness.core.workloads.base import Name, Plot, ProjectPace, Tool, _Strict
from harness.core.workloads.columns import at, consumers
from harness.core.workloads.words import join, open_ended, paced


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

    served: ClassVar[bool] = True  # a nats-server, and nats bench its client
    port: ClassVar[int] = 4222
    # the folder of nats-server and nats (harness/tools/nats) in the image
    client: ClassVar[str] = "/usr/local/bin"
    source_suffix: ClassVar[str] = ".params"

    def source_sizes(self) -> list[str]:
        """nats bench's parameters, as broker.sh's generate takes them."""
        return [str(self.messages), str(self.message_size)]

    def run_args(self, client: str | None, server: str | None) -> list[str]:
        """The folder of nats-server and nats, sync, clients, and a server of its own or
        ``server``."""
        given = [client or self.client, self.sync, str(self.clients)]
        return given + ([server] if server else [])

    def ready_check(self) -> str:
        """A shell test that succeeds once JetStream answers with its account information."""
        return f"nats --server nats://127.0.0.1:{self.port} account info >/dev/null"

    def tree_bytes(self) -> int:
        """The messages published."""
        return self.messages * self.message_size

    def peak_bytes(self) -> int:
        """Its stream, each message with about 100 bytes of subject, headers and index."""
        return 2 * self.messages * (self.message_size + 100)

    def timeout_s(self) -> float:
        """A minute an iteration and 10 ms a message."""
        return self.iterations * (60 + self.messages / 100)


def step_line(w: dict[str, Any], threads: int | None) -> str:
    return (
        f"broker: {w.get('iterations')} x publish and consume {w.get('messages')} messages "
        f"of {w.get('message_size')} bytes, {w.get('clients')} clients, sync {w.get('sync')}"
    )


def describe(w: dict[str, Any]) -> str:
    sync = (
        "fsynced before each write is acknowledged"
        if w.get("sync") == "always"
        else "fsynced when NATS's default interval (2 minutes) says"
    )
    return join(
        [
            "broker: each consumer runs its own NATS server (nats-server v2.15.2, JetStream) "
            f"whose stream keeps its messages in files on its own volume or folder, {sync}; "
            f"nats bench (natscli v0.5.0) publishes {w.get('messages')} messages of "
            f"{w.get('message_size')} bytes from {w.get('clients')} publishers (asynchronous, "
            f"acknowledged in batches of 500), then {w.get('clients')} consumers read and "
            "acknowledge them",
            f"{w.get('iterations')} iteration(s), each making the stream anew",
            paced(w.get("pace") or {}, "projects"),
            "messages per second as nats bench measured them, and its publishing latency: "
            "the time until a batch of 500 is acknowledged",
        ]
    )


PHASES = ("publish", "consume")  # its timed phases, in order (its script's lines)
COLUMNS = (
    consumers(),
    at("iterations", "app", "iterations"),
    at("publish s", "app", "publish_s", 2),
    at("consume s", "app", "consume_s", 2),
    at("publish msg/s sum", "app", "publish_ops_s", 1),
    at("publish msg/s per consumer", "app", "publish_ops_s_per_consumer", 1),
    at("consume msg/s sum", "app", "consume_ops_s", 1),
    at("consume msg/s per consumer", "app", "consume_ops_s_per_consumer", 1),
    at("publish latency avg ms", "app", "publish_latency_avg_ms", 3),
    at("publish p99 ms (highest)", "app", "publish_p99_ms_max", 3),
    at("failed iterations", "app", "failed"),
)


# nats bench's figures that `volperf compare` sets side by side
COMPARED = (
    Figure("publish_ops_s", "publish msg/s (sum)", "msg/s", True),
    Figure("publish_ops_s_per_consumer", "publish msg/s per consumer", "msg/s", True),
    Figure("publish_latency_avg_ms", "publish latency avg ms", "ms", False),
    Figure("publish_p99_ms_max", "publish p99 ms (highest)", "ms", False, noise=FAR_TAIL),
    Figure("consume_ops_s", "consume msg/s (sum)", "msg/s", True),
)


TOOL = Tool(
    "broker",
    BrokerWorkload,
    "app",
    frozenset({"local", "k8s"}),
    describe,
    open_ended,
    step_line,
    columns=COLUMNS,
    compared=COMPARED,
    plot=Plot("throughput", "messages", PHASES, "messages/s"),
    phases=PHASES,
    script=("harness.tools.apps", "broker.sh"),
    programs=("awk",),  # nats-server and nats: built (harness/tools/nats)
    throughput="publish_ops_s",
    setup={
        "local": "broker: each consumer's NATS server keeps its stream in its folder and nats "
        "bench reaches it on a loopback port.",
        "k8s": "broker: the NATS server has a pod of its own with its stream's files on the "
        "PVC, and nats bench's publishers and consumers run in the project's second pod "
        "against the server's pod address, over the pod network.",
    },
)
