"""What a stopped Cinder service lost: the RBD images of volumes it had in hand.

A stop catches a create in cinder-volume's hands now and then (librbd adds the image to
the pool's directory first and writes its header after): the restarted service sets the
volume to error, Cinder's delete of it finds no image it can open, says "no longer exists
in backend" and forgets the volume, and the half-made image stays in the pool, listed by
`rbd ls`, removed by nothing. So after each stop of a Cinder service (a volume it held
keeps its status until it starts again), volperf lists the volumes of its own Rally
projects that the service may have held (IN_HAND), or whose create or delete failed, and
notes their ids in created.json (kind NOTE_KIND, with the pools of the testbed's Cinder
backends); at the step's end and in `volperf cleanup`, for each noted volume Cinder no
longer knows, the image Cinder would have named after it (``volume-<id>``) is removed
from those pools, and the step's raw/faults.json, its warnings and Rally's report say so.
An image of any other name, or of a volume Cinder still knows, is never touched."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.core.store import CampaignStore
from harness.records.aggregate import Warning

NOTE_KIND = "cinder-volumes-in-hand"
# the statuses in which cinder-volume's driver may be making or removing a volume's image
IN_HAND = frozenset({"creating", "downloading", "deleting", "retyping", "restoring-backup"})
# the statuses of a volume Cinder keeps whose image may be half-made: its delete, later,
# is what leaves the image behind (so its note is kept until Cinder forgets it)
MAY_BE_HALF_MADE = frozenset({*IN_HAND, "error", "error_deleting", "error_restoring"})
IMAGE_NAME = "volume-{id}"  # Cinder's volume_name_template, which the testbed keeps
LEFT_FIELD = "images_left"  # raw/faults.json: what the step's stops left in the pools
WARNING_CODE = "cinder-image-left"


@dataclass(frozen=True)
class CinderPools:
    """Where the Cinder backends keep their volumes' images, and as which Ceph user."""

    conf: Path
    user: str
    pools: tuple[str, ...]

    def note(self) -> dict[str, Any]:
        return {"conf": str(self.conf), "user": self.user, "pools": list(self.pools)}

    @classmethod
    def of_note(cls, note: dict[str, Any]) -> CinderPools:
        return cls(Path(note["conf"]), note["user"], tuple(note["pools"]))

    def remove_command(self, pool: str, image: str) -> str:
        return f"rbd --conf {self.conf} --id {self.user} rm {pool}/{image}"


def at_risk(conn: Any, ours: Callable[[str], bool]) -> dict[str, dict[str, Any]]:
    """The volumes of our projects (a project or volume name Rally generated for one of
    our owners) in a status in which the volume service may hold them, or after a create
    or delete that failed (a create cut short fails so, and leaves its image half-made), by
    id."""
    projects = {p.id for p in conn.identity.projects() if ours(p.name)}
    return {
        volume.id: {"name": volume.name or "", "status": volume.status, "seen_t": time.time()}
        for volume in conn.block_storage.volumes(all_projects=True)
        if volume.status in MAY_BE_HALF_MADE
        and (volume.project_id in projects or ours(volume.name or ""))
    }


def note_in_hand(
    store: CampaignStore,
    key: str,
    testbed: Path,
    service: str,
    pools: CinderPools,
    volumes: dict[str, dict[str, Any]],
) -> None:
    """Add ``volumes`` (the stop of ``service`` of the OpenStack testbed in ``testbed``
    caught them in hand) to the note ``key``."""
    if not volumes:
        return
    noted = store.created().get(key, {}).get("volumes", {})
    for info in volumes.values():
        info["service"] = service
    store.record_created(
        key,
        kind=NOTE_KIND,
        testbed=str(testbed),
        **pools.note(),
        volumes={**volumes, **noted},  # the first sighting's status is the one kept
    )


@dataclass(frozen=True)
class Found:
    """What became of one noted volume."""

    volume: str
    info: dict[str, Any]
    pool: str | None = None  # where its image was, None if in none
    removed: bool = False
    error: str | None = None
    command: str | None = None

    def record(self) -> dict[str, Any]:
        return {
            "volume": self.volume,
            "name": self.info.get("name", ""),
            "status_at_stop": self.info.get("status"),
            "service": self.info.get("service"),
            "image": None
            if self.pool is None
            else f"{self.pool}/{IMAGE_NAME.format(id=self.volume)}",
            "removed": self.removed,
            "error": self.error,
            "command": self.command,
        }


def cinder_knows(conn: Any, volume: str) -> str | None:
    """The volume's status as Cinder lists it, None if Cinder no longer knows it."""
    from openstack import exceptions

    try:
        return str(conn.block_storage.get_volume(volume).status)
    except exceptions.NotFoundException:
        return None


def resolve(
    conn: Any, pools: CinderPools, volumes: dict[str, dict[str, Any]]
) -> tuple[list[Found], dict[str, dict[str, Any]]]:
    """For each noted volume Cinder no longer knows, its image removed from the pools where
    it was left; the volumes found so, and those to look at again later (Cinder still
    lists them in a status its delete of them may yet leave an image from)."""
    from harness.planes.ceph import images
    from harness.planes.ceph.access import CephAccess, CephError

    gone, pending = [], {}
    for volume, info in sorted(volumes.items()):
        status = cinder_knows(conn, volume)
        if status is None:
            gone.append((volume, info))
        elif status in MAY_BE_HALF_MADE:
            pending[volume] = info
    found: list[Found] = []
    for volume, info in gone:
        name = IMAGE_NAME.format(id=volume)
        where: Found | None = None
        for pool in pools.pools:
            try:
                with CephAccess(pools.conf, pools.user, pool).pool_io() as ioctx:
                    if name in images.existing(ioctx):
                        images.remove(ioctx, name)
                        where = Found(
                            volume, info, pool, removed=name not in images.existing(ioctx)
                        )
            except CephError as exc:
                where = Found(volume, info, pool, error=str(exc))
            if where is not None:
                break
        if where is not None and not where.removed:
            assert where.pool is not None
            where = Found(
                volume,
                info,
                where.pool,
                error=where.error or "still listed after its removal",
                command=pools.remove_command(where.pool, name),
            )
        if where is not None:
            found.append(where)
    return found, pending


def connection_of(note: dict[str, Any]) -> Any:
    """The admin's connection to the OpenStack testbed the note names."""
    from harness.testbeds.openstack.testbed import OpenStackTestbed

    return OpenStackTestbed(Path(note["testbed"])).connection()


def resolve_noted(store: CampaignStore, notes: dict[str, dict[str, Any]]) -> list[Found]:
    """Resolve each note: forgotten once nothing of it is pending, else kept with what is."""
    found: list[Found] = []
    for key, note in sorted(notes.items()):
        got, pending = resolve(connection_of(note), CinderPools.of_note(note), note["volumes"])
        found += got
        failed = {f.volume: note["volumes"][f.volume] for f in got if not f.removed}
        if pending or failed:
            store.record_created(key, volumes={**pending, **failed})
        else:
            store.forget_created(key)
    return found


def noted(store: CampaignStore) -> dict[str, dict[str, Any]]:
    return {k: n for k, n in store.created().items() if n.get("kind") == NOTE_KIND}


def said(found: Found) -> str:
    """One image's line, as the console, the warnings and `volperf cleanup` say it."""
    lost = "the delete" if found.info.get("status") == "deleting" else "the create"
    what = f"Cinder lost {lost} of volume {found.volume}"
    if found.info.get("name"):
        what += f" ({found.info['name']})"
    what += f" during the stop of {found.info.get('service') or 'its service'}"
    image = f"{found.pool}/{IMAGE_NAME.format(id=found.volume)}"
    if found.removed:
        return f"{what}; its RBD image {image} was removed"
    return f"{what}; its RBD image {image} is still there ({found.error}): {found.command}"


def remove_noted(store: CampaignStore, notes: dict[str, dict[str, Any]]) -> list[str]:
    """`volperf cleanup`: the images the stops of a killed run's steps left."""
    lines = []
    for key, note in sorted(notes.items()):
        try:
            found = resolve_noted(store, {key: note})
        except Exception as exc:  # said, and the note kept: cleanup can try again
            lines.append(
                f"NOT removed: the RBD images of volumes Cinder may have lost in {note['testbed']} "
                f"({type(exc).__name__}: {exc}); run `volperf cleanup` again"
            )
            continue
        lines += [
            f"rbd {f.pool}/{IMAGE_NAME.format(id=f.volume)} ({said(f)})"
            if f.removed
            else f"NOT removed: {said(f)}"
            for f in found
        ]
    return lines


def left_warnings(record: dict[str, Any]) -> list[Warning]:
    """A step's warnings of the images its stops left (raw/faults.json's images_left)."""
    return [
        Warning(WARNING_CODE, said(_found_of(entry)))
        if entry.get("volume")
        else Warning(
            WARNING_CODE,
            f"the images of the volumes Cinder may have lost in the stops' hands were not "
            f"checked ({entry.get('error')}): run `volperf cleanup`",
        )
        for entry in record.get(LEFT_FIELD) or []
    ]


def _found_of(entry: dict[str, Any]) -> Found:
    """A Found again, from its record."""
    pool = (entry.get("image") or "/").split("/", 1)[0] or None
    info = {"name": entry.get("name"), "status": entry.get("status_at_stop")}
    info["service"] = entry.get("service")
    removed, error, command = bool(entry.get("removed")), entry.get("error"), entry.get("command")
    return Found(entry["volume"], info, pool, removed, error, command)
