"""Deleting volperf's stacks: the servers of guests that never answered go first, on the
resources listings of real stacks (fixtures/README.txt)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.planes.heat.cleanup import SERVER, WAIT, delete_and_wait, silent_servers

FIXTURES = Path(__file__).with_name("fixtures")
PANICKED = FIXTURES / "guest-panicked"


def _resources(path: Path) -> list[dict]:
    return json.loads(path.read_text())


def _server_of(resources: list[dict]) -> str:
    (server,) = [r for r in resources if r["resource_type"] == SERVER]
    return server["physical_resource_id"]


def test_the_server_of_a_guest_that_never_signalled_is_silent():
    resources = _resources(PANICKED / "randwrite" / "resources.json")
    assert "Kernel panic" in (PANICKED / "randwrite" / "console-c02.txt").read_text()
    assert silent_servers(resources) == [_server_of(resources)]


@pytest.mark.parametrize(
    "listing",
    [
        PANICKED / "randread" / "resources.json",
        FIXTURES / "two-stacks/raw/heat/volperf-heat-try-001-randread/resources.json",
        FIXTURES / "two-stacks/raw/heat/volperf-heat-try-001-randwrite/resources.json",
    ],
    ids=["real-guest", "stand-in-reader", "stand-in-writer"],
)
def test_a_guest_that_answered_is_left_to_heat(listing):
    assert silent_servers(_resources(listing)) == []


def test_of_two_vms_only_the_one_whose_agent_failed_is_silent():
    resources = _resources(FIXTURES / "one-vm-failed/raw/heat/hand2/resources.json")
    failed_stacks = {
        link["href"]
        for r in resources
        if r["resource_type"] == WAIT and r["resource_status"] == "CREATE_FAILED"
        for link in r["links"]
        if link["rel"] == "stack"
    }
    (failed,) = [
        r["physical_resource_id"]
        for r in resources
        if r["resource_type"] == SERVER
        and {link["href"] for link in r["links"] if link["rel"] == "stack"} & failed_stacks
    ]
    assert silent_servers(resources) == [failed]


def test_a_guest_still_booting_is_silent_and_a_server_not_yet_made_is_not():
    resources = _resources(PANICKED / "randread" / "resources.json")
    for resource in resources:
        if resource["resource_type"] == WAIT:
            resource["resource_status"] = "CREATE_IN_PROGRESS"
    assert silent_servers(resources) == [_server_of(resources)]
    for resource in resources:
        if resource["resource_type"] == SERVER:
            resource["physical_resource_id"] = ""
    assert silent_servers(resources) == []


class _Answer:
    def __init__(self, status: int, body: dict) -> None:
        self.status_code, self.body, self.text = status, body, json.dumps(body)

    def json(self) -> dict:
        return self.body


class _Cloud:
    """Heat and Nova as far as delete_and_wait calls them, with a real stack's resources;
    every call recorded in order."""

    def __init__(self, resources: list[dict]) -> None:
        self.resources, self.calls, self.deleted = resources, [], set()
        self.orchestration, self.compute = self, self

    def get(self, path: str, raise_exc: bool = False) -> _Answer:
        if "/resources?" in path:
            return _Answer(200, {"resources": self.resources})
        return _Answer(404, {}) if path in self.deleted else _Answer(200, {})

    def delete(self, path: str, raise_exc: bool = False) -> _Answer:
        self.calls.append(("delete stack", path))
        self.deleted.add(path)
        return _Answer(204, {})

    def delete_server(self, server: str, ignore_missing: bool = True) -> None:
        self.calls.append(("delete server", server))


def test_the_silent_servers_are_deleted_before_their_stack():
    resources = _resources(PANICKED / "randwrite" / "resources.json")
    cloud = _Cloud(resources)
    path = "stacks/volperf-real-guests-001-randwrite/474112f9"
    gone, left = delete_and_wait(cloud, [path], timeout_s=5)
    assert (gone, left) == ([path], [])
    assert cloud.calls == [("delete server", _server_of(resources)), ("delete stack", path)]
