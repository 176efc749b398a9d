"""`volperf cleanup` of a hosts campaign: the consumers' files volperf made on each host,
removed through the host's fio server (a job that reads one block of the file and
unlinks it: fio's `unlink`), since volperf has no other way into the hosts. A file that
was there before stays; a host that does not answer keeps its note, to try again."""

from __future__ import annotations

import tempfile
import threading
from pathlib import Path
from typing import Any

from harness.core.plan import ConsumerPlan
from harness.core.spec import FioHost
from harness.core.store import CampaignStore
from harness.planes.hosts.fleet import KIND, Placed, by_host, existing_files, server


def is_ours(kind: str) -> bool:
    return kind == KIND


def remove_noted(store: CampaignStore, notes: dict[str, dict[str, Any]]) -> list[str]:
    fio = _fio(store)
    placed, removed = [], []
    for key, details in notes.items():
        if not details.get("ours"):
            store.forget_created(key)
            continue
        filename = details["filename"]
        address, port = details["server"].rsplit(",", 1)
        host = FioHost(address=address, port=int(port), dir=str(Path(filename).parent))
        placed.append(Placed(ConsumerPlan(Path(filename).stem, "", ""), host, filename, 0))
    if not placed:
        return removed
    with tempfile.TemporaryDirectory(prefix="volperf-hosts-") as scratch:
        gone, missing = existing_files(
            by_host(placed), Path(scratch), threading.Event(), fio, unlink=True
        )
    for p in placed:
        if server(p.host) in missing:
            continue  # kept in created.json: `volperf cleanup` tries again
        if p.key in gone:
            removed.append(f"{p.filename} on {server(p.host)}")
        store.forget_created(p.key)
    return removed


def _fio(store: CampaignStore) -> str:
    try:
        return str(store.read_campaign()["spec"].get("fio") or "fio")
    except (OSError, KeyError, ValueError):
        return "fio"
