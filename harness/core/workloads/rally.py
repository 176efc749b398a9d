"""rally (OpenStack only): a Rally task at each concurrency of the sweep."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from harness.core.workloads.base import Name, Tool, _Strict


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


TOOL = Tool(
    "rally",
    RallyWorkload,
    "rally",
    frozenset({"openstack"}),
    "Rally workloads need the openstack target (type: openstack, cloud: NAME)",
)
