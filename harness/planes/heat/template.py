"""heat_templates/cinder-fio checked without a cloud against what volperf would pass it:
every parameter volperf sets is declared, its value meets the template's own range,
length, allowed_values and allowed_pattern constraints (custom constraints such as
glance.image need the cloud: Heat checks them when the stack is created), and every file
the templates name (nested templates, get_file) is there."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import yaml

from harness.planes.heat.parameters import TEMPLATE, StackPlan


def _files(node: Any) -> Iterator[str]:
    """Files a template names: a resource type that is a template, and get_file."""
    if isinstance(node, dict):
        for key, value in node.items():
            named = key == "get_file" or (key == "type" and str(value).endswith(".yaml"))
            if named and isinstance(value, str):
                yield value
            else:
                yield from _files(value)
    elif isinstance(node, list):
        for item in node:
            yield from _files(item)


def constraint_problems(value: Any, definition: dict[str, Any]) -> list[str]:
    """What a value breaks of a parameter's constraints, in Heat's words for them."""
    problems = []
    for constraint in definition.get("constraints") or []:
        if "range" in constraint:
            low, high = constraint["range"].get("min"), constraint["range"].get("max")
            if (low is not None and value < low) or (high is not None and value > high):
                problems.append(f"outside the range {low}..{high}")
        if "length" in constraint:
            low, high = constraint["length"].get("min"), constraint["length"].get("max")
            if (low is not None and len(value) < low) or (high is not None and len(value) > high):
                problems.append(f"length outside {low}..{high}")
        if "allowed_values" in constraint and value not in constraint["allowed_values"]:
            problems.append(f"not one of {constraint['allowed_values']}")
        pattern = constraint.get("allowed_pattern")
        if pattern is not None and not re.match(pattern + "$", str(value)):
            problems.append(f"does not match {pattern!r}")
    return problems


def template_problems(plans: list[StackPlan], template: Path = TEMPLATE) -> list[str]:
    """Everything that would make Heat refuse these stacks before touching the cloud."""
    if not template.exists():
        return [f"{template}: no such Heat template"]
    problems, documents, todo = [], {}, [template]
    while todo:
        path = todo.pop()
        if path in documents:
            continue
        if not path.exists():
            problems.append(f"{path}: named by the templates but not there")
            continue
        documents[path] = yaml.safe_load(path.read_text()) if path.suffix == ".yaml" else None
        todo += [path.parent / name for name in _files(documents[path])]
    main = documents[template] or {}
    if "heat_template_version" not in main:
        problems.append(f"{template}: not a Heat template (no heat_template_version)")
    declared = main.get("parameters") or {}
    for plan in plans:
        for name, value in plan.parameters.items():
            if name not in declared:
                problems.append(f"{plan.name}: parameter {name} is not in {template.name}")
                continue
            for problem in constraint_problems(value, declared[name]):
                problems.append(f"{plan.name}: {name}={value!r}: {problem}")
    return problems
