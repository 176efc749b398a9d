"""Backends the suite brings up itself, once per session, and takes down at the end."""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from harness.ceph import images
from harness.ceph.access import CephAccess
from harness.process import command_line
from tests.harness.helpers import volperf

CEPH_TEST_MON_PORT = 40500  # off the default 40100, so a developer's own testbed can run


@dataclass(frozen=True)
class CephTestbedInfo:
    state: Path
    conf: Path
    up_seconds: float

    def access(self, user: str = "cinder") -> CephAccess:
        return CephAccess(self.conf, user, "volumes")


def ceph_daemons(conf: Path) -> list[str]:
    """Command lines of running processes that use this testbed's ceph.conf."""
    lines = (command_line(int(p.name)) for p in Path("/proc").iterdir() if p.name.isdigit())
    return [line for line in lines if str(conf) in line and line.startswith("ceph-")]


@pytest.fixture(scope="session")
def ceph_testbed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[CephTestbedInfo]:
    """A real single-node Ceph from nothing (`volperf testbed up ceph`), purged at the end;
    the end checks that no image, daemon or file of it is left."""
    work = tmp_path_factory.mktemp("ceph-testbed")
    state = work / "state"
    started = time.monotonic()
    up = volperf("testbed", "up", "ceph", "--state", str(state),
                 "--mon-port", str(CEPH_TEST_MON_PORT), cwd=work)  # fmt: skip
    assert up.returncode == 0, up.stderr
    info = CephTestbedInfo(state, state / "ceph.conf", time.monotonic() - started)
    yield info
    with info.access().pool_io() as ioctx:
        left = images.existing(ioctx)
    down = volperf("testbed", "down", "ceph", "--state", str(state), "--purge", cwd=work)
    assert down.returncode == 0, down.stderr
    assert not left, f"RBD images left behind: {left}"
    assert not ceph_daemons(info.conf)
    assert not state.exists()
