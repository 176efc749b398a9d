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

NOT_REMOVED = "NOT removed"


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


def told(removed: list[str]) -> tuple[list[str], bool]:
    """What `volperf cleanup` prints of remove_created's lines, its tally last, and whether
    everything noted was removed: a line that says what became of a note (NOT removed, a
    fault undone, nothing to undo) as it is, any other a resource removed."""
    from harness.planes.faults import NOTHING_TO_UNDO, UNDONE  # not for every campaign's run

    kept = [line for line in removed if line.startswith(NOT_REMOVED)]
    undone = [line for line in removed if line.startswith(UNDONE)]  # faults put back
    said = kept + undone + [line for line in removed if line.startswith(NOTHING_TO_UNDO)]
    tally = f"{len(removed) - len(said)} resources removed" + (
        f", the faults on {len(undone)} undone" if undone else ""
    )
    return [line if line in said else f"removed {line}" for line in removed] + [tally], not kept
