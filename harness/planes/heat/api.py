"""The few Heat calls volperf makes, on openstacksdk's orchestration proxy. Reads return
Heat's JSON as it came, so what is kept under raw/ is the API's own answer."""

from __future__ import annotations

from typing import Any

from harness.planes.heat.parameters import TEMPLATE, StackPlan

FINAL = ("COMPLETE", "FAILED")


class HeatError(RuntimeError):
    """A Heat call failed; the message names the stack and Heat's answer."""


def _json(conn: Any, path: str) -> dict[str, Any]:
    response = conn.orchestration.get(path, raise_exc=False)
    if response.status_code >= 400:
        raise HeatError(f"GET {path}: {response.status_code} {response.text[:500]}")
    return response.json()


def ref(stack: dict[str, Any]) -> str:
    """The stack's API path: stacks/NAME/ID."""
    return f"stacks/{stack['stack_name']}/{stack['id']}"


def create(conn: Any, plan: StackPlan, tags: list[str], timeout_min: int) -> dict[str, Any]:
    """Create the stack (rollback disabled: a failed VM must not take the others' results
    with it); returns {'id', 'stack_name'}."""
    contents = conn.orchestration.read_env_and_templates(template_file=str(TEMPLATE))
    body = {
        "stack_name": plan.name,
        "template": contents["template"],
        "files": contents.get("files", {}),
        "parameters": plan.parameters,
        "timeout_mins": timeout_min,
        "disable_rollback": True,
        "tags": ",".join(tags),
    }
    response = conn.orchestration.post("stacks", json=body, raise_exc=False)
    if response.status_code >= 400:
        raise HeatError(
            f"stack {plan.name} was not created: {response.status_code} {_explanation(response)}"
        )
    return {"id": response.json()["stack"]["id"], "stack_name": plan.name}


def _explanation(response: Any) -> str:
    try:
        error = response.json().get("error", {})
        return f"{error.get('type', '')}: {error.get('message', '')}".strip(": ")
    except ValueError:
        return response.text[:500]


def show(conn: Any, path: str) -> dict[str, Any]:
    return _json(conn, path)["stack"]


def resources(conn: Any, path: str, nested_depth: int = 0) -> list[dict[str, Any]]:
    return _json(conn, f"{path}/resources?nested_depth={nested_depth}")["resources"]


def events(conn: Any, path: str, nested_depth: int = 0) -> list[dict[str, Any]]:
    return _json(conn, f"{path}/events?nested_depth={nested_depth}&sort_dir=asc")["events"]


def delete(conn: Any, path: str) -> None:
    response = conn.orchestration.delete(path, raise_exc=False)
    if response.status_code >= 400 and response.status_code != 404:
        raise HeatError(f"DELETE {path}: {response.status_code} {_explanation(response)}")


def status_or_gone(conn: Any, path: str) -> str:
    """The stack's status, or DELETE_COMPLETE once Heat no longer shows it."""
    response = conn.orchestration.get(path, raise_exc=False)
    if response.status_code == 404:
        return "DELETE_COMPLETE"
    if response.status_code >= 400:
        raise HeatError(f"GET {path}: {response.status_code} {response.text[:500]}")
    return response.json()["stack"]["stack_status"]


def listed(conn: Any, query: str) -> list[dict[str, Any]]:
    return _json(conn, query)["stacks"]


def tagged(conn: Any, tag: str) -> list[dict[str, Any]]:
    """Every stack of the project carrying the tag (Heat's own tag filter)."""
    return listed(conn, f"stacks?tags={tag}")


def is_final(status: str) -> bool:
    return status.endswith(FINAL)
