"""harness/planes/heat/collect.py: the agent's result unpacked from a real wait condition's data."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.planes.heat.collect import output, result_text

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
