"""Snapshot of the machine, the storage under test and the code measuring it (volperf's
commit and a hash of its planes, records and host code), stored in campaign.yaml."""

from __future__ import annotations

import platform
import socket
from pathlib import Path
from typing import Any

from harness import __version__
from harness.core.code_stamp import current_stamp
from harness.core.redact import redact
from harness.host.machine import cpu, memory_kib, os_release, storage
from harness.tools.fio.run import fio_version


def snapshot(target_path: Path | None, fio: str = "fio") -> dict[str, Any]:
    uname = platform.uname()
    environment: dict[str, Any] = {
        "host": socket.gethostname(),
        "os": os_release(),
        "kernel": f"{uname.system} {uname.release} {uname.machine}",
        "cpu": cpu(),
        "memory_kib": memory_kib(),
        "tools": {
            "volperf": __version__,
            "python": platform.python_version(),
            "fio": fio_version(fio),
        },
    }
    code = current_stamp()
    environment["volperf_code"] = {
        "commit": code.commit or "(not a git checkout)",
        "uncommitted_files": code.uncommitted,
        "hash": code.code_hash,
    }
    if target_path is not None:
        environment["storage"] = storage(target_path)
    return redact(environment)
