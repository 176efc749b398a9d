"""volperf-ycsb, built from go/ (go-ycsb v1.0.3 from the Go module proxy, the versions
pinned by go.mod and go.sum) once per machine into ~/.cache/volperf/ycsb/bin-<key>, the
key a digest of those files and the Go version; about 20 s with the module cache warm, a
minute without. A static binary (no cgo): the applications' image takes it as it is."""

from __future__ import annotations

import hashlib
import os
import shutil
from collections.abc import Callable
from pathlib import Path

from harness.core.resources import package_path
from harness.host import gotool

SOURCE = package_path("harness.tools.ycsb", "go")
FILES = ("go.mod", "go.sum", "main.go")
NAME = "volperf-ycsb"
GO_YCSB = "github.com/pingcap/go-ycsb v1.0.3"
BUILD_TIMEOUT_S = 900


class YcsbBuildError(RuntimeError):
    """The client could not be built: the message says why and where the log is."""


def cache() -> Path:
    return gotool.cache_base() / "ycsb"


def _key(go: str) -> str:
    digest = hashlib.sha256(gotool.version_of(go).encode())
    for name in FILES:
        digest.update((SOURCE / name).read_bytes())
    return digest.hexdigest()[:12]


def ensure_ycsb(say: Callable[[str], None]) -> Path:
    """The path of volperf-ycsb, built first if missing."""
    try:
        go = gotool.go_binary("the YCSB client of the redis workload")
    except gotool.GoMissing as exc:
        raise YcsbBuildError(str(exc)) from None
    folder = cache() / f"bin-{_key(go)}"
    binary = folder / NAME
    if binary.exists():
        return binary
    folder.mkdir(parents=True, exist_ok=True)
    work = folder / "source"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir()
    for name in FILES:
        shutil.copyfile(SOURCE / name, work / name)
    log = folder / "build.log"
    say(f"building {NAME} ({GO_YCSB}, Redis binding) into {folder}: once per machine")
    environment = {
        **os.environ,
        "GOMODCACHE": str(cache() / "gomodcache"),
        "GOFLAGS": "-mod=readonly",
        "CGO_ENABLED": "0",
        "GOTOOLCHAIN": "local",
    }
    partial = folder / f"{NAME}.partial"
    log.unlink(missing_ok=True)
    try:
        gotool.run_go(
            go,
            ["build", "-trimpath", "-ldflags", "-s -w", "-o", str(partial), "."],
            NAME,
            log,
            say,
            BUILD_TIMEOUT_S,
            cwd=work,
            env=environment,
        )
    except gotool.GoFailed as exc:
        raise YcsbBuildError(str(exc)) from None
    partial.replace(binary)
    shutil.rmtree(work)
    return binary
