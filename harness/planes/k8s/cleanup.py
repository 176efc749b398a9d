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

DELETE_WAIT_S = 600


def remove_noted(store: CampaignStore, notes: dict[str, dict]) -> list[str]:
    """Namespaces noted, and any other labelled with the campaign (their pods and PVCs
    go with them)."""
    removed: list[str] = []
    for kubeconfig in sorted({n["kubeconfig"] for n in notes.values()}):
        here = {k: n for k, n in notes.items() if n["kubeconfig"] == kubeconfig}
        try:
            from kubernetes import client  # only when a campaign used Kubernetes

            core = client.CoreV1Api(api_client(Path(kubeconfig)))
            names = {n["namespace"] for n in here.values()}
            for campaign in {n["campaign"] for n in here.values()}:
                listed = core.list_namespace(label_selector=f"{LABEL}={k8s_name(campaign)}")
                names |= {ns.metadata.name for ns in listed.items}
            # all asked to go at once, then waited for: they are deleted side by side
            asked = {ns: begin_namespace_deletion(core, ns) for ns in sorted(names)}
            left = [
                ns
                for ns, gone in asked.items()
                if not gone and not wait_namespace_gone(core, ns, DELETE_WAIT_S)
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
            for key in here:
                store.forget_created(key)
    return removed
