"""What a Rally task left in the cloud when it could not clean up itself (killed, or its
cloud failed mid-cleanup): the projects and users its users context made and what its
scenarios made in them (Heat stacks, servers, snapshots, backups, volumes, images), all
recognised by Rally's own naming (every name Rally generates carries its owner's uuid:
a workload's, which Rally's database lists for the task, or the task's own, which names
the users its validation made), removed as the cloud's admin with openstacksdk.

Heat lets nobody list every project's stacks (its policy ``stacks:global_index`` denies
admins too), so the admin takes the member role on each project the task left, which is
Rally's, and deletes that project's stacks from within it, before the users whose trusts
Heat deletes them with."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

from harness.core.store import CampaignStore
from harness.planes.cloud import connection_for

WAIT_S = 300


def owner_ids(rally_dir: Path, task_uuid: str) -> list[str]:
    """The owner uuids of a task (its workloads' and its own), from Rally's database
    (RuntimeError if it cannot), in a runner process (Rally's plugins loaded: a couple of
    seconds)."""
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "harness.planes.rally.runner",
            "--rally-dir",
            str(rally_dir),
            "--owner-ids-of",
            task_uuid,
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    if done.returncode != 0:
        tail = " / ".join(done.stderr.strip().splitlines()[-2:])
        raise RuntimeError(f"Rally's database in {rally_dir} has no task {task_uuid}: {tail}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def name_matcher(owners: list[str]) -> Callable[[str], bool]:
    """Whether a resource name is one Rally generated for one of these owners (workload
    uuids), in its scenarios' or its contexts' formats."""
    from rally.common import utils
    from rally.task import context, scenario

    def ours(name: str) -> bool:
        return bool(name) and any(
            utils.name_matches_object(name, scenario.Scenario, context.Context, task_id=owner)
            for owner in owners
        )

    return ours


def _proxies(conn: Any) -> tuple[Any, Any, Any, Any]:
    """The connection's identity, compute, image and block storage proxies, made one at a
    time (making one discovers its API version)."""
    return conn.identity, conn.compute, conn.image, conn.block_storage


def ready_to_check(conn: Any) -> None:
    """What a check needs made ahead: the connection's proxies and Rally's naming."""
    _proxies(conn)
    name_matcher([])


def _listings(conn: Any) -> dict[str, list[Any]]:
    """Every listing the check needs, sent at once (one round trip's time, not seven: the
    check ends every Rally run, and almost always finds nothing)."""
    identity, compute, image, storage = _proxies(conn)
    listers: dict[str, Callable[[], Any]] = {
        "projects": identity.projects,
        "users": identity.users,
        "snapshots": lambda: storage.snapshots(all_projects=True),
        "servers": lambda: compute.servers(all_projects=True),
        "backups": lambda: storage.backups(all_projects=True),
        "images": image.images,
        "volumes": lambda: storage.volumes(all_projects=True),
    }
    with ThreadPoolExecutor(len(listers)) as pool:
        futures = {kind: pool.submit(lambda f=f: list(f())) for kind, f in listers.items()}
        return {kind: future.result() for kind, future in futures.items()}


@dataclass(frozen=True)
class Leftovers:
    """What the check listed, and which of it a task's owners left."""

    listed: dict[str, list[Any]]
    ours: Callable[[str], bool]

    @cached_property
    def projects(self) -> list[Any]:
        return [p for p in self.listed["projects"] if self.ours(p.name)]

    @cached_property
    def project_ids(self) -> set[str]:
        return {p.id for p in self.projects}

    def left(self, resource: Any) -> bool:
        return resource.project_id in self.project_ids or self.ours(resource.name)

    def found(self) -> list[Any]:
        """Every resource the task left, of every kind listed."""
        kinds = ("snapshots", "servers", "backups", "volumes")
        return [
            *self.projects,
            *(user for user in self.listed["users"] if self.ours(user.name)),
            *(r for kind in kinds for r in self.listed[kind] if self.left(r)),
            *(i for i in self.listed["images"] if i.owner in self.project_ids or self.ours(i.name)),
        ]


def find_leftovers(conn: Any, owners: list[str]) -> Leftovers:
    """What the workloads ``owners`` left, listed (nothing removed)."""
    return Leftovers(_listings(conn), name_matcher(owners))


def remove_task_leftovers(conn: Any, owners: list[str]) -> list[str]:
    """Remove what the workloads ``owners`` left; returns one line per resource removed."""
    if not owners:
        return []
    leftovers = find_leftovers(conn, owners)
    if not leftovers.found():
        return []
    listed, ours, left = leftovers.listed, leftovers.ours, leftovers.left
    projects, project_ids = leftovers.projects, leftovers.project_ids
    removed = []
    storage = conn.block_storage
    # snapshots first: neither Heat nor Cinder deletes a volume that has some
    for snapshot in [s for s in listed["snapshots"] if left(s)]:
        storage.delete_snapshot(snapshot, force=True)
        removed.append(f"snapshot {snapshot.name or ''} ({snapshot.id})")
    _wait_gone(lambda: [s for s in storage.snapshots(all_projects=True) if left(s)], "snapshots")
    for project in projects:
        removed += _remove_stacks(conn, project)
    servers = [s for s in conn.compute.servers(all_projects=True) if left(s)]
    for server in servers:
        conn.compute.delete_server(server, force=True)
        removed.append(f"server {server.name} ({server.id})")
    _wait_gone(lambda: [s for s in conn.compute.servers(all_projects=True) if left(s)], "servers")
    for backup in [b for b in storage.backups(all_projects=True) if left(b)]:
        if backup.status not in ("available", "error"):  # a killed create or restore
            storage.reset_backup_status(backup, "error")
        storage.delete_backup(backup)  # Ceph's backup driver has no force delete
        removed.append(f"backup {backup.name or ''} ({backup.id})")
    _wait_gone(lambda: [b for b in storage.backups(all_projects=True) if left(b)], "backups")
    for image in [i for i in conn.image.images() if i.owner in project_ids or ours(i.name)]:
        conn.image.delete_image(image)
        removed.append(f"image {image.name or ''} ({image.id})")
    volumes = [v for v in storage.volumes(all_projects=True) if left(v)]
    for volume in volumes:
        if volume.status not in ("available", "error"):
            storage.reset_volume_status(
                volume, status="available", attach_status="detached", migration_status=None
            )
        storage.delete_volume(volume, force=True)
        removed.append(f"volume {volume.name or ''} ({volume.id})")
    _wait_gone(lambda: [v for v in storage.volumes(all_projects=True) if left(v)], "volumes")
    for user in [u for u in conn.identity.users() if ours(u.name)]:
        conn.identity.delete_user(user)
        removed.append(f"user {user.name}")
    for project in projects:
        conn.identity.delete_project(project)
        removed.append(f"project {project.name}")
    return removed


def inside_project(conn: Any, project: Any) -> Any:
    """The admin's connection scoped to one of the task's projects (Rally's, so ours), as
    its member: what only a project's own members may list (Heat's stacks)."""
    member = conn.identity.find_role("member", ignore_missing=False)
    conn.identity.assign_project_role_to_user(project, conn.current_user_id, member)
    return conn.connect_as_project({"id": project.id, "name": project.name})


def _remove_stacks(conn: Any, project: Any) -> list[str]:
    """Delete the stacks of one of the task's projects from within it."""
    scoped = inside_project(conn, project)
    stacks = list(scoped.orchestration.stacks())
    for stack in stacks:
        scoped.orchestration.delete_stack(stack)

    def pending() -> list[Any]:
        listed = list(scoped.orchestration.stacks())
        failed = [s for s in listed if s.status == "DELETE_FAILED"]
        if failed:
            raise RuntimeError(
                f"Heat could not delete stack {failed[0].name}: {failed[0].status_reason}"
            )
        return listed

    _wait_gone(pending, "stacks")
    return [f"stack {stack.name} ({stack.id})" for stack in stacks]


def _wait_gone(listing: Callable[[], list[Any]], what: str) -> None:
    deadline = time.monotonic() + WAIT_S
    while listing():
        if time.monotonic() > deadline:
            raise TimeoutError(f"{what} of the task still there after {WAIT_S} s")
        time.sleep(1)


def remove_noted(store: CampaignStore, notes: dict[str, dict]) -> list[str]:
    """`volperf cleanup`: what each Rally task a campaign noted left in its cloud."""
    removed: list[str] = []
    for key, note in sorted(notes.items()):
        try:
            owners = note.get("owners")
            if owners is None:  # its runner died before it wrote them
                owners = owner_ids(Path(note["rally_dir"]), note["uuid"])
            conn = connection_for(note)
            removed += [
                f"{line} (Rally task {note['uuid']})"
                for line in remove_task_leftovers(conn, owners)
            ]
        except Exception as exc:
            removed.append(
                f"NOT removed: what Rally task {note['uuid']} left in cloud "
                f"{note['cloud']} ({type(exc).__name__}: {exc}); run `volperf "
                "cleanup` again"
            )
            continue
        store.forget_created(key)
    return removed
