"""The plain JSON calls of harness/planes/k8s/json_api.py: each route sends what the client's
own CoreV1Api sends for the same call (method, URL with its query, body, credentials),
compared request by request as both hand them to the ApiClient; and, on the k8s testbed, a
pvc-provision campaign with its nodes sampled runs to the end without importing any of the
client's typed APIs."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import pytest
import yaml

from harness.planes.k8s.json_api import ROUTES, CoreJson, query_name

BODY = {"metadata": {"name": "made", "labels": {"volperf-campaign": "c"}}}
# each route's call as the provision step and the node sampler make it
CALLS: dict[str, tuple[tuple[Any, ...], dict[str, Any]]] = {
    "create_namespace": ((BODY,), {}),
    "list_namespace": ((), {"label_selector": "volperf-campaign=c"}),
    "read_namespace": (("volperf-c-001",), {}),
    "delete_namespace": (("volperf-c-001",), {}),
    "create_namespaced_persistent_volume_claim": (("volperf-c-001", BODY), {}),
    "delete_collection_namespaced_persistent_volume_claim": (("volperf-c-001",), {}),
    "list_persistent_volume_claim_for_all_namespaces": (
        (),
        {"label_selector": "a=b,c=d", "resource_version": "1234", "timeout_seconds": 60},
    ),
    "create_namespaced_pod": (("volperf-c-001", BODY), {}),
    "list_namespaced_pod": (("volperf-c-nodes",), {"label_selector": "app=x"}),
    "delete_collection_namespaced_pod": (("volperf-c-001",), {"grace_period_seconds": 0}),
    "list_pod_for_all_namespaces": ((), {"watch": True, "label_selector": "a=b"}),
    "read_namespaced_pod_log": (
        ("sampler-x1", "volperf-c-nodes"),
        {"timestamps": True, "since_seconds": 7},
    ),
}


class Sent(Exception):
    """What an ApiClient was asked to send, stopped before it went."""


def _capturing_client() -> Any:
    from kubernetes import client

    class Capturing(client.ApiClient):
        def call_api(self, method, url, header_params=None, body=None, *rest, **options):
            raise Sent(method, url, (header_params or {}).get("authorization"), body)

    configuration = client.Configuration(host="https://127.0.0.1:6443")
    configuration.api_key = {"BearerToken": "Bearer not-a-secret"}
    return Capturing(configuration)


def _sent(call: Any, *args: Any, **options: Any) -> tuple[Any, ...]:
    with pytest.raises(Sent) as sent:
        call(*args, _preload_content=False, **options)
    return sent.value.args


def test_every_route_has_a_call_here():
    assert set(CALLS) == set(ROUTES)


@pytest.mark.parametrize("name", sorted(ROUTES))
def test_each_route_sends_what_core_v1_api_sends(name):
    from kubernetes import client

    api = _capturing_client()
    args, options = CALLS[name]
    ours = _request(_sent(getattr(CoreJson(api), name), *args, **options))
    theirs = _request(_sent(getattr(client.CoreV1Api(api), name), *args, **options))
    assert ours == theirs
    assert ours[3] == "Bearer not-a-secret"  # the kubeconfig's credentials went with it


def _request(sent: tuple[Any, ...]) -> tuple[Any, ...]:
    """What was sent, its query as a set (in any order, the same to the server)."""
    method, url, authorization, body = sent
    path, _, query = url.partition("?")
    return method, path, set(query.split("&")) - {""}, authorization, body


def test_a_call_asked_decoded_is_core_v1_apis_own():
    from kubernetes import client

    core = CoreJson(_capturing_client())
    with pytest.raises(Sent):
        core.list_namespace()  # decoded: CoreV1Api's own, which sends it as well
    assert isinstance(core.typed(), client.CoreV1Api)
    assert core.read_node.__self__ is core.typed()  # not a route: CoreV1Api's


@pytest.mark.parametrize(
    ("argument", "parameter"),
    [
        ("label_selector", "labelSelector"),
        ("since_seconds", "sinceSeconds"),
        ("grace_period_seconds", "gracePeriodSeconds"),
        ("watch", "watch"),
    ],
)
def test_the_clients_keyword_is_the_apis_query_parameter(argument, parameter):
    assert query_name(argument) == parameter


@pytest.mark.functional
def test_a_provision_campaign_imports_none_of_the_clients_typed_apis(k8s_testbed, tmp_path):
    """As a user runs it (`volperf run k8s`), its nodes sampled (the default): every PVC
    bound and pod ready, the sampler's logs kept, and no module of the client's typed APIs
    in what Python imported (-X importtime lists every one)."""
    spec = {
        "name": "json-only",
        "target": {
            "type": "k8s",
            "kubeconfig": str(k8s_testbed.kubeconfig),
            "storage_class": "local-path",
            "image_pull_policy": "Never",
            "pod_timeout": 60,
        },
        "workloads": [
            {"name": "pvcs", "tool": "pvc-provision", "pvcs": 2, "size": "16M", "pods": True}
        ],
        "sweep": [2],
    }
    (tmp_path / "spec.yaml").write_text(yaml.safe_dump(spec))
    run = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "harness.cli", "run", "spec.yaml"]
        + ["--results", "results"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
    )
    imported = {line.rsplit("|", 1)[-1].strip() for line in run.stderr.splitlines()}
    said = run.stdout + "\n".join(
        line for line in run.stderr.splitlines() if not line.startswith("import time:")
    )
    assert run.returncode == 0, said[-6000:]
    assert "4 of 4 PVCs of StorageClass local-path bound" in said
    assert "kubernetes.client" in imported  # the client's ApiClient, which sent them all
    assert not {m for m in imported if m.startswith("kubernetes.client.api.")}
    nodes = list((tmp_path / "results" / "json-only" / "steps").glob("*/raw/nodes/*.log"))
    assert nodes and all(n.read_text().strip() for n in nodes), nodes
