"""Remove what a campaign created, from its created.json, even after a crash."""

from __future__ import annotations

from pathlib import Path

from harness.store import CampaignStore


def remove_created(store: CampaignStore) -> list[str]:
    removed: list[str] = []
    for resource, details in store.created().items():
        if details.get("kind") == "file" and details.get("ours", False):
            Path(resource).unlink(missing_ok=True)
            removed.append(resource)
        # a user's file or a device region stays; only volperf's note of it goes
        store.forget_created(resource)
    return removed
