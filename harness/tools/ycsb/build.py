"""volperf-ycsb, built from go/ (go-ycsb v1.0.3 from the Go module proxy, the versions
pinned by go.mod and go.sum) once per machine (harness/tools/gobuilt.py); about 20 s with
the module cache warm, a minute without."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from harness.core.resources import package_path
from harness.tools.gobuilt import GoProgram, GoProgramError, ensure

NAME = "volperf-ycsb"
GO_YCSB = "github.com/pingcap/go-ycsb v1.0.3"
PROGRAM = GoProgram(
    name="ycsb",
    source=package_path("harness.tools.ycsb", "go"),
    files=("go.mod", "go.sum", "main.go"),
    packages=(".",),
    binaries=(NAME,),
    what=f"{NAME} ({GO_YCSB}, Redis binding)",
    purpose="the YCSB client of the redis workload",
)
YcsbBuildError = GoProgramError


def ensure_ycsb(say: Callable[[str], None]) -> Path:
    """The path of volperf-ycsb, built first if missing."""
    return ensure(PROGRAM, say) / NAME
