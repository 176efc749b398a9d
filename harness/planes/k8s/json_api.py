"""The Kubernetes API calls that run at scale, as plain JSON requests through the client's
own ApiClient (its kubeconfig's host, authentication, connection pool and error answers),
without the client's typed APIs. Importing those costs more CPU than a small step of
volperf's does: CoreV1Api 0.33 CPU-s, AppsV1Api 0.10, StorageV1Api 0.05 here (kubernetes
37.0.2), and every call validates its arguments with pydantic first. A pvc-provision step
of 50 namespaces spent 30 % of its process's CPU importing them (py-spy, 2026-12-01).

``CoreJson`` is a CoreV1Api for its callers: a call of ROUTES asked undecoded
(``_preload_content=False``, as CoreV1Api takes it) is a JSON request whose answer comes
back unread (a urllib3 response, as CoreV1Api returns it then; an answer that is no
success raises the client's ApiException, as CoreV1Api does). Any other call, or one
asked decoded, is CoreV1Api's own, imported on first use: the failure messages' event
lists, a killed run's namespace looked at."""

from __future__ import annotations

import json
import re
from typing import Any
from urllib.parse import quote

# CoreV1Api's method: its HTTP method, its path, its positional arguments in CoreV1Api's
# order (those named in the path go there; "body" is the request's body)
NS = "/api/v1/namespaces/{namespace}"
ROUTES: dict[str, tuple[str, str, tuple[str, ...]]] = {
    "create_namespace": ("POST", "/api/v1/namespaces", ("body",)),
    "list_namespace": ("GET", "/api/v1/namespaces", ()),
    "read_namespace": ("GET", "/api/v1/namespaces/{name}", ("name",)),
    "delete_namespace": ("DELETE", "/api/v1/namespaces/{name}", ("name",)),
    "create_namespaced_persistent_volume_claim": (
        "POST",
        f"{NS}/persistentvolumeclaims",
        ("namespace", "body"),
    ),
    "delete_collection_namespaced_persistent_volume_claim": (
        "DELETE",
        f"{NS}/persistentvolumeclaims",
        ("namespace",),
    ),
    "list_persistent_volume_claim_for_all_namespaces": (
        "GET",
        "/api/v1/persistentvolumeclaims",
        (),
    ),
    "create_namespaced_pod": ("POST", f"{NS}/pods", ("namespace", "body")),
    "list_namespaced_pod": ("GET", f"{NS}/pods", ("namespace",)),
    "delete_collection_namespaced_pod": ("DELETE", f"{NS}/pods", ("namespace",)),
    "list_pod_for_all_namespaces": ("GET", "/api/v1/pods", ()),
    "read_namespaced_pod_log": ("GET", f"{NS}/pods/{{name}}/log", ("name", "namespace")),
}
DAEMON_SETS = "/apis/apps/v1/namespaces/{namespace}/daemonsets"
STORAGE_CLASSES = "/apis/storage.k8s.io/v1/storageclasses"
VERSION = "/version"


def query_name(argument: str) -> str:
    """A keyword argument of the client's (label_selector) as the API's query parameter
    (labelSelector)."""
    head, *rest = argument.split("_")
    return head + "".join(word.capitalize() for word in rest)


def query_value(value: Any) -> Any:
    return ("true" if value else "false") if isinstance(value, bool) else value


class JsonApi:
    """Requests of any path of the API through the client's ApiClient, counted as every
    one of its calls is (cluster.api_client)."""

    def __init__(self, api_client: Any):
        self.api_client = api_client

    def send(self, method: str, path: str, body: Any = None, **query: Any) -> Any:
        """The request; its answer unread (a urllib3 response), once it said success."""
        from kubernetes.client.exceptions import ApiException

        timeout = query.pop("_request_timeout", None)
        headers = {"Accept": "application/json"}
        if body is not None:
            headers["Content-Type"] = "application/json"
        request = self.api_client.param_serialize(
            method,
            path,
            query_params=[
                (query_name(k), query_value(v)) for k, v in query.items() if v is not None
            ],
            header_params=headers,
            body=body,
            auth_settings=["BearerToken"],  # as every method of the typed APIs names it
        )
        answer = self.api_client.call_api(*request, _request_timeout=timeout)
        if not 200 <= answer.status <= 299:
            answer.read()
            raise ApiException.from_response(http_resp=answer, body=None, data=None)
        return answer.response

    def get(self, path: str, **query: Any) -> Any:
        """A GET's answer decoded from JSON (a plain dict)."""
        return json.loads(self.read(self.send("GET", path, **query)))

    @staticmethod
    def read(answer: Any) -> bytes:
        """An unread answer read to its end, its connection back in the pool."""
        try:
            return answer.read()
        finally:
            answer.release_conn()


class CoreJson:
    """CoreV1Api with the calls of ROUTES sent as plain JSON when asked undecoded."""

    def __init__(self, api_client: Any):
        self.api_client = api_client
        self.json = JsonApi(api_client)
        self._typed: Any = None

    def typed(self) -> Any:
        """The client's own CoreV1Api on the same ApiClient, made on first use."""
        if self._typed is None:
            from kubernetes import client

            self._typed = client.CoreV1Api(self.api_client)
        return self._typed

    def decoded(self, name: str, *args: Any, **options: Any) -> Any:
        """A call of ROUTES sent as JSON, its answer decoded (a plain dict)."""
        return json.loads(self.text(name, *args, **options))

    def text(self, name: str, *args: Any, **options: Any) -> str:
        """A call of ROUTES sent as JSON, its answer as text (a pod's log)."""
        return JsonApi.read(getattr(self, name)(*args, _preload_content=False, **options)).decode()

    def __getattr__(self, name: str) -> Any:
        if name not in ROUTES:
            return getattr(self.typed(), name)
        method, path, positional = ROUTES[name]

        def call(*args: Any, **options: Any) -> Any:
            if options.get("_preload_content", True):
                return getattr(self.typed(), name)(*args, **options)
            options.pop("_preload_content")
            given = {**dict(zip(positional, args, strict=False)), **options}
            body = given.pop("body", None)
            where = {n: quote(str(given.pop(n)), safe="") for n in re.findall(r"{(\w+)}", path)}
            return self.json.send(method, path.format(**where), body, **given)

        return call
