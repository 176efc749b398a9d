"""The Go toolchain volperf builds its Go programs with (the Kubernetes testbed, the YCSB
client): $VOLPERF_GO, else `go` on PATH if new enough, else the toolchain
tools/go-toolchain.sh unpacked under ~/.cache/volperf/go."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

from harness.host.process import BuildTimeout, log_tail, run_build

MIN_GO_MINOR = 23  # Kubernetes 1.32 is built with Go 1.23; go-ycsb needs no newer


class GoMissing(RuntimeError):
    """No Go toolchain new enough: the message says what was found and where to get one."""


class GoFailed(RuntimeError):
    """A go command failed or ran out of time: the message quotes its log's end."""


def cache_base() -> Path:
    """~/.cache/volperf (or $XDG_CACHE_HOME/volperf): volperf's builds, kept per machine."""
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "volperf"


def go_minor(version: str) -> int:
    match = re.match(r"go1\.(\d+)", version)
    return int(match.group(1)) if match else -1


def version_of(go: str) -> str:
    """What `go env GOVERSION` says, or '' when it does not run."""
    try:
        done = subprocess.run(
            [go, "env", "GOVERSION"],
            capture_output=True,
            text=True,
            timeout=60,
            check=True,
            env={**os.environ, "GOTOOLCHAIN": "local"},
        )
    except (OSError, subprocess.SubprocessError):
        return ""
    return done.stdout.strip()


def go_binary(purpose: str) -> str:
    """A Go >= 1.MIN_GO_MINOR; GoMissing naming what was found otherwise."""
    seen = []
    candidates = [os.environ.get("VOLPERF_GO"), shutil.which("go")]
    cached = cache_base() / "go"
    candidates += sorted(
        (
            str(p)
            for p in cached.glob("*/tree/usr/lib/go-*/bin/go")
            if (p.parents[5] / "complete").exists()
        ),
        reverse=True,
    )
    for candidate in filter(None, candidates):
        version = version_of(candidate)
        if version and go_minor(version) >= MIN_GO_MINOR:
            return candidate
        seen.append(f"{candidate} ({version or 'does not run'})")
    found = f"found only {', '.join(seen)}" if seen else "no `go` on PATH"
    raise GoMissing(
        f"{purpose} is built with Go 1.{MIN_GO_MINOR} or newer: {found}; "
        f"tools/go-toolchain.sh fetches one into {cached} (tools/test.sh runs it), "
        "or set VOLPERF_GO"
    )


def run_go(
    go: str,
    args: list[str],
    what: str,
    log: Path,
    say: Callable[[str], None],
    timeout_s: float,
    **popen: object,
) -> None:
    """``go ARGS`` to its end, its output appended to ``log``; GoFailed quoting the log's
    end when it fails. Keyword arguments go to Popen (cwd, env)."""
    with log.open("a") as out:
        out.write(f"\n$ go {' '.join(args)}\n")
        out.flush()
        try:
            done = run_build(
                [go, *args],
                f"building {what}",
                say,
                timeout_s,
                stdout=out,
                stderr=subprocess.STDOUT,
                **popen,
            )
        except BuildTimeout as exc:
            raise GoFailed(f"{exc}; log in {log}") from None
    if done.returncode != 0:
        raise GoFailed(
            f"building {what} failed (go exited {done.returncode}): "
            f"{log_tail(log)}; whole log in {log}"
        )
