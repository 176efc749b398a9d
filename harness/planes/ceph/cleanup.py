"""`volperf cleanup` on Ceph: RBD images a campaign made."""

from __future__ import annotations

from pathlib import Path

from harness.core.store import CampaignStore
from harness.planes.ceph.access import CephAccess, CephError


def remove_noted(store: CampaignStore, notes: dict[str, dict]) -> list[str]:
    """`volperf cleanup`: the images a campaign noted, and any other image in a noted pool
    that carries its tag."""
    from harness.planes.ceph import images  # Ceph's bindings only when a campaign used Ceph

    removed: list[str] = []
    places = {(n["conf"], n["user"], n["pool"]) for n in notes.values()}
    for conf, user, pool in sorted(places):
        here = {
            k: n
            for k, n in notes.items()
            if (n["conf"], n["user"], n["pool"]) == (conf, user, pool)
        }
        names = {n["image"]: k for k, n in here.items() if n["kind"] == "rbd-image"}
        scans = [n["campaign"] for n in here.values() if n["kind"] == "rbd-pool"]
        try:
            with CephAccess(Path(conf), user, pool).pool_io() as ioctx:
                for campaign in scans:
                    names.update(
                        {name: "" for name in images.tagged(ioctx, campaign) if name not in names}
                    )
                for name, key in sorted(names.items()):
                    if images.remove(ioctx, name):
                        removed.append(f"rbd {pool}/{name}")
                    if key:
                        store.forget_created(key)
        except CephError as exc:
            removed.append(
                f"NOT removed: RBD images of {pool} ({exc}); run `volperf cleanup` again"
            )
            continue
        for key in here:
            store.forget_created(key)
    return removed
