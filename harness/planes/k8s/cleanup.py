"""`volperf cleanup` on Kubernetes: the namespaces a campaign noted, and any other labelled
with it (their pods and PVCs go with them)."""

from __future__ import annotations

from pathlib import Path

from harness.core.store import CampaignStore
from harness.planes.k8s.cluster import (
    LABEL,
    api_client,
    begin_namespace_deletion,
    k8s_name,
    wait_namespace_gone,
)
from harness.planes.k8s.json_api import CoreJson

DELETE_WAIT_S = 600


def remove_noted(store: CampaignStore, notes: dict[str, dict]) -> list[str]:
    """Namespaces noted, and any other labelled with the campaign (their pods and PVCs
    go with them)."""
    removed: list[str] = []
    for kubeconfig in sorted({n["kubeconfig"] for n in notes.values()}):
        here = {k: n for k, n in notes.items() if n["kubeconfig"] == kubeconfig}
        try:
            core = CoreJson(api_client(Path(kubeconfig)))
            names = {n["namespace"] for n in here.values()}
            for campaign in {n["campaign"] for n in here.values()}:
                selector = f"{LABEL}={k8s_name(campaign)}"
                listed = core.decoded("list_namespace", label_selector=selector)["items"]
                names |= {ns["metadata"]["name"] for ns in listed}
            # all asked to go at once, then waited for: they are deleted side by side
            unread = {"_preload_content": False}
            asked = {ns: begin_namespace_deletion(core, ns, **unread) for ns in sorted(names)}
            left = [
                ns
                for ns, gone in asked.items()
                if not gone and not wait_namespace_gone(core, ns, DELETE_WAIT_S, **unread)
            ]
        except Exception as exc:
            removed.append(
                f"NOT removed: namespaces of {kubeconfig} ({type(exc).__name__}: "
                f"{exc}); run `volperf cleanup` again"
            )
            continue
        removed += [f"namespace {ns}" for ns in sorted(names) if ns not in left]
        removed += [f"NOT removed: namespace {ns} still deleting" for ns in left]
        if not left:
            store.forget_created(*here)
    return removed
