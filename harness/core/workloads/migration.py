"""migration (Kubernetes only): the io-pause pods moved off a node that fails."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator

from harness.core.workloads.base import Tool
from harness.core.workloads.database import _UnderLoadWorkload


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


TOOL = Tool(
    "migration",
    MigrationWorkload,
    "database",
    frozenset({"k8s"}),
    "migration needs the k8s target (a node fails and its pods move to another)",
)
