"""`volperf spec`: the spec's JSON Schema, for editors and other tools, and checking spec
files without running them."""

from __future__ import annotations

import json
from pathlib import Path

import click


def schema() -> dict:
    """The JSON Schema of a campaign spec file (JSON Schema 2020-12), titled."""
    from harness.core.spec import CampaignSpec

    document = CampaignSpec.model_json_schema()
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "volperf campaign spec",
        **{k: v for k, v in document.items() if k != "title"},
    }


def check(path: Path) -> str:
    """One line on a valid spec file (and a line for each warning of a capacity search);
    SpecError (or TargetError) naming what is wrong."""
    from harness.campaign.capacity import warnings_of
    from harness.core import spec as spec_module
    from harness.core.plan import plan_steps
    from harness.core.workloads.registry import family_of
    from harness.planes.base import TargetError
    from harness.planes.heat.parameters import TEMPLATE, stack_plans
    from harness.planes.heat.template import template_problems
    from harness.planes.rally.target import task_file

    spec = spec_module.load(path)
    for workload in spec.workloads:
        if family_of(workload) == "rally":
            task_file(workload.task)  # a task of rally_plugins/tasks, or a file that exists
    steps = plan_steps(spec)
    heat = getattr(spec.target, "heat", None)
    fio_steps = [s for s in steps if family_of(s.workload) == "fio"]
    checked = ""
    if heat is not None and fio_steps:
        plans = [plan for s in fio_steps for plan in stack_plans(spec.name, s, heat)]
        problems = template_problems(plans)
        if problems:
            raise TargetError("the Heat template refuses: " + "; ".join(problems))
        checked = f", {len(plans)} Heat stacks of {TEMPLATE} checked"
    if spec.search is not None:
        warned = [
            f"\n  warning: {w.name}: {said}"
            for w in spec.workloads
            for said in warnings_of(spec, w.name)
        ]
        return (
            f"{path}: valid: campaign {spec.name!r}, target type {spec.target.type}, "
            f"{len(spec.workloads)} workloads, each a capacity search from "
            f"{min(spec.counts)} to {max(spec.counts)} consumers at its rate_iops"
        ) + "".join(warned)
    consumers = sum(len(s.consumers) for s in steps)
    at_most = "at most " if spec.stop_when is not None else ""
    return (
        f"{path}: valid: campaign {spec.name!r}, target type {spec.target.type}, "
        f"{len(spec.workloads)} workloads, {at_most}{len(steps)} steps ({consumers} "
        "consumers in all)" + checked
    )


@click.group("spec")
def spec_group() -> None:
    """Campaign spec files: their JSON Schema, and checking them without running them."""


@spec_group.command("schema")
def print_schema() -> None:
    """Print the JSON Schema of spec files (every field, type, default and constraint),
    for an editor's YAML language server or any JSON Schema validator."""
    click.echo(json.dumps(schema(), indent=2))


@spec_group.command("check")
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
def check_specs(paths: tuple[Path, ...]) -> None:
    """Check SPEC.yaml files as `volperf run` would before running them (fields, values,
    the workloads the target can run, the steps they make, Rally task files, the Heat
    template against every stack's parameters), without touching any storage or cloud.
    Exits 1 if any is not valid."""
    from harness.core.spec import SpecError
    from harness.planes.base import TargetError

    invalid = 0
    for path in paths:
        try:
            click.echo(check(path))
        except SpecError as exc:
            invalid += 1
            click.echo(str(exc), err=True)
        except TargetError as exc:
            invalid += 1
            click.echo(f"{path}: invalid campaign spec: {exc}", err=True)
    if invalid:
        raise SystemExit(1)
