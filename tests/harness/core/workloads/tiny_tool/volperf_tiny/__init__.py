"""A workload tool that exists only in the tests: a tiny script (tiny.sh, beside this
module) that copies a file of random blocks, reads the copy and removes it, each phase
timed as phases.sh times volperf's own applications. volperf adds it when VOLPERF_TOOLS
names this module; nothing of volperf names it."""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from pydantic import Field

from harness.core.workloads.base import Name, Plot, Tool, _Strict
from harness.core.workloads.columns import phase_columns
from harness.core.workloads.words import join, open_ended

PHASES = ("copy", "read", "rm")
BLOCK = 4096


class TinyWorkload(_Strict):
    """Each consumer copies a file of ``blocks`` random 4 KiB blocks, reads the copy and
    removes it, ``iterations`` times."""

    served: ClassVar[bool] = False
    source_suffix: ClassVar[str] = ""

    tool: Literal["tiny"] = Field(description="tiny")
    name: Name = Field(description="the workload's name")
    blocks: int = Field(64, ge=1, le=65536, description="4 KiB blocks in the file copied")
    iterations: int = Field(2, ge=1, le=100, description="copy, read, rm rounds")

    def source_sizes(self) -> list[str]:
        return [str(self.blocks)]

    def run_args(self, client: str | None, server: str | None) -> list[str]:
        return []

    def tree_bytes(self) -> int:
        return self.blocks * BLOCK

    def peak_bytes(self) -> int:
        return self.tree_bytes()

    def timeout_s(self) -> float:
        return 60.0 * self.iterations


def describe(w: dict[str, Any]) -> str:
    return join(
        [
            f"tiny: each consumer copies a file of {w.get('blocks')} random 4 KiB blocks, "
            "reads the copy and removes it",
            f"{w.get('iterations')} iteration(s)",
        ]
    )


def step_line(w: dict[str, Any], threads: int | None) -> str:
    return f"tiny: {w.get('iterations')} x copy, read, rm of {w.get('blocks')} blocks"


TOOL = Tool(
    "tiny",
    TinyWorkload,
    "app",
    frozenset({"local"}),
    describe,
    open_ended,
    step_line,
    columns=phase_columns(PHASES),
    plot=Plot("phases", "app"),
    phases=PHASES,
    script=("volperf_tiny", "tiny.sh"),
    programs=("dd", "cat", "awk"),
    versions=(("dd", ("dd", "--version")),),
)
