"""The volperf command line."""

from __future__ import annotations

import json
import re
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from harness import __version__
from harness.campaign import profiles
from harness.cli.console import console
from harness.cli.spec import spec_group
from harness.cli.testbed import testbed
from harness.core import secrets
from harness.records.thresholds import HISTORY_THRESHOLD, TOLERANCE

if TYPE_CHECKING:
    from harness.campaign.run import CampaignOutcome
    from harness.core.spec import CampaignSpec
    from harness.core.store import CampaignStore

# What a command needs beyond these it imports itself: `volperf --help` or `volperf testbed
# status` should not pay for pydantic's models, rich, matplotlib, openstacksdk and the
# Kubernetes client.
EXIT_FAILED, EXIT_USAGE, EXIT_INTERRUPTED = 1, 2, 130


def _campaign(path: Path) -> CampaignStore:
    from harness.core.store import CampaignStore

    store = CampaignStore(path)
    if not store.exists():
        raise click.ClickException(f"{path}: not a campaign directory (no campaign.yaml)")
    return store


def _measured(path: Path) -> CampaignStore:
    store = _campaign(path)
    if store.read_campaign().get("reference"):
        raise click.ClickException(
            f"{path} is a reference campaign (published figures, no raw output): "
            "nothing to run, reparse or clean; use it with `volperf report` or `compare`"
        )
    return store


def _print_json(data: Any) -> None:
    click.echo(json.dumps(data, indent=2))


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="volperf")
def main() -> None:
    """volperf: measure block storage with fio, Rally, Heat and Kubernetes."""
    # Secrets in the environment (OS_PASSWORD, OS_TOKEN, ...) are redacted by value in
    # everything volperf writes, and so is every secret it reads later (clouds.yaml,
    # keyrings, kubeconfig, passwords it makes); its own output passes through the same.
    secrets.register_environment()
    if not isinstance(sys.stdout, secrets.RedactingStream):
        sys.stdout = secrets.RedactingStream(sys.stdout)
    if not isinstance(sys.stderr, secrets.RedactingStream):
        sys.stderr = secrets.RedactingStream(sys.stderr)


cloud_option = click.option(
    "--cloud", help="rally, heat: the cloud's name in clouds.yaml (instead of the spec's)"
)
clouds_yaml_option = click.option(
    "--clouds-yaml",
    type=click.Path(path_type=Path, dir_okay=False),
    help="rally, heat: clouds.yaml to read (default $OS_CLIENT_CONFIG_FILE, the usual places, "
    "the OpenStack testbed's)",
)
results_option = click.option(
    "--results",
    type=click.Path(path_type=Path),
    default=Path("results"),
    show_default=True,
    help="where campaigns are stored",
)


@main.command()
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
    help="local: directory (or, with --allow-device, block device) under test",
)
@click.option(
    "--profile",
    type=click.Choice(profiles.names()),
    default="quick",
    show_default=True,
    help="local, rbd, k8s: built-in workload profile",
)
@click.option("--name", help="campaign name (local default: PROFILE-YYYYmmdd-HHMMSS)")
@results_option
@click.option("--runtime", type=int, help="a profile: override every workload's runtime (s)")
@click.option(
    "--size", help="a profile: override every consumer's file size, fio and fileio (e.g. 4G)"
)
@click.option("--sweep", help="a profile: consumer counts instead of the profile's, e.g. 1,2,4")
@click.option(
    "--set",
    "settings",
    multiple=True,
    metavar="KEY=VALUE",
    help="a profile: set KEY of every workload that has it (e.g. scale=1, threads=[1,4])",
)
@click.option("--allow-device", is_flag=True, help="let fio write to a raw block device")
@click.option(
    "--allow-existing", is_flag=True, help="let fio overwrite files volperf did not create"
)
@click.option(
    "--prefill/--no-prefill",
    default=None,
    help="a profile: write every block once before measuring (default: the profile's)",
)
@click.option(
    "--ceph-conf",
    type=click.Path(path_type=Path, dir_okay=False),
    help="rbd: ceph.conf (default $CEPH_CONF, the Ceph testbed's, /etc/ceph/ceph.conf)",
)
@click.option("--ceph-user", default="admin", show_default=True, help="rbd: cephx user")
@click.option("--pool", default="volumes", show_default=True, help="rbd: pool for the images")
@click.option("--storage-class", help="k8s: StorageClass of the PVCs volperf creates")
@click.option(
    "--kubeconfig",
    type=click.Path(path_type=Path, dir_okay=False),
    help="k8s: kubeconfig (default $KUBECONFIG, the k8s testbed's, ~/.kube/config)",
)
@cloud_option
@clouds_yaml_option
@click.option("--json", "as_json", is_flag=True, help="print the summary as JSON on stdout")
def run(
    what: str,
    cloud_spec: Path | None,
    directory: Path | None,
    profile: str,
    name: str | None,
    results: Path,
    runtime: int | None,
    size: str | None,
    sweep: str | None,
    settings: tuple[str, ...],
    allow_device: bool,
    allow_existing: bool,
    prefill: bool | None,
    ceph_conf: Path | None,
    ceph_user: str,
    pool: str,
    storage_class: str | None,
    kubeconfig: Path | None,
    cloud: str | None,
    clouds_yaml: Path | None,
    as_json: bool,
) -> None:
    """Run a campaign from SPEC.yaml, or from a built-in profile: `run local --dir DIR`
    on a directory, `run rbd` on RBD images (--ceph-conf, --ceph-user, --pool), `run k8s
    --storage-class CLASS` on PVCs of a Kubernetes cluster (--kubeconfig);
    `run rally SPEC.yaml` sweeps a Rally task over concurrencies on an OpenStack cloud,
    `run heat SPEC.yaml` runs fio in VMs Heat creates there, N VMs per step (--cloud,
    --clouds-yaml override the spec's target).

    Re-running an interrupted campaign (same spec, same --name) resumes at the first
    step not done.
    """
    from harness.campaign.run import run_campaign
    from harness.cli.display import RichDisplay
    from harness.core import spec as spec_module
    from harness.core.spec import SpecError
    from harness.core.store import CampaignError
    from harness.planes.base import TargetError
    from harness.planes.ceph.access import resolve
    from harness.planes.registry import make_target

    overrides = {
        "runtime": runtime,
        "size": size,
        "sweep": sweep,
        "settings": settings
        + ((f"prefill={str(prefill).lower()}",) if prefill is not None else ()),
    }
    try:
        name = name or f"{profile}-{time.strftime('%Y%m%d-%H%M%S')}"
        if what == "local":
            if directory is None:
                raise click.UsageError("run local needs --dir DIR (the storage under test)")
            spec = profiles.local_spec(
                profile,
                directory,
                name,
                allow_device=allow_device,
                allow_existing=allow_existing,
                **overrides,
            )
        elif what == "rbd":
            target = {
                "type": "rbd",
                "ceph_conf": ceph_conf and str(ceph_conf.resolve()),
                "user": ceph_user,
                "pool": pool,
            }
            spec = profiles.profile_spec(profile, target, name, **overrides)
        elif what == "k8s":
            if not storage_class:
                raise click.UsageError("run k8s needs --storage-class CLASS (the class under test)")
            target = {"type": "k8s", "storage_class": storage_class}
            if kubeconfig is not None:
                target["kubeconfig"] = str(kubeconfig.resolve())
            spec = profiles.profile_spec(profile, target, name, **overrides)
        elif what in ("rally", "heat"):
            if cloud_spec is None:
                raise click.UsageError(f"run {what} needs SPEC.yaml (an openstack target)")
            spec = _cloud_spec(spec_module.load(cloud_spec), what, cloud, clouds_yaml)
        else:
            spec = spec_module.load(Path(what))
        spec = resolve(spec)
        outcome = run_campaign(spec, results, make_target, RichDisplay(console()))
    except (SpecError, CampaignError, TargetError) as exc:
        console().print(f"[red]error:[/] {exc}", highlight=False)
        sys.exit(EXIT_USAGE)
    _report(outcome, as_json)


def _cloud_spec(
    spec: CampaignSpec, what: str, cloud: str | None, clouds_yaml: Path | None
) -> CampaignSpec:
    from harness.core.spec import SpecError

    if spec.target.type != "openstack":
        raise SpecError(
            f"run {what}",
            [
                f"target: the spec's target is {spec.target.type!r}; "
                f"{what} runs on an openstack target"
            ],
        )
    tool = "rally" if what == "rally" else "fio"
    if not any(w.tool == tool for w in spec.workloads):
        raise SpecError(f"run {what}", [f"workloads: none has tool: {tool}"])
    update = {k: v for k, v in (("cloud", cloud), ("clouds_yaml", clouds_yaml)) if v}
    return spec.model_copy(update={"target": spec.target.model_copy(update=update)})


def _report(outcome: CampaignOutcome, as_json: bool) -> None:
    from harness.campaign.results import record_files
    from harness.cli.display import summary_tables

    steps = [r.summary for r in outcome.results]
    if as_json:
        _print_json(json.loads((outcome.store.root / "summary.json").read_text()))
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


@main.group()
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


@main.command()
@click.argument("campaign", type=click.Path(path_type=Path, exists=True, file_okay=False))
@click.option("--json", "as_json", is_flag=True)
def reparse(campaign: Path, as_json: bool) -> None:
    """Rebuild fio.csv and summary.json of CAMPAIGN from its raw output."""
    from harness.campaign.rebuild import rebuild
    from harness.cli.display import summary_tables
    from harness.core.spec import SpecError
    from harness.planes.registry import csv_files

    store = _measured(campaign)
    try:
        results = rebuild(store)
    except SpecError as exc:  # its spec names what this volperf does not know
        raise click.ClickException(str(exc)) from None
    steps = [r.summary for r in results]
    if as_json:
        _print_json(json.loads((store.root / "summary.json").read_text()))
        return
    for table in summary_tables(steps, f"campaign {store.name}"):
        console().print(table)
    counts = {
        "fio.csv": sum(len(r.records) for r in results),
        "db.csv": sum(len(r.db_records) for r in results),
    }
    for name in csv_files():
        counts[name] = sum(len(r.rows.get(name, [])) for r in results)
    rebuilt = [
        f"{name} ({rows} rows)" for name, rows in counts.items() if (store.root / name).exists()
    ]
    console().print(f"rebuilt in {store.root}/: {', '.join([*rebuilt, 'summary.json'])}")


@main.command()
@click.argument("campaign", type=click.Path(path_type=Path, exists=True, file_okay=False))
@click.option("--json", "as_json", is_flag=True)
def status(campaign: Path, as_json: bool) -> None:
    """Show the state of every step of CAMPAIGN."""
    from rich.table import Table

    from harness.campaign.capacity import plan
    from harness.core import spec as spec_module

    store = _measured(campaign)
    spec = spec_module.validate(store.read_campaign()["spec"], str(store.campaign_file))
    statuses = [store.read_status(step.id) for step in plan(spec, store)]
    if as_json:
        _print_json([s.__dict__ for s in statuses])
        return
    table = Table(title=f"campaign {store.name}", title_justify="left")
    for column in ("step", "state", "attempts", "duration", "error"):
        table.add_column(column)
    for s in statuses:
        duration = f"{s.finished - s.started:.1f} s" if s.started and s.finished else ""
        state = f"{s.state}, sweep ended" if s.ended_sweep else s.state
        table.add_row(s.step, state, str(s.attempts), duration, s.error or s.ended_sweep)
    console().print(table)
    if not all(s.settled for s in statuses):
        sys.exit(EXIT_FAILED)


@main.command()
@click.argument("campaign", type=click.Path(path_type=Path, exists=True, file_okay=False))
def cleanup(campaign: Path) -> None:
    """Remove what CAMPAIGN created that is still there (e.g. after a crash): files,
    directories, servers, RBD images (also those in its pool tagged with it); and undo
    the faults it left injected (an OSD left stopped is started, one left out marked in)."""
    from harness.campaign.cleanup import remove_created, told

    store = _measured(campaign)
    with store.lock():
        removed = remove_created(store)
    lines, all_removed = told(removed)
    for line in lines:
        console().print(line, highlight=False)
    if not all_removed:
        sys.exit(EXIT_FAILED)


CHECKOUT_DOCS = Path("doc/source")


def doc_options(command: Any) -> Any:
    """--doc-source and --build, as report, compare and history take them."""
    command = click.option(
        "--build",
        "build_dir",
        type=click.Path(path_type=Path, file_okay=False),
        default=None,
        help="then build the HTML documentation into this directory; without "
        "--doc-source (and outside a checkout) its Sphinx sources are kept beside it in "
        "DIR.source, so the pages of several campaigns make one site",
    )(command)
    return click.option(
        "--doc-source",
        type=click.Path(path_type=Path, file_okay=False),
        default=None,
        help="Sphinx source directory the pages are written into (default: doc/source "
        "of a checkout, else DIR.source of --build)",
    )(command)


def _doc_source(given: Path | None, build_dir: Path | None) -> Path:
    from harness.report.render import site_source

    if given is not None:
        if not (given / "conf.py").exists():
            raise click.ClickException(
                f"{given}: not a Sphinx source directory (no conf.py); give --doc-source"
            )
        return given
    if (CHECKOUT_DOCS / "conf.py").exists():
        return CHECKOUT_DOCS
    if build_dir is not None:
        return site_source(build_dir)
    raise click.ClickException(
        "no documentation to write the page into: give --build DIR (volperf makes a site "
        "there, its Sphinx sources in DIR.source) or --doc-source DIR of your own Sphinx "
        "project"
    )


def _publish(index: Path, doc_source: Path, build_dir: Path | None) -> None:
    """Say where the page is, and build the documentation into build_dir if given."""
    secrets.scrub_tree(index.parent)
    console().print(f"page: {index}", highlight=False)
    if build_dir is not None:
        _build(doc_source, build_dir, index.parent.relative_to(doc_source))
        secrets.scrub_tree(build_dir)


@main.command()
@click.argument("campaign", type=click.Path(path_type=Path, exists=True, file_okay=False))
@doc_options
def report(campaign: Path, doc_source: Path | None, build_dir: Path | None) -> None:
    """Write CAMPAIGN's page (tables, plots, warnings) into the documentation."""
    from harness.core.spec import SpecError
    from harness.report.render import write_report

    store = _campaign(campaign)
    source = _doc_source(doc_source, build_dir)
    try:
        page = write_report(store, source)
    except SpecError as exc:  # its spec names what this volperf does not know
        raise click.ClickException(str(exc)) from None
    _publish(page, source, build_dir)


def _build(doc_source: Path, build_dir: Path, page: Path) -> None:
    from harness.report.render import build_html

    console().print(f"building the documentation into {build_dir} …")
    result = build_html(doc_source, build_dir)
    if result.returncode != 0:
        console().print(result.stderr, highlight=False, markup=False)
        raise click.ClickException("the documentation did not build (Sphinx warnings above)")
    console().print(f"report: {build_dir / page / 'index.html'}", highlight=False)


@main.command()
@click.argument("baseline", type=click.Path(path_type=Path, exists=True, file_okay=False))
@click.argument(
    "others", nargs=-1, required=True, type=click.Path(path_type=Path, exists=True, file_okay=False)
)
@doc_options
@click.option("--no-page", is_flag=True, help="only print the tables")
@click.option("--json", "as_json", is_flag=True, help="differences, deltas, unmatched steps")
@click.option(
    "--accept-differences",
    is_flag=True,
    help="judge steps whose methods differ in meaning (block size, iodepth, rw, runtime "
    "by more than 2x, prefill, target type …) instead of marking them not comparable",
)
@click.option(
    "--tolerance",
    type=click.FloatRange(0, 100),
    default=TOLERANCE * 100,
    show_default=True,
    help="percent: the least change called better or worse, even when the noise allows less",
)
def compare(
    baseline: Path,
    others: tuple[Path, ...],
    doc_source: Path | None,
    build_dir: Path | None,
    no_page: bool,
    as_json: bool,
    accept_differences: bool,
    tolerance: float,
) -> None:
    """Relative deltas of OTHERS against BASELINE, metric by metric, after what differs
    in how their matched steps were measured."""
    from harness.cli.display import print_comparison
    from harness.records.compare import compare_campaigns
    from harness.report.comparison import write_comparison
    from harness.report.data import load as load_campaign

    base = load_campaign(_campaign(baseline))
    loaded = [load_campaign(_campaign(o)) for o in others]
    comparisons = [
        compare_campaigns(base.compared(), o.compared(), accept_differences, tolerance / 100)
        for o in loaded
    ]
    if as_json:
        _print_json({c.other: c.to_dict() for c in comparisons})
    else:
        for comparison in comparisons:
            print_comparison(console(), comparison)
    if not no_page:
        source = _doc_source(doc_source, build_dir)
        index = write_comparison(base.name, [o.name for o in loaded], comparisons, source)
        _publish(index, source, build_dir)


def _page_name(text: str) -> str:
    """A page name from a glob or campaign names: letters, digits, '.', '_' and '-'."""
    return re.sub(r"[^A-Za-z0-9_.-]+", "", text).strip("-._") or "campaigns"


@main.command()
@click.argument("campaigns", nargs=-1, type=click.Path(path_type=Path, file_okay=False))
@click.option(
    "--match",
    "pattern",
    help="campaigns under --results whose names match this glob (nightly-* and the like)",
)
@results_option
@click.option("--name", help="the history page's name (default: the pattern or the campaigns)")
@doc_options
@click.option(
    "--threshold",
    type=click.FloatRange(0, 1000),
    default=HISTORY_THRESHOLD * 100,
    show_default=True,
    help="percent: a change from the campaign before beyond this is flagged",
)
def history(
    campaigns: tuple[Path, ...],
    pattern: str | None,
    results: Path,
    name: str | None,
    doc_source: Path | None,
    build_dir: Path | None,
    threshold: float,
) -> None:
    """A page (and a CSV) of chosen figures across CAMPAIGNS (or --match) in the order
    they ran, with a plot per figure and the changes beyond --threshold flagged; each
    campaign's page links to it when `volperf report` writes it again."""
    from harness.records.change_points import MIN_CAMPAIGNS
    from harness.records.compare import percent
    from harness.report.data import load as load_campaign
    from harness.report.history import level_change_line, write_history

    paths = list(campaigns)
    if pattern:
        paths += sorted(p for p in results.glob(pattern) if (p / "campaign.yaml").exists())
    if len(paths) < 2:
        raise click.UsageError("history needs two campaigns or more (CAMPAIGN… or --match)")
    loaded = [load_campaign(_campaign(p)) for p in dict.fromkeys(paths)]
    name = name or _page_name(pattern or f"{loaded[0].name}-to-{loaded[-1].name}")
    source = _doc_source(doc_source, build_dir)
    index, series = write_history(name, loaded, source, threshold / 100)
    flagged = [(s, p) for s in series for p in s.flagged]
    for s, p in flagged:
        console().print(
            f"[yellow]{p.flag}[/] {s.key.title}: {p.campaign} {percent(p.change)}", highlight=False
        )
    levels = [(s, c) for s in series for c in s.level_changes]
    for s, c in levels:
        console().print(f"[bold]level {c.flag}[/] {level_change_line(s, c)}", highlight=False)
    searched = (
        f", {len(levels)} changes of level against each figure's noise"
        if len(loaded) >= MIN_CAMPAIGNS
        else f" (changes of level are searched from {MIN_CAMPAIGNS} campaigns on)"
    )
    console().print(
        f"{len(series)} figures over {len(loaded)} campaigns, {len(flagged)} changes beyond "
        f"±{threshold:g} % from the campaign before{searched}",
        highlight=False,
    )
    _publish(index, source, build_dir)


@main.command("profiles")
def list_profiles() -> None:
    """List the built-in profiles of `volperf run local`."""
    for name in profiles.names():
        data = profiles.load(name)
        workloads = ", ".join(w["name"] for w in data["workloads"][:4])
        more = "…" if len(data["workloads"]) > 4 else ""
        click.echo(f"{name}: sweep {data['sweep']}; workloads {workloads}{more}")


main.add_command(testbed)
main.add_command(spec_group)

if __name__ == "__main__":
    main()
