"""The OpenStack services' own virtualenv: pinned versions from PyPI (the trial bring-up's
`pip freeze`, services-constraints.txt), kept in volperf's cache and shared by every
testbed state dir, because building it (uWSGI compiles from its sdist) is most of a cold
bring-up. A venv is only used once its `complete` marker is written; a half-built one is
built again.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from harness.core.resources import package_path
from harness.host.buildlock import build_lock
from harness.host.process import BuildTimeout, log_tail, run_build
from harness.testbeds import TestbedError

CONSTRAINTS = package_path("harness.testbeds.openstack", "services-constraints.txt")
PACKAGES = (
    "keystone",
    "glance",
    "openstack-placement",
    "nova",
    "cinder",
    "openstack-heat",
    "neutron",
    "python-openstackclient",
    "python-heatclient",
    "uWSGI",
    "PyMySQL",
    "python-memcached",
)
PIP_TIMEOUT_S = 1800


def cache_root() -> Path:
    xdg = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(xdg) / "volperf"


def venv_dir(root: Path | None = None) -> Path:
    """Where the venv for these pins and this Python lives (its name is their hash)."""
    digest = hashlib.sha256()
    digest.update(CONSTRAINTS.read_bytes())
    digest.update(" ".join(PACKAGES).encode())
    digest.update(sys.version.encode())
    return (root or cache_root()) / f"openstack-venv-{digest.hexdigest()[:12]}"


def ensure_venv(say: Callable[[str], None], root: Path | None = None) -> Path:
    """The built venv, building it first if needed (minutes); returns its directory."""
    venv = venv_dir(root)
    marker = venv / "complete"
    if not marker.exists():
        with build_lock(venv, say):
            if not marker.exists():  # or built while this one waited
                _build_venv(venv, say)
    return venv


def _build_venv(venv: Path, say: Callable[[str], None]) -> None:
    marker = venv / "complete"
    if venv.exists():
        shutil.rmtree(venv)
    say(f"building the OpenStack services' virtualenv in {venv} (pinned, a few minutes)")
    venv.parent.mkdir(parents=True, exist_ok=True)
    _run([sys.executable, "-m", "venv", str(venv)], "python -m venv", say)
    log = venv.parent / f"{venv.name}.pip.log"
    _run(
        [
            str(venv / "bin" / "pip"),
            "install",
            "--disable-pip-version-check",
            "-c",
            str(CONSTRAINTS),
            *PACKAGES,
        ],
        f"pip install of the OpenStack services (log {log})",
        say,
        log,
    )
    marker.write_text(" ".join(PACKAGES) + "\n")


def _run(
    command: list[str], what: str, say: Callable[[str], None], log: Path | None = None
) -> None:
    with open(log or os.devnull, "w") as out:
        try:
            result = run_build(
                command, what, say, PIP_TIMEOUT_S, stdout=out, stderr=subprocess.STDOUT
            )
        except BuildTimeout as exc:
            raise TestbedError(str(exc)) from None
    if result.returncode != 0:
        said = log_tail(log, 5) if log else ""
        raise TestbedError(f"{what} failed (exit {result.returncode}): {said}")
