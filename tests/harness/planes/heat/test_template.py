"""heat_templates/cinder-fio checked offline against the parameters volperf passes."""

from __future__ import annotations

import dataclasses
import shutil

import pytest

from harness.core.plan import plan_steps
from harness.planes.heat.parameters import TEMPLATE, stack_plans
from harness.planes.heat.template import constraint_problems, template_problems
from tests.harness.planes.heat.test_parameters import _spec


def _plans(**workload):
    spec = _spec(**workload)
    return [p for step in plan_steps(spec) for p in stack_plans(spec.name, step, spec.target.heat)]


def test_the_shipped_template_takes_every_stack_volperf_makes():
    plans = _plans(prefill=True, bs="64k", mode="size")
    assert len(plans) == 4 and template_problems(plans) == []


def test_a_value_outside_the_templates_constraints_is_named():
    [plan, *_] = _plans()
    bad = dataclasses.replace(
        plan, parameters={**plan.parameters, "test_rw": "trim", "vm_count": 501}
    )
    assert template_problems([bad]) == [
        f"{plan.name}: vm_count=501: outside the range 1..500",
        f"{plan.name}: test_rw='trim': not one of "
        "['read', 'write', 'randread', 'randwrite', 'rw', 'readwrite', 'randrw']",
    ]


def test_a_parameter_the_template_lacks_and_a_missing_file_are_named(tmp_path):
    shutil.copytree(TEMPLATE.parent, tmp_path / "cinder-fio")
    (tmp_path / "cinder-fio" / "agent.sh").unlink()
    [plan, *_] = _plans()
    extra = dataclasses.replace(plan, parameters={**plan.parameters, "colour": "blue"})
    problems = template_problems([extra], tmp_path / "cinder-fio" / "main.yaml")
    assert problems == [
        f"{tmp_path / 'cinder-fio' / 'agent.sh'}: named by the templates but not there",
        f"{plan.name}: parameter colour is not in main.yaml",
    ]


@pytest.mark.parametrize(
    ("value", "definition", "problems"),
    [
        (5, {"constraints": [{"range": {"min": 1, "max": 10}}]}, []),
        (0, {"constraints": [{"range": {"min": 1}}]}, ["outside the range 1..None"]),
        ("4k", {"constraints": [{"allowed_pattern": "^[0-9]+[kKmM]?$"}]}, []),
        (
            "4kb",
            {"constraints": [{"allowed_pattern": "[0-9]+[kKmM]?"}]},
            ["does not match '[0-9]+[kKmM]?'"],
        ),
        ("ab", {"constraints": [{"length": {"max": 1}}]}, ["length outside None..1"]),
        ("x", {"constraints": [{"custom_constraint": "glance.image"}]}, []),
        ("x", {}, []),
    ],
)
def test_constraints_as_heat_reads_them(value, definition, problems):
    assert constraint_problems(value, definition) == problems
