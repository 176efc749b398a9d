"""harness/planes/heat/parameters.py: a step's stacks (one per rw mode), their parameters as the
template's constraints take them, and the timeouts."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from harness.core.plan import plan_steps
from harness.core.spec import SpecError, validate
from harness.planes.heat.parameters import (
    agent_timeout_s,
    fio_size,
    stack_plans,
    stack_timeout_min,
    start_delay_s,
    volume_size_gib,
)

TEMPLATE = Path(__file__).parents[4] / "heat_templates" / "cinder-fio" / "main.yaml"


def _spec(**workload):
    heat = workload.pop("heat", {})
    return validate(
        {
            "name": "vm-fio",
            "target": {"type": "openstack", "heat": {"image": "tiny", "flavor": "tiny", **heat}},
            "workloads": [
                {
                    "name": "w",
                    "rw": ["randread", "randwrite"],
                    "size": "1G",
                    "iodepth": 64,
                    "runtime": 30,
                    **workload,
                }
            ],
            "sweep": [2, 5],
        }
    )


def test_a_step_has_a_readers_stack_and_a_writers_stack_splitting_its_vms():
    spec = _spec()
    step = plan_steps(spec)[1]  # 5 VMs
    plans = stack_plans(spec.name, step, spec.target.heat)
    assert [(p.name, p.rw, p.consumers) for p in plans] == [
        ("volperf-vm-fio-002-randread", "randread", ("c01", "c03", "c05")),
        ("volperf-vm-fio-002-randwrite", "randwrite", ("c02", "c04")),
    ]
    assert [p.parameters["vm_count"] for p in plans] == [3, 2]
    assert plans[0].parameters["test_filesize"] == "1G"
    assert plans[0].parameters["bs"] == "4k"
    assert plans[0].parameters["prefill"] == "none"


def test_every_parameter_passes_the_templates_own_constraints():
    declared = yaml.safe_load(TEMPLATE.read_text())["parameters"]
    spec = _spec(bs="64KiB", size="1536M", prefill=True, heat={"prefill_image": "random"})
    for plan in stack_plans(spec.name, plan_steps(spec)[0], spec.target.heat):
        assert set(plan.parameters) <= set(declared)
        for name, value in plan.parameters.items():
            for constraint in declared[name].get("constraints", []):
                if "allowed_pattern" in constraint:
                    assert re.fullmatch(constraint["allowed_pattern"], str(value)), name
                if "allowed_values" in constraint:
                    assert value in constraint["allowed_values"], name
                if "range" in constraint:
                    assert constraint["range"]["min"] <= value <= constraint["range"]["max"], name
        assert plan.parameters["bs"] == "64k"
        assert plan.parameters["test_filesize"] == "1536M"
        assert plan.parameters["prefill"] == "image"
        assert plan.parameters["volume_size"] == 2  # 1.5 GiB rounded up


@pytest.mark.parametrize(
    ("size", "units", "text"),
    [
        ("4k", "km", "4k"),
        ("1M", "km", "1m"),
        ("1G", "KMGT", "1G"),
        ("1536M", "KMGT", "1536M"),
        ("4096", "KMGT", "4K"),
        ("1000", "KMGT", "1000"),
    ],
)
def test_sizes_become_whole_numbers_with_one_unit(size, units, text):
    assert fio_size(size, units) == text


def test_timeouts_follow_the_runtime_unless_given():
    spec = _spec()
    workload = spec.workloads[0]
    assert agent_timeout_s(spec.target.heat, workload) == 30 + 600
    assert stack_timeout_min(spec.target.heat, workload) == 16  # (630 + 300) / 60, up
    given = _spec(heat={"agent_timeout": 120, "volume_size": 3})
    assert agent_timeout_s(given.target.heat, given.workloads[0]) == 120
    assert volume_size_gib(given.target.heat, given.workloads[0]) == 3
    # waiting for a shared start time lengthens what Heat waits for
    assert agent_timeout_s(spec.target.heat, workload, 40) == 30 + 600 + 40


def test_the_start_time_comes_from_the_spec_or_the_step_before():
    heat = _spec().target.heat
    assert start_delay_s(heat, None) is None  # a first step: each VM at once
    assert start_delay_s(heat, 11.0) == 27  # 1.5 x 11 s + 10 s
    given = _spec(heat={"start_delay": 90}).target.heat
    assert start_delay_s(given, None) == start_delay_s(given, 11.0) == 90
    step = plan_steps(_spec())[0]
    plans = stack_plans("c", step, heat, start_at=1_795_421_291, delay=27)
    assert {p.parameters["start_at"] for p in plans} == {1_795_421_291}
    assert stack_plans("c", step, heat)[0].parameters["start_at"] == 0


def test_a_fixed_rate_reaches_every_vms_fio_as_its_template_parameters():
    step = plan_steps(_spec(rate_iops=150, rate_process="poisson"))[0]
    plans = stack_plans("c", step, _spec().target.heat)
    assert {(p.parameters["test_rate_iops"], p.parameters["test_rate_process"]) for p in plans} == {
        (150, "poisson")
    }
    closed = stack_plans("c", plan_steps(_spec())[0], _spec().target.heat)
    assert {p.parameters["test_rate_iops"] for p in closed} == {0}  # the agent adds no rate


@pytest.mark.parametrize(
    ("workload", "named"),
    [
        ({"numjobs": 4}, "numjobs: 4"),
        ({"fio_options": {"zero_buffers": 1}}, "fio_options"),
        ({"start_stagger": 2}, "start_stagger: 2"),
        ({"size": "4G", "heat": {"volume_size": 2}}, "does not fit"),
    ],
)
def test_what_the_agent_cannot_run_is_refused_by_name(workload, named):
    with pytest.raises(SpecError, match=re.escape(named)):
        _spec(**workload)


def test_fio_on_openstack_needs_the_heat_settings():
    with pytest.raises(SpecError, match="target.heat"):
        validate(
            {
                "name": "x",
                "target": {"type": "openstack"},
                "workloads": [{"name": "w", "rw": "randread"}],
                "sweep": [2],
            }
        )
    with pytest.raises(SpecError, match="tool: rally or fio"):
        validate(
            {
                "name": "x",
                "target": {"type": "openstack", "heat": {"image": "i", "flavor": "f"}},
                "workloads": [{"name": "w", "tool": "pgbench"}],
                "sweep": [2],
            }
        )
