"""Deleting volperf's stacks: at the end of every step, and by `volperf cleanup` after a
crash (found by name from created.json, and by the campaign's tag)."""

from __future__ import annotations

import contextlib
import time
from typing import Any

from harness.core.store import CampaignStore
from harness.planes.cloud import connection_for
from harness.planes.heat import api

POLL_S = 2.0
DELETE_WAIT_S = 600


def delete_and_wait(conn: Any, paths: list[str], timeout_s: float) -> tuple[list[str], list[str]]:
    """Delete the stacks at once (Heat removes their servers, attachments and volumes) and
    wait; returns (paths deleted, lines saying what was not)."""
    left: dict[str, str] = {}
    for path in paths:
        try:
            api.delete(conn, path)
        except Exception as exc:
            left[path] = str(exc)
    deadline = time.monotonic() + timeout_s
    pending = [p for p in paths if p not in left]
    gone = []
    while pending:
        for path in list(pending):
            with contextlib.suppress(Exception):  # a blip of the API: ask again
                status = api.status_or_gone(conn, path)
                if status == "DELETE_COMPLETE":
                    gone.append(path)
                elif status == "DELETE_FAILED":
                    left[path] = f"DELETE_FAILED: {api.show(conn, path)['stack_status_reason']}"
                if status in ("DELETE_COMPLETE", "DELETE_FAILED"):
                    pending.remove(path)
        if pending and time.monotonic() > deadline:
            left.update({p: f"still deleting after {timeout_s:.0f} s" for p in pending})
            break
        if pending:
            time.sleep(POLL_S)
    return gone, [f"stack {path.split('/')[1]}: {why}" for path, why in left.items()]


def find(conn: Any, names: list[str], tags: list[str]) -> list[str]:
    """API paths of the stacks with these names or carrying these tags."""
    found = {}
    for name in names:
        for stack in api.listed(conn, f"stacks?name={name}"):
            found[stack["id"]] = api.ref(stack)
    for tag in tags:
        for stack in api.tagged(conn, tag):
            found[stack["id"]] = api.ref(stack)
    return sorted(found.values())


def remove_noted(store: CampaignStore, notes: dict[str, dict]) -> list[str]:
    """`volperf cleanup`: the stacks a campaign noted (by name, and by its tag)."""
    removed: list[str] = []
    for cloud in sorted({(n["cloud"], n["clouds_yaml"]) for n in notes.values()}):
        here = {k: n for k, n in notes.items() if (n["cloud"], n["clouds_yaml"]) == cloud}
        names = [n["name"] for n in here.values() if n["kind"] == "heat-stack"]
        tags = [n["tag"] for n in here.values() if n["kind"] == "heat-tag"]
        try:
            conn = connection_for(next(iter(here.values())))
            gone, left = delete_and_wait(conn, find(conn, names, tags), DELETE_WAIT_S)
        except Exception as exc:
            why = f"{type(exc).__name__}: {exc}"
            removed.append(
                f"NOT removed: the Heat stacks of cloud {cloud[0]} ({why}); run "
                "`volperf cleanup` again"
            )
            continue
        removed += [f"stack {path.split('/')[1]} (cloud {cloud[0]})" for path in gone]
        removed += [f"NOT removed: {line}; run `volperf cleanup` again" for line in left]
        if not left:
            for key in here:
                store.forget_created(key)
    return removed
