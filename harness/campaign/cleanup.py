"""Remove what a campaign created, from its created.json, even after a crash.

Each plane removes the kinds of resource it notes (planes/registry.py, in its order:
servers, files and directories first; Heat stacks before RBD images, as Heat deletes their
Cinder volumes itself; then Kubernetes namespaces, RBD images, what Rally tasks left). A
note of a kind no plane claims is forgotten. What cannot be removed now (a cluster that does
not answer) stays noted, and the returned list says so in a line starting with "NOT
removed".
"""

from __future__ import annotations

from harness.core.store import CampaignStore
from harness.planes.registry import removers


def remove_created(store: CampaignStore) -> list[str]:
    created = store.created()
    removed: list[str] = []
    claimed: set[str] = set()
    for claims, remove in removers():
        notes = {k: v for k, v in created.items() if claims(str(v.get("kind", "")))}
        claimed |= set(notes)
        if notes:
            removed += remove(store, notes)
    for resource in set(created) - claimed:
        store.forget_created(resource)
    return removed
