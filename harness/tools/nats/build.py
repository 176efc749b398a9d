"""nats-server (v2.15.2) and natscli's `nats` (v0.5.0, whose `nats bench` is NATS's own
benchmark client), built from go/ (the versions pinned by go.mod and go.sum, served by the
Go module proxy) once per machine (harness/tools/gobuilt.py); about 30 s with the module
cache warm. Both need Go 1.26: an older Go fetches that toolchain from the module proxy
(GOTOOLCHAIN=auto, go.mod's toolchain line), once per machine."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from harness.core.resources import package_path
from harness.tools.gobuilt import GoProgram, GoProgramError, ensure

SERVER = "nats-server"
CLIENT = "nats"
VERSIONS = "nats-server v2.15.2, natscli v0.5.0"
PROGRAM = GoProgram(
    name="nats",
    source=package_path("harness.tools.nats", "go"),
    files=("go.mod", "go.sum", "tools.go"),
    packages=("github.com/nats-io/nats-server/v2", "github.com/nats-io/natscli/nats"),
    binaries=(SERVER, CLIENT),
    what=f"{SERVER} and {CLIENT} ({VERSIONS})",
    purpose="the broker workload's NATS server and bench client",
    toolchain="auto",
)
NatsBuildError = GoProgramError


def ensure_nats(say: Callable[[str], None]) -> Path:
    """The folder holding nats-server and nats, built first if missing."""
    return ensure(PROGRAM, say)
