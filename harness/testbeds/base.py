"""What every testbed is: built once per machine, brought up from its state directory,
taken down (purged on request), its state told; the command line and the suite use the
three through this, whatever backend each runs."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

Progress = Callable[[str], None]  # a line of progress for the user


@dataclass(frozen=True)
class TestbedOptions:
    """What `volperf testbed up` may be told; each testbed reads the options it has."""

    __test__ = False  # not a pytest test class

    osds: int | None = None  # ceph
    mon_port: int | None = None  # ceph
    cephfs: bool = False  # ceph
    ceph_state: Path | None = None  # openstack, k8s
    base_port: int | None = None  # openstack, k8s
    static_pvs: int | None = None  # k8s
    nodes: int | None = None  # k8s
    guests: str | None = None  # openstack: stand-in or real


class Testbed(ABC):
    marker: Path  # the file that marks its state directory as this testbed's
    state: Path

    @classmethod
    @abstractmethod
    def from_options(cls, state: Path, options: TestbedOptions) -> Testbed:
        """The testbed in ``state``, with the options it has."""

    @staticmethod
    @abstractmethod
    def build(say: Progress) -> None:
        """Build (or fetch) what the testbed runs, once per machine, into the cache."""

    @abstractmethod
    def up(self, say: Progress, timeout_s: float) -> object:
        """Start what is not running and wait until it is ready, each wait at most
        ``timeout_s``; on failure, stop what this call started."""

    @abstractmethod
    def down(self, purge: bool, say: Progress) -> list[str]:
        """Stop every daemon of the testbed (and, with ``purge``, remove its state
        directory); the names of the daemons stopped."""

    @abstractmethod
    def status(self) -> dict[str, Any]:
        """The testbed's state, daemons and readiness as JSON-ready data."""

    @abstractmethod
    def usage(self) -> list[str]:
        """How to use it once up: lines to print (commands never broken)."""
