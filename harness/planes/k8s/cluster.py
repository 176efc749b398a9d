"""Reaching a cluster with the kubernetes client: which kubeconfig, names Kubernetes
accepts, the last events of an object (what a failure message shows), namespaces deleted
and waited for."""

from __future__ import annotations

import contextlib
import os
import re
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import yaml

from harness.core import secrets
from harness.core.store import CampaignStore
from harness.host.owncost import count_api_call
from harness.testbeds import default_state_dir

LABEL = "volperf-campaign"
NAMESPACE_KIND = "k8s-namespace"  # what created.json calls a namespace volperf made
DELETE_POLL_S = 0.25
REMAKE_TIMEOUT_S = 300  # a killed run's namespace, deleted to be made anew


def kubeconfig_path(given: Path | None) -> Path:
    """The target's kubeconfig, else $KUBECONFIG, the k8s testbed's, ~/.kube/config."""
    if given is not None:
        return given.expanduser()
    if os.environ.get("KUBECONFIG"):
        return Path(os.environ["KUBECONFIG"].split(os.pathsep)[0])
    testbed = default_state_dir("k8s") / "admin.kubeconfig"
    return testbed if testbed.exists() else Path.home() / ".kube" / "config"


def api_client(kubeconfig: Path) -> Any:
    """The kubernetes client of this kubeconfig, every request it sends counted as
    volperf's own (host/owncost.py)."""
    from kubernetes import client, config

    class CountingApiClient(client.ApiClient):
        def call_api(self, *args: Any, **kwargs: Any) -> Any:  # every API method's call
            count_api_call("kubernetes")
            return super().call_api(*args, **kwargs)

    register_credentials(kubeconfig)
    configuration = type.__call__(client.Configuration)  # as new_client_from_config makes it
    config.load_kube_config(config_file=str(kubeconfig), client_configuration=configuration)
    return CountingApiClient(configuration=configuration)


def register_credentials(kubeconfig: Path) -> None:
    """Register the kubeconfig users' tokens, passwords and client keys as secrets, so
    their values are redacted wherever they would appear (the client reads the file
    itself; an unreadable one fails there, with its own message)."""
    try:
        document = yaml.safe_load(kubeconfig.expanduser().read_text()) or {}
    except (OSError, yaml.YAMLError):
        return
    for entry in document.get("users") or []:
        user = (entry or {}).get("user") or {}
        secrets.register_named(user)  # token, password, auth-provider's tokens
        if user.get("client-key-data"):
            secrets.register_pem(user["client-key-data"])
        if user.get("client-key"):
            with contextlib.suppress(OSError):  # the client says it cannot read it
                secrets.register_pem(Path(user["client-key"]).expanduser().read_text())


def namespace_key(kubeconfig: str, namespace: str) -> str:
    """A namespace's key in created.json."""
    return f"{NAMESPACE_KIND}:{kubeconfig}:{namespace}"


def note_namespace(store: CampaignStore, kubeconfig: str, namespace: str, campaign: str) -> str:
    """Note a namespace in created.json before it is made (cleanup finds it after a
    crash); its key there."""
    return note_namespaces(store, kubeconfig, [namespace], campaign)[0]


def note_namespaces(
    store: CampaignStore, kubeconfig: str, namespaces: Iterable[str], campaign: str
) -> list[str]:
    """Note namespaces in created.json in one write, before any is made; their keys."""
    notes = {
        namespace_key(kubeconfig, namespace): {
            "kind": NAMESPACE_KIND,
            "kubeconfig": kubeconfig,
            "namespace": namespace,
            "campaign": campaign,
        }
        for namespace in namespaces
    }
    store.record_all_created(notes)
    return list(notes)


class NotOurs(Exception):
    """A namespace of the name volperf would make is there, and is not the campaign's."""


def make_namespace(
    core: Any,
    store: CampaignStore,
    kubeconfig: str,
    namespace: str,
    campaign: str,
    labels: dict[str, str],
    *,
    noted: bool = False,
    **answer: Any,
) -> None:
    """Note the namespace in created.json (unless ``noted`` already, with the others of
    its step), then make it (``answer``: the client's request options). One of that name
    that is there already is volperf's only with the campaign's label: a killed run's,
    deleted and made anew so that the step starts from nothing. Any other is someone
    else's: its note goes (nothing of volperf's will delete it), and NotOurs says so."""
    from kubernetes.client.exceptions import ApiException

    key = (
        namespace_key(kubeconfig, namespace)
        if noted
        else note_namespace(store, kubeconfig, namespace, campaign)
    )
    body = {"metadata": {"name": namespace, "labels": labels}}
    try:
        drain(core.create_namespace(body, **answer))
        return
    except ApiException as exc:
        if exc.status != 409:
            raise
    if not is_campaigns(core, namespace, campaign):
        store.forget_created(key)
        raise NotOurs(
            f"namespace {namespace} is there already and is not campaign {campaign}'s "
            f"(no label {LABEL}={k8s_name(campaign)}): volperf leaves it as it is; "
            "name the campaign otherwise, or remove that namespace yourself"
        )
    if not delete_namespace(core, namespace, REMAKE_TIMEOUT_S):
        raise TimeoutError(f"namespace {namespace}, a killed run's, still there after deletion")
    drain(core.create_namespace(body, **answer))


def is_campaigns(core: Any, namespace: str, campaign: str) -> bool:
    """Whether the namespace carries the campaign's label (volperf made it for it)."""
    try:
        labels = core.read_namespace(namespace).metadata.labels or {}
    except Exception:
        return False
    return labels.get(LABEL) == k8s_name(campaign)


def drain(answer: Any) -> None:
    """An undecoded answer (_preload_content=False) read to its end, its connection back
    in the client's pool; a decoded one is left as it is."""
    if hasattr(answer, "release_conn"):
        answer.read()
        answer.release_conn()


def k8s_name(text: str, limit: int = 63) -> str:
    """A DNS-1123 label from any text: lower case, '-' for anything else, trimmed."""
    name = re.sub(r"[^a-z0-9-]+", "-", text.lower()).strip("-")
    return name[:limit].rstrip("-") or "x"


def last_events(core: Any, namespace: str, kind: str, name: str, count: int = 4) -> str:
    """The object's last events, oldest first, as 'Reason: message' joined by '; ': its
    warnings first (a crash loop's BackOff, a failed mount or schedule), then the latest
    of the rest, which a restarting container renews every time (Pulled, Created,
    Started) and which would push the warning out otherwise."""
    try:
        listed = core.list_namespaced_event(
            namespace, field_selector=(f"involvedObject.kind={kind},involvedObject.name={name}")
        ).items
    except Exception as exc:
        return f"(events not readable: {type(exc).__name__})"
    return "; ".join(f"{e.reason}: {e.message}".strip() for e in telling(listed, count)) or (
        "no events"
    )


def telling(events: list[Any], count: int) -> list[Any]:
    """At most ``count`` of these events (the client's CoreV1Event objects), oldest first:
    the latest warnings, then the latest others in the room left."""

    def when(event: Any) -> Any:
        return event.last_timestamp or event.event_time or event.metadata.creation_timestamp

    ordered = sorted(events, key=when)
    warnings = [e for e in ordered if e.type == "Warning"][-count:]
    room = count - len(warnings)
    others = [e for e in ordered if e.type != "Warning"][-room:] if room else []
    return sorted([*warnings, *others], key=when)


def absent(call: Any, *args: Any, **kwargs: Any) -> bool:
    """Run an API call; True when it says the object is not there (404)."""
    from kubernetes.client.exceptions import ApiException

    try:
        drain(call(*args, **kwargs))
    except ApiException as exc:
        if exc.status == 404:
            return True
        raise
    return False


def begin_namespace_deletion(core: Any, namespace: str, **answer: Any) -> bool:
    """Ask for the namespace to go; True when it is already gone. Once it is terminating
    (nothing can be made in it, not even by its StatefulSets), its pods are deleted at
    once (grace period 0: their data goes with the namespace) and its PVCs. The namespace
    controller, which first looks 5 s later, then finds it empty; left to itself it waits
    half of the pods' grace periods and of the PVCs' finalizers' 15 s on each pass (a
    database campaign's end took 17 s on the testbed, rather than 6; a namespace of PVCs
    13 s). ``answer``: the client's request options (_preload_content=False: unread)."""
    from kubernetes.client.exceptions import ApiException

    try:
        drain(core.delete_namespace(namespace, **answer))
    except ApiException as exc:
        if exc.status == 404:
            return True
        raise
    with contextlib.suppress(Exception):  # gone already, or left to the namespace's deletion
        drain(core.delete_collection_namespaced_pod(namespace, grace_period_seconds=0, **answer))
    with contextlib.suppress(Exception):
        drain(core.delete_collection_namespaced_persistent_volume_claim(namespace, **answer))
    return False


def wait_namespace_gone(core: Any, namespace: str, timeout_s: float, **answer: Any) -> bool:
    """Wait until the namespace is gone; False if it is still there after the timeout.
    ``answer``: the client's request options (_preload_content=False: unread)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if absent(core.read_namespace, namespace, **answer):
            return True
        time.sleep(DELETE_POLL_S)
    return False


def release_namespace(core: Any, namespace: str, timeout_s: float) -> bool:
    """Delete the namespace and wait until its pods and PVCs are gone, and their volumes
    released (deleted, where the class deletes them): nothing of the step holds storage
    or loads it any more. The empty namespace goes on being deleted, which the namespace
    controller does no sooner than 5 s later (the campaign's end waits for it). False if
    any is still there after the timeout."""
    try:
        claims = core.list_namespaced_persistent_volume_claim(namespace).items
    except Exception:
        claims = []
    volumes = [c.spec.volume_name for c in claims if c.spec.volume_name]
    if begin_namespace_deletion(core, namespace):
        return all_released(core, volumes, timeout_s)
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            emptied = not (
                core.list_namespaced_pod(namespace).items
                or core.list_namespaced_persistent_volume_claim(namespace).items
            )
        except Exception:
            emptied = absent(core.read_namespace, namespace)
        if emptied:
            return all_released(core, volumes, deadline - time.monotonic())
        time.sleep(DELETE_POLL_S)
    return False


def all_released(core: Any, volumes: list[str], timeout_s: float) -> bool:
    """Wait until each PV is deleted, or no longer bound where the class keeps it."""
    from kubernetes.client.exceptions import ApiException

    deadline = time.monotonic() + timeout_s
    waiting = list(volumes)
    while waiting:
        for name in list(waiting):
            try:
                volume = core.read_persistent_volume(name)
            except ApiException as exc:
                if exc.status != 404:
                    raise
                waiting.remove(name)
                continue
            kept = volume.spec.persistent_volume_reclaim_policy != "Delete"
            if kept and volume.status.phase != "Bound":
                waiting.remove(name)
        if not waiting:
            return True
        if time.monotonic() > deadline:
            return False
        time.sleep(DELETE_POLL_S)
    return True


def delete_namespace(core: Any, namespace: str, timeout_s: float) -> bool:
    """Delete the namespace (its pods, PVCs and, by their class, volumes) and wait until it
    is gone; False if it is still there after the timeout."""
    return begin_namespace_deletion(core, namespace) or wait_namespace_gone(
        core, namespace, timeout_s
    )


def waiting_reason_of(pod: dict[str, Any]) -> str:
    """waiting_reason of a pod as the API's JSON has it (a plain dict)."""
    for status in (pod.get("status") or {}).get("containerStatuses") or []:
        waiting = (status.get("state") or {}).get("waiting") or {}
        if waiting.get("reason"):
            return str(waiting["reason"])
    return ""


def waiting_reason(pod: Any) -> str:
    """Why the pod's first waiting container waits ('' when none does)."""
    for status in pod.status.container_statuses or []:
        if status.state and status.state.waiting and status.state.waiting.reason:
            return str(status.state.waiting.reason)
    return ""
