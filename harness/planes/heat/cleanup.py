"""Deleting volperf's stacks: at the end of every step, and by `volperf cleanup` after a
crash (found by name from created.json, and by the campaign's tag)."""

from __future__ import annotations

import contextlib
import time
from collections import defaultdict
from typing import Any

from harness.core.store import CampaignStore
from harness.planes.cloud import connection_for
from harness.planes.heat import api

POLL_S = 2.0
SERVER = "OS::Nova::Server"
WAIT = "OS::Heat::WaitCondition"
DELETE_WAIT_S = 600


def silent_servers(resources: list[dict[str, Any]]) -> list[str]:
    """The servers, among a stack's resources (two deep), of the VMs whose agent never
    signalled Heat (their wait condition not CREATE_COMPLETE): booting, hung or panicked
    guests."""
    members: dict[str, dict[str, dict[str, Any]]] = defaultdict(dict)
    for resource in resources:
        stacks = [link["href"] for link in resource.get("links", []) if link["rel"] == "stack"]
        if stacks:
            members[stacks[0]][resource.get("resource_type", "")] = resource
    return [
        vm[SERVER]["physical_resource_id"]
        for vm in members.values()
        if vm.get(SERVER, {}).get("physical_resource_id")
        and vm.get(WAIT, {}).get("resource_status") != "CREATE_COMPLETE"
    ]


def delete_silent_servers(conn: Any, path: str) -> None:
    """Deletes the stack's servers whose guest never answered, before the stack: Heat
    detaches a volume before it deletes its server, and a guest that does not answer
    the unplug (a panicked kernel, a guest still booting) holds the stack in
    DELETE_IN_PROGRESS until Heat's timeout; Nova deletes such a server at once and
    releases its volume, and Heat then finds the attachment and the server gone.
    Best effort: Heat deletes them anyway."""
    with contextlib.suppress(Exception):
        for server in silent_servers(api.resources(conn, path, nested_depth=2)):
            conn.compute.delete_server(server, ignore_missing=True)


def delete_and_wait(conn: Any, paths: list[str], timeout_s: float) -> tuple[list[str], list[str]]:
    """Delete the stacks at once (Heat removes their servers, attachments and volumes;
    the servers of guests that never answered go first) and wait; returns (paths
    deleted, lines saying what was not)."""
    left: dict[str, str] = {}
    for path in paths:
        delete_silent_servers(conn, path)
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
