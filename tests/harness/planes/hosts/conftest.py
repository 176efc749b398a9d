"""Real `fio --server`s on loopback addresses of this machine, as the hosts of a fleet."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.harness.helpers import FioServer, fio_servers, free_port

ADDRESSES = ("127.0.0.2", "127.0.0.3", "127.0.0.4")
SILENT = "127.0.0.5"  # no server listens there


@pytest.fixture(scope="session")
def fleet(tmp_path_factory: pytest.TempPathFactory) -> Iterator[list[FioServer]]:
    with fio_servers(ADDRESSES, tmp_path_factory.mktemp("fleet")) as servers:
        yield servers


@pytest.fixture
def silent_host(tmp_path: Path) -> FioServer:
    """A host whose fio server does not answer: nothing listens at its address."""
    return FioServer(SILENT, free_port(SILENT), tmp_path)
