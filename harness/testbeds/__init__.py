"""Real backends on one machine (`volperf testbed up ceph|openstack|k8s`), each kept in a
state directory of its own; see ../shared/testbeds notes for the facts they rest on."""

from __future__ import annotations

import os
from pathlib import Path


class TestbedError(RuntimeError):
    """A testbed cannot be brought up, used or taken down (the message says why)."""

    __test__ = False  # not a pytest test class


def default_state_dir(name: str) -> Path:
    """$VOLPERF_STATE/<name>, else $XDG_STATE_HOME/volperf/testbeds/<name>."""
    root = os.environ.get("VOLPERF_STATE")
    if root:
        return Path(root) / name
    return state_root() / "testbeds" / name


def state_root() -> Path:
    """$VOLPERF_STATE, else $XDG_STATE_HOME/volperf (~/.local/state/volperf)."""
    if os.environ.get("VOLPERF_STATE"):
        return Path(os.environ["VOLPERF_STATE"])
    xdg = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(xdg) / "volperf"
