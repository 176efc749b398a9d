"""migration (Kubernetes only): the io-pause pods moved off a node that fails."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, model_validator

from harness.core.workloads.base import Plot, Tool
from harness.core.workloads.columns import consumers, count_of, event, threads
from harness.core.workloads.database import _UnderLoadWorkload
from harness.core.workloads.words import join, open_ended, thread_counts


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
    after: int = Field(
        5,
        ge=2,
        description="seconds of load after all pods are back and the clients' transactions "
        "resumed (waited for up to recovery_timeout from the failure)",
    )
    recovery_timeout: int = Field(
        300, ge=10, description="seconds all pods may take to be Ready on another node"
    )

    @model_validator(mode="after")
    def _crash_commands(self) -> MigrationWorkload:
        if self.failure == "crash" and not (self.crash_command and self.restore_command):
            raise ValueError("failure crash needs crash_command and restore_command")
        return self


def step_line(w: dict[str, Any], threads: int | None) -> str:
    return f"migration: node {w.get('node') or '(first by name)'} {w.get('failure')}, " + (
        f"sysbench oltp_{w.get('test', '')}, {threads} threads"
    )


def describe(w: dict[str, Any]) -> str:
    how = {
        "drain": "drained (cordoned, the pods evicted)",
        "crash": "crashed (crash_command), then tainted out of service",
    }
    return join(
        [
            f"migration: every consumer's {w.get('engine')} pod starts on node "
            f"{w.get('node') or 'the first Ready one by name'} under sysbench "
            f"oltp_{w.get('test')} with 1-second reports from a client pod on another node; "
            f"{w.get('before')} s into the load the node is {how.get(w.get('failure', ''))}, "
            "each pod's time to Running and Ready elsewhere and its client's io-pause are "
            "recorded, and the time until all are back",
            f"{w.get('after')} s of load after that; the node is brought back at the end, the "
            "rows counted before and after the move",
            thread_counts(w),
            f"{w.get('tables')} tables of {w.get('table_size')} rows",
        ]
    )


COLUMNS = (
    consumers(),
    threads(),
    event("all back s", "all-back", "max_s", 2),
    event("running elsewhere mean s", "pod-replaced", "mean_s", 2),
    event("ready elsewhere mean s", "server-recovery", "mean_s", 2),
    event("ready max s", "server-recovery", "max_s", 2),
    event("io-pause mean s", "io-pause", "mean_s", 1),
    event("io-pause max s", "io-pause", "max_s", 1),
    count_of("never resumed", "io-pause", "unresolved"),
)


TOOL = Tool(
    "migration",
    MigrationWorkload,
    "database",
    frozenset({"k8s"}),
    describe,
    open_ended,  # as long as the pods take to come back
    step_line,
    "migration needs the k8s target (a node fails and its pods move to another)",
    columns=COLUMNS,
    plot=Plot("migration", "migration"),
)
