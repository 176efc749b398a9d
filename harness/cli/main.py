"""The volperf command line."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from harness import __version__
from harness.campaign import profiles
from harness.cli.common import EXIT_FAILED, measured_store, print_json
from harness.cli.console import console
from harness.cli.pages import compare, history, report
from harness.cli.run import collect, run
from harness.cli.spec import spec_group
from harness.cli.testbed import testbed
from harness.core import secrets

# What a command needs beyond these it imports itself: `volperf --help` or `volperf testbed
# status` should not pay for pydantic's models, rich, matplotlib, openstacksdk and the
# Kubernetes client. The commands live by job: run and collect (run.py), the pages
# (pages.py: report, compare, history), testbeds, specs.


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


@main.command()
@click.argument("campaign", type=click.Path(path_type=Path, exists=True, file_okay=False))
@click.option("--json", "as_json", is_flag=True)
def reparse(campaign: Path, as_json: bool) -> None:
    """Rebuild fio.csv and summary.json of CAMPAIGN from its raw output."""
    from harness.campaign.rebuild import rebuild
    from harness.cli.display import summary_tables
    from harness.core.spec import SpecError
    from harness.planes.registry import csv_files

    store = measured_store(campaign)
    try:
        results = rebuild(store)
    except SpecError as exc:  # its spec names what this volperf does not know
        raise click.ClickException(str(exc)) from None
    steps = [r.summary for r in results]
    if as_json:
        print_json(json.loads((store.root / "summary.json").read_text()))
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

    store = measured_store(campaign)
    spec = spec_module.validate(store.read_campaign()["spec"], str(store.campaign_file))
    statuses = [store.read_status(step.id) for step in plan(spec, store)]
    if as_json:
        print_json([s.__dict__ for s in statuses])
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

    store = measured_store(campaign)
    with store.lock():
        removed = remove_created(store)
    lines, all_removed = told(removed)
    for line in lines:
        console().print(line, highlight=False)
    if not all_removed:
        sys.exit(EXIT_FAILED)


@main.command("profiles")
def list_profiles() -> None:
    """List the built-in profiles of `volperf run local`."""
    for name in profiles.names():
        data = profiles.load(name)
        workloads = ", ".join(w["name"] for w in data["workloads"][:4])
        more = "…" if len(data["workloads"]) > 4 else ""
        click.echo(f"{name}: sweep {data['sweep']}; workloads {workloads}{more}")


for command in (run, collect, report, compare, history, testbed, spec_group):
    main.add_command(command)

if __name__ == "__main__":
    main()
