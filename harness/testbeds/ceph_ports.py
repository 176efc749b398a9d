"""The Ceph testbed's loopback ports, alone: the command line shows their defaults
without importing the testbed."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Ports:
    """Loopback ports, below Linux's ephemeral range (32768-60999): a port the kernel may
    give a client's outgoing connection is one a daemon can fail to bind."""

    mon_v2: int = 20100
    mon_v1: int = 20101
    daemons_min: int = 20200  # mgr and OSDs bind here, away from Ceph's 6789/6800-7300
    daemons_max: int = 20400

    @classmethod
    def from_mon_port(cls, port: int) -> Ports:
        return cls(port, port + 1, port + 100, port + 300)
