"""Reaching a cluster with the kubernetes client: which kubeconfig, names Kubernetes
accepts, the last events of an object (what a failure message shows), namespaces deleted
and waited for."""

from __future__ import annotations

import contextlib
import os
import re
import time
from pathlib import Path
from typing import Any

import yaml

from harness.core import secrets
from harness.host.owncost import count_api_call
from harness.testbeds import default_state_dir

LABEL = "volperf-campaign"
# a container waiting for one of these will not start by waiting longer
WAITING_FAILURES = (
    "ErrImagePull",
    "ImagePullBackOff",
    "ErrImageNeverPull",
    "CrashLoopBackOff",
    "CreateContainerConfigError",
    "InvalidImageName",
)


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


def k8s_name(text: str, limit: int = 63) -> str:
    """A DNS-1123 label from any text: lower case, '-' for anything else, trimmed."""
    name = re.sub(r"[^a-z0-9-]+", "-", text.lower()).strip("-")
    return name[:limit].rstrip("-") or "x"


def last_events(core: Any, namespace: str, kind: str, name: str, count: int = 4) -> str:
    """The object's last events, oldest first, as 'Reason: message' joined by '; '."""
    try:
        listed = core.list_namespaced_event(
            namespace, field_selector=(f"involvedObject.kind={kind},involvedObject.name={name}")
        ).items
    except Exception as exc:
        return f"(events not readable: {type(exc).__name__})"
    listed.sort(key=lambda e: e.last_timestamp or e.event_time or e.metadata.creation_timestamp)
    return "; ".join(f"{e.reason}: {e.message}".strip() for e in listed[-count:]) or "no events"


def absent(call: Any, *args: Any, **kwargs: Any) -> bool:
    """Run an API call; True when it says the object is not there (404)."""
    from kubernetes.client.exceptions import ApiException

    try:
        call(*args, **kwargs)
    except ApiException as exc:
        if exc.status == 404:
            return True
        raise
    return False


def delete_namespace(core: Any, namespace: str, timeout_s: float) -> bool:
    """Delete the namespace (its pods, PVCs and, by their class, volumes) and wait until it
    is gone; False if it is still there after the timeout."""
    if absent(core.delete_namespace, namespace):
        return True
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if absent(core.read_namespace, namespace):
            return True
        time.sleep(1)
    return False


def waiting_reason(pod: Any) -> str:
    """Why the pod's first waiting container waits ('' when none does)."""
    for status in pod.status.container_statuses or []:
        if status.state and status.state.waiting and status.state.waiting.reason:
            return str(status.state.waiting.reason)
    return ""
