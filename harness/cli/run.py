"""`volperf run` and `volperf collect`: a campaign run (from a spec or a built-in
profile, the command line's options applied to it), and one made of results volperf did
not start."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from harness.campaign import profiles
from harness.cli.common import (
    EXIT_FAILED,
    EXIT_INTERRUPTED,
    EXIT_USAGE,
    cloud_option,
    clouds_yaml_option,
    print_json,
    results_option,
)
from harness.cli.console import console
from harness.cli.run_options import DEFAULT_PROFILE, RunOptions, spec_of

if TYPE_CHECKING:
    from harness.campaign.run import CampaignOutcome


@click.command()
@click.argument("what", metavar="SPEC.yaml|local|rbd|k8s|rally|heat")
@click.argument(
    "cloud_spec",
    metavar="[SPEC.yaml]",
    required=False,
    type=click.Path(path_type=Path, dir_okay=False),
)
@click.option(
    "--dir",
    "directory",
    type=click.Path(path_type=Path),
    help="local target: directory (or, with --allow-device, block device) under test",
)
@click.option(
    "--profile",
    type=click.Choice(profiles.names()),
    default=None,
    help=f"run local|rbd|k8s: built-in workload profile (default {DEFAULT_PROFILE})",
)
@click.option(
    "--name",
    help="campaign name instead of the spec's (a profile's default: PROFILE-YYYYmmdd-HHMMSS)",
)
@results_option
@click.option("--runtime", type=int, help="override every workload's runtime (s)")
@click.option("--size", help="override every consumer's file size, fio and fileio (e.g. 4G)")
@click.option("--sweep", help="consumer counts instead of the spec's or profile's, e.g. 1,2,4")
@click.option(
    "--set",
    "settings",
    multiple=True,
    metavar="KEY=VALUE",
    help="set KEY of every workload that has it (e.g. scale=1, threads=[1,4])",
)
@click.option(
    "--allow-device", is_flag=True, help="local target: let fio write to a raw block device"
)
@click.option(
    "--allow-existing",
    is_flag=True,
    help="local, hosts target: let fio overwrite files volperf did not create",
)
@click.option(
    "--prefill/--no-prefill",
    default=None,
    help="write every block once before measuring (default: the spec's or profile's)",
)
@click.option(
    "--ceph-conf",
    type=click.Path(path_type=Path, dir_okay=False),
    help="rbd, openstack target: ceph.conf (default $CEPH_CONF, the Ceph testbed's, "
    "/etc/ceph/ceph.conf)",
)
@click.option("--ceph-user", help="rbd, openstack target: cephx user (default admin)")
@click.option("--pool", help="rbd target: pool for the images (default volumes)")
@click.option("--storage-class", help="k8s target: StorageClass of the PVCs volperf creates")
@click.option(
    "--kubeconfig",
    type=click.Path(path_type=Path, dir_okay=False),
    help="k8s target: kubeconfig (default $KUBECONFIG, the k8s testbed's, ~/.kube/config)",
)
@cloud_option
@clouds_yaml_option
@click.option("--json", "as_json", is_flag=True, help="print the summary as JSON on stdout")
@click.option(
    "--dry-run",
    is_flag=True,
    help="print the spec the campaign would run (every option applied, as campaign.yaml "
    "keeps it) and run nothing",
)
def run(
    what: str,
    cloud_spec: Path | None,
    profile: str | None,
    name: str | None,
    results: Path,
    runtime: int | None,
    size: str | None,
    sweep: str | None,
    settings: tuple[str, ...],
    prefill: bool | None,
    as_json: bool,
    dry_run: bool,
    **target: Any,
) -> None:
    """Run a campaign from SPEC.yaml, or from a built-in profile: `run local --dir DIR`
    on a directory, `run rbd` on RBD images (--ceph-conf, --ceph-user, --pool), `run k8s
    --storage-class CLASS` on PVCs of a Kubernetes cluster (--kubeconfig);
    `run rally SPEC.yaml` sweeps a Rally task over concurrencies on an OpenStack cloud,
    `run heat SPEC.yaml` runs fio in VMs Heat creates there, N VMs per step.

    Every option given overrides the spec's field (--name its name, --cloud its
    target's cloud, --runtime every workload's runtime, …); one the campaign's target
    does not have (--storage-class on a local target) is refused.

    Re-running an interrupted campaign (same spec, same --name) resumes at the first
    step not done.
    """
    from harness.campaign.run import run_campaign
    from harness.cli.display import RichDisplay
    from harness.core.redact import redact
    from harness.core.spec import SpecError
    from harness.core.store import CampaignError
    from harness.planes.base import TargetError
    from harness.planes.ceph.access import resolve
    from harness.planes.registry import make_target

    options = RunOptions(
        what=what,
        cloud_spec=cloud_spec,
        profile=profile,
        name=name,
        runtime=runtime,
        size=size,
        sweep=sweep,
        settings=settings,
        prefill=prefill,
        target=target,
    )
    try:
        spec = resolve(spec_of(options))
        if dry_run:
            saved = redact(spec.to_dict())
            if as_json:
                print_json(saved)
            else:
                import yaml

                click.echo(yaml.safe_dump(saved, sort_keys=False), nl=False)
            return
        outcome = run_campaign(spec, results, make_target, RichDisplay(console()))
    except (SpecError, CampaignError, TargetError) as exc:
        console().print(f"[red]error:[/] {exc}", highlight=False)
        sys.exit(EXIT_USAGE)
    _report(outcome, as_json)


def _report(outcome: CampaignOutcome, as_json: bool) -> None:
    from harness.campaign.results import record_files
    from harness.cli.display import summary_tables

    steps = [r.summary for r in outcome.results]
    if as_json:
        print_json(json.loads((outcome.store.root / "summary.json").read_text()))
    else:
        for table in summary_tables(steps, f"campaign {outcome.store.name}"):
            console().print(table)
        for s in steps:
            for w in s.get("warnings", []):
                console().print(f"[yellow]warning[/] {s['step']}: {w['message']}", highlight=False)
    kept = [line for line in outcome.removed if line.startswith("NOT removed")]
    if len(outcome.removed) > len(kept):
        console().print(
            f"removed {len(outcome.removed) - len(kept)} resources it made "
            "(files, directories, servers, RBD images, stacks)"
        )
    for line in kept:
        console().print(f"[yellow]warning[/] {line}", highlight=False)
    made = [n for n in record_files() if (outcome.store.root / n).exists()]
    console().print(f"results: {outcome.store.root}/ ({', '.join(made)})")
    for ended in outcome.ended_sweeps:
        console().print(f"sweep ended: {ended}", highlight=False)
    if outcome.interrupted:
        console().print("[yellow]interrupted[/]: run the same command again to resume")
        sys.exit(EXIT_INTERRUPTED)
    if outcome.failed_steps:
        console().print(f"[red]failed steps:[/] {', '.join(outcome.failed_steps)}")
        sys.exit(EXIT_FAILED)


@click.group()
def collect() -> None:
    """Make a campaign of results volperf did not start (e.g. a stack made by hand)."""


@collect.command("heat")
@click.option(
    "--stack",
    "stack_name",
    required=True,
    help="the heat_templates/cinder-fio stack (`openstack stack create`)",
)
@cloud_option
@clouds_yaml_option
@click.option("--name", help="campaign name (default heat-STACK)")
@results_option
@click.option("--json", "as_json", is_flag=True, help="print the summary as JSON on stdout")
def collect_heat(
    stack_name: str,
    cloud: str | None,
    clouds_yaml: Path | None,
    name: str | None,
    results: Path,
    as_json: bool,
) -> None:
    """Wait until STACK's VMs have answered, then keep its parameters, Heat's answers and
    every VM's fio result as a one-step campaign (fio.csv, events.csv); the stack is left
    as it is."""
    from harness.campaign.run import run_campaign
    from harness.cli.display import RichDisplay
    from harness.core.spec import OpenStackTarget, SpecError
    from harness.core.store import CampaignError
    from harness.planes.base import TargetError
    from harness.planes.cloud import connect
    from harness.planes.heat.target import HeatCollectTarget, collected_spec

    options = OpenStackTarget(
        type="openstack",
        cloud=cloud or OpenStackTarget.model_fields["cloud"].default,
        clouds_yaml=clouds_yaml,
    )
    cloud_entry = {"cloud": options.cloud, "clouds_yaml": str(clouds_yaml) if clouds_yaml else None}
    try:
        spec, path = collected_spec(
            connect(options), stack_name, name or f"heat-{stack_name}", cloud_entry
        )
        outcome = run_campaign(
            spec, results, lambda s: HeatCollectTarget(s, path), RichDisplay(console())
        )
    except (SpecError, CampaignError, TargetError) as exc:
        console().print(f"[red]error:[/] {exc}", highlight=False)
        sys.exit(EXIT_USAGE)
    _report(outcome, as_json)
