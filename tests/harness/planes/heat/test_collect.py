"""harness/planes/heat/collect.py: the agent's result unpacked from a real wait condition's data."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.planes.heat.collect import member_ids, output, result_text, vm_stacks

FIXTURES = Path(__file__).parent / "fixtures"


def test_the_result_in_a_vm_stacks_output_is_fios_json():
    folder = FIXTURES / "two-stacks" / "raw" / "heat" / "volperf-heat-try-001-randwrite"
    vm = json.loads((folder / "vm-0.json").read_text())
    text = result_text(output(vm, "result"))
    assert text == (folder / "fio-c02.json").read_text()
    assert json.loads(text)["jobs"][0]["jobname"] == "volperf-randwrite"


def test_a_failed_vm_has_no_result_and_empty_data_is_refused():
    folder = FIXTURES / "one-vm-failed" / "raw" / "heat" / "hand2"
    vm = json.loads((folder / "vm-1.json").read_text())
    assert vm["stack_status"] == "CREATE_FAILED"
    with pytest.raises(ValueError, match="no signal data|carried no data"):
        result_text(output(vm, "result") or "{}")
    with pytest.raises(ValueError, match="carried no data"):
        result_text('{"1": ""}')


class _Answer:
    def __init__(self, body: dict) -> None:
        self.status_code, self.body = 200, body

    def json(self) -> dict:
        return self.body


class _Heat:
    """The orchestration proxy's get, answering with a real stack's resources listing."""

    def __init__(self, resources: list[dict]) -> None:
        self.resources = resources

    def get(self, path: str, raise_exc: bool = False) -> _Answer:
        assert "/resources?" in path, path
        return _Answer({"resources": self.resources})


def test_each_vms_volume_and_server_are_found_in_its_own_nested_stack():
    folder = FIXTURES / "two-stacks" / "raw" / "heat" / "volperf-heat-try-001-randwrite"
    resources = json.loads((folder / "resources.json").read_text())
    conn = type("Conn", (), {"orchestration": _Heat(resources)})()
    vms = vm_stacks(conn, "stacks/volperf-heat-try-001-randwrite/id")
    assert list(vms) == [0]
    for kind in ("OS::Cinder::Volume", "OS::Nova::Server"):
        (made,) = [r for r in resources if r["resource_type"] == kind]
        assert member_ids(resources, vms, kind) == {0: made["physical_resource_id"]}
        assert member_ids(resources, {}, kind) == {}  # a VM stack not listed: none
