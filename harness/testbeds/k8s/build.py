"""The Kubernetes testbed's programs, built from the Go module proxy at pinned versions
(kbuild/go.mod: k8s.io/kubernetes v1.32.4, its staging modules at v0.32.4; the proxy here
is a partial mirror on which later patch releases miss modules, and its checksum database
does not answer for k8s.io or rancher: GONOSUMDB) and cached under
~/.cache/volperf/k8s/bin-<key>, the key a digest of the pins and the Go version.

Built once per machine: about 8 minutes on 2 idle cores (kube-apiserver alone 4.5), some
20 s with Go's build cache warm; the module cache is kept beside the binaries.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import time
from collections.abc import Callable
from pathlib import Path

from harness.core.resources import package_path
from harness.host import gotool
from harness.host.buildlock import build_lock
from harness.testbeds import TestbedError

KBUILD = package_path("harness.testbeds.k8s", "kbuild")
KUBE_COMMANDS = ("kube-apiserver", "kube-controller-manager", "kube-scheduler", "kubelet")
LPP_MODULE = "github.com/rancher/local-path-provisioner"
LPP_VERSION = "v0.0.30"  # the only version the proxy here has
PROGRAMS = (*KUBE_COMMANDS, "local-path-provisioner")
BUILD_TIMEOUT_S = 3600  # per go command
KUBE_VERSION = "v1.32.4"
FLAGS = ["-trimpath", "-ldflags", "-s -w"]
# the version the binaries report (`kubectl get nodes`), as Kubernetes' own build sets it
_VERSION = "k8s.io/component-base/version"
KUBE_FLAGS = [
    "-trimpath",
    "-ldflags",
    f"-s -w -X {_VERSION}.gitVersion={KUBE_VERSION} "
    f"-X {_VERSION}.gitMajor=1 -X {_VERSION}.gitMinor=32 "
    f"-X {_VERSION}.gitTreeState=clean",
]

Say = Callable[[str], None]


def cache_root() -> Path:
    return gotool.cache_base() / "k8s"


def go_binary() -> str:
    """A Go >= 1.23 (harness/host/gotool.py); TestbedError naming what is missing otherwise."""
    try:
        return gotool.go_binary("the Kubernetes testbed")
    except gotool.GoMissing as exc:
        raise TestbedError(str(exc)) from None


def go_version() -> str:
    return gotool.version_of(go_binary())


def binaries_key() -> str:
    digest = hashlib.sha256((KBUILD / "go.mod").read_bytes())
    digest.update(f"{LPP_MODULE}@{LPP_VERSION} {go_version()} {KUBE_FLAGS}".encode())
    return digest.hexdigest()[:12]


def go_environment() -> dict[str, str]:
    return {
        **os.environ,
        "GOMODCACHE": str(cache_root() / "gomodcache"),
        "GONOSUMDB": "k8s.io,github.com/rancher",
        "GOFLAGS": "-mod=mod",
        "CGO_ENABLED": "0",
        "GOTOOLCHAIN": "local",
    }


def _go(args: list[str], cwd: Path, log: Path, what: str, say: Say) -> None:
    try:
        gotool.run_go(
            go_binary(), args, what, log, say, BUILD_TIMEOUT_S, cwd=cwd, env=go_environment()
        )
    except gotool.GoFailed as exc:
        raise TestbedError(str(exc)) from None


def ensure_binaries(say: Say) -> Path:
    """The directory holding the five programs, built first if missing."""
    folder = cache_root() / f"bin-{binaries_key()}"
    if not (folder / "complete").exists():
        with build_lock(folder, say):
            if not (folder / "complete").exists():  # or built while this one waited
                _build_binaries(folder, say)
    return folder


def _build_binaries(folder: Path, say: Say) -> None:
    shutil.rmtree(folder, ignore_errors=True)
    work = folder / "build"
    work.mkdir(parents=True)
    shutil.copy(KBUILD / "go.mod", work / "go.mod")
    log = folder / "build.log"
    say(
        f"building Kubernetes v1.32.4 and local-path-provisioner {LPP_VERSION} from the Go "
        f"module proxy into {folder} (once per machine: about 8 minutes on 2 cores)"
    )
    for name in KUBE_COMMANDS:
        started = time.monotonic()
        _go(
            ["build", *KUBE_FLAGS, "-o", str(folder / name), f"k8s.io/kubernetes/cmd/{name}"],
            work,
            log,
            name,
            say,
        )
        say(f"  {name} built in {time.monotonic() - started:.0f} s")
    started = time.monotonic()
    _go(
        ["mod", "download", f"{LPP_MODULE}@{LPP_VERSION}"], work, log, "local-path-provisioner", say
    )
    # built as its own main module, so that its go.mod (and its replaces) count
    source = cache_root() / "gomodcache" / f"{LPP_MODULE}@{LPP_VERSION}"
    lpp = folder / "lpp-source"
    shutil.copytree(source, lpp)
    for path in [lpp, *lpp.rglob("*")]:
        path.chmod(path.stat().st_mode | 0o200)  # the module cache is read-only
    _go(
        ["build", *FLAGS, "-o", str(folder / "local-path-provisioner"), "."],
        lpp,
        log,
        "local-path-provisioner",
        say,
    )
    say(f"  local-path-provisioner built in {time.monotonic() - started:.0f} s")
    shutil.rmtree(work)
    shutil.rmtree(lpp)
    (folder / "complete").write_text(f"{time.strftime('%Y-%m-%dT%H:%M:%S%z')}\n")
