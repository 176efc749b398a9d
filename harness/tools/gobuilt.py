"""volperf's Go programs (the YCSB client, NATS's server and bench client): each built
from its folder of pinned sources (go.mod and go.sum name every module's version, the Go
module proxy serves them) once per machine into ~/.cache/volperf/<name>/bin-<key>, the key
a digest of those files and the Go version. Static binaries (no cgo): the applications'
image takes them as they are."""

from __future__ import annotations

import hashlib
import os
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from harness.host import gotool
from harness.host.buildlock import build_lock

BUILD_TIMEOUT_S = 900


class GoProgramError(RuntimeError):
    """A program could not be built: the message says why and where the log is."""


@dataclass(frozen=True)
class GoProgram:
    name: str  # its cache folder
    source: Path  # go.mod, go.sum and its Go files
    files: tuple[str, ...]
    packages: tuple[str, ...]  # what `go build` builds: one binary each
    binaries: tuple[str, ...]  # their names
    what: str  # for messages: what it is and which versions
    purpose: str  # for GoMissing: what needs it
    toolchain: str = "local"  # GOTOOLCHAIN: "auto" lets go fetch the go.mod's own Go


def cache(program: GoProgram) -> Path:
    return gotool.cache_base() / program.name


def _key(program: GoProgram, go: str) -> str:
    digest = hashlib.sha256(gotool.version_of(go).encode())
    for name in program.files:
        digest.update((program.source / name).read_bytes())
    return digest.hexdigest()[:12]


def ensure(program: GoProgram, say: Callable[[str], None]) -> Path:
    """The folder of the program's binaries, built first if missing."""
    try:
        go = gotool.go_binary(program.purpose)
    except gotool.GoMissing as exc:
        raise GoProgramError(str(exc)) from None
    folder = cache(program) / f"bin-{_key(program, go)}"

    def built() -> bool:
        return all((folder / name).exists() for name in program.binaries)

    if not built():
        with build_lock(folder, say):
            if not built():  # or another process built it while this one waited
                _build(program, go, folder, say)
    return folder


def _build(program: GoProgram, go: str, folder: Path, say: Callable[[str], None]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    work = folder / "source"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir()
    for name in program.files:
        shutil.copyfile(program.source / name, work / name)
    log = folder / "build.log"
    say(f"building {program.what} into {folder}: once per machine")
    environment = {
        **os.environ,
        "GOMODCACHE": str(cache(program) / "gomodcache"),
        "GOFLAGS": "-mod=readonly",
        "CGO_ENABLED": "0",
        "GOTOOLCHAIN": program.toolchain,
    }
    partial = folder / "partial"
    shutil.rmtree(partial, ignore_errors=True)
    partial.mkdir()
    log.unlink(missing_ok=True)
    try:
        gotool.run_go(
            go,
            ["build", "-trimpath", "-ldflags", "-s -w", "-o", f"{partial}/", *program.packages],
            program.binaries[0],
            log,
            say,
            BUILD_TIMEOUT_S,
            cwd=work,
            env=environment,
        )
    except gotool.GoFailed as exc:
        raise GoProgramError(str(exc)) from None
    for name in program.binaries:
        (partial / name).replace(folder / name)
    partial.rmdir()
    shutil.rmtree(work)
