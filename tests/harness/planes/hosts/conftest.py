"""Real `fio --server`s on loopback addresses of this machine, as the hosts of a fleet."""

from __future__ import annotations

import socket
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

ADDRESSES = ("127.0.0.2", "127.0.0.3", "127.0.0.4")
SILENT = "127.0.0.5"  # no server listens there


@dataclass(frozen=True)
class Server:
    address: str
    port: int
    dir: Path  # where volperf may make its files on that "host"

    def host(self) -> dict[str, object]:
        return {"address": self.address, "port": self.port, "dir": str(self.dir)}


def free_port(address: str) -> int:
    with socket.socket() as probe:
        probe.bind((address, 0))
        return probe.getsockname()[1]


def _listening(address: str, port: int, seconds: float = 10) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        with socket.socket() as probe:
            if probe.connect_ex((address, port)) == 0:
                return
        time.sleep(0.05)
    raise RuntimeError(f"fio --server on {address}:{port} did not listen within {seconds} s")


@pytest.fixture(scope="session")
def fio_servers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[list[Server]]:
    root = tmp_path_factory.mktemp("fleet")
    servers, processes = [], []
    try:
        for address in ADDRESSES:
            port = free_port(address)
            (root / address).mkdir()
            log = (root / f"{address}.log").open("wb")
            processes.append(
                subprocess.Popen(["fio", f"--server=ip:{address},{port}"], stdout=log, stderr=log)
            )
            _listening(address, port)
            servers.append(Server(address, port, root / address))
        yield servers
    finally:
        for process in processes:
            process.terminate()
            process.wait(timeout=30)


@pytest.fixture
def silent_host(tmp_path: Path) -> Server:
    """A host whose fio server does not answer: nothing listens at its address."""
    return Server(SILENT, free_port(SILENT), tmp_path)
