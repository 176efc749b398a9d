"""kube-burner, the tool users run today for PVC and pod latency at scale, built from the
Go module proxy at a pinned version and driven with a job of the same shape as a volperf
`pvc-provision` step, for the side-by-side runs of test_k8s_namespaces.py.

Its go.mod has replace directives, so `go install module@version` refuses it: the module
is downloaded (`go mod download -json`), copied out of the read-only module cache and
built there as its own main module (`go build ./cmd/kube-burner`). It needs Go 1.25 or
newer. Built once per machine into ~/.cache/volperf/kube-burner/<version>-<go version>/
(a few minutes on 2 cores), the module cache shared with the Kubernetes testbed's build.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

from harness.host.gotool import go_minor
from harness.testbeds.k8s.build import cache_root, go_binary, go_environment

MODULE = "github.com/kube-burner/kube-burner/v2"
VERSION = "v2.7.3"
MIN_GO_MINOR = 25
BUILD_TIMEOUT_S = 1800

Say = Callable[[str], None]


def _go(go: str, args: list[str], cwd: Path, timeout: float = BUILD_TIMEOUT_S) -> str:
    done = subprocess.run(
        [go, *args],
        cwd=cwd,
        env={**go_environment(), "GOFLAGS": "-mod=mod"},
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(f"go {' '.join(args)} failed: {done.stderr.strip()[-2000:]}")
    return done.stdout


def ensure_kube_burner(say: Say = print) -> Path:
    """The kube-burner binary, built first if this machine has none of this version."""
    go = go_binary()
    version = _go(go, ["env", "GOVERSION"], Path.cwd()).strip()
    if go_minor(version) < MIN_GO_MINOR:
        raise RuntimeError(
            f"kube-burner {VERSION} needs Go 1.{MIN_GO_MINOR} or newer: {go} is {version}"
        )
    folder = cache_root().parent / "kube-burner" / f"{VERSION}-{version}"
    binary = folder / "kube-burner"
    if (folder / "complete").exists():
        return binary
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    say(f"building kube-burner {VERSION} with {version} into {folder} (once per machine)")
    started = time.monotonic()
    where = json.loads(_go(go, ["mod", "download", "-json", f"{MODULE}@{VERSION}"], folder))
    source = folder / "source"
    shutil.copytree(where["Dir"], source)
    for path in [source, *source.rglob("*")]:
        path.chmod(path.stat().st_mode | 0o200)  # the module cache is read-only
    flags = f"-s -w -X github.com/cloud-bulldozer/go-commons/v2/version.Version={VERSION}"
    _go(
        go,
        ["build", "-trimpath", "-ldflags", flags, "-o", str(binary), "./cmd/kube-burner"],
        source,
    )
    shutil.rmtree(source)
    (folder / "complete").write_text(f"{time.strftime('%Y-%m-%dT%H:%M:%S%z')}\n")
    say(f"kube-burner built in {time.monotonic() - started:.0f} s")
    return binary
