"""`volperf testbed up|status|down NAME`: real backends on this machine."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import click
from rich.console import Console

from harness.testbeds import TestbedError, default_state_dir
from harness.testbeds.ceph import READY_TIMEOUT_S, CephTestbed, Ports

console = Console(stderr=True, width=None if sys.stderr.isatty() else 130)

name_argument = click.argument("name", type=click.Choice(["ceph"]))
state_option = click.option(
    "--state",
    type=click.Path(path_type=Path, file_okay=False),
    help="state directory (default $VOLPERF_STATE/NAME or ~/.local/state/volperf/testbeds/NAME)",
)


def _testbed(
    name: str, state: Path | None, osds: int | None = None, mon_port: int | None = None
) -> CephTestbed:
    ports = Ports.from_mon_port(mon_port) if mon_port else None
    return CephTestbed(state or default_state_dir(name), osds=osds, ports=ports)


def _say(line: str) -> None:
    console.print(line, highlight=False, markup=False)


@click.group()
def testbed() -> None:
    """Bring real backends up on this machine, for volperf's tests and for trying it out."""


@testbed.command()
@name_argument
@click.option("--osds", type=click.Choice(["1", "3"]), help="OSDs of a new testbed  [default: 1]")
@state_option
@click.option("--timeout", type=int, default=READY_TIMEOUT_S, show_default=True,
              help="seconds to wait for the cluster to be ready")  # fmt: skip
@click.option("--mon-port", type=click.IntRange(1024, 65000),
              help=f"ceph: the monitor's v2 port (default {Ports.mon_v2}); v1 is the next one, "
              "the other daemons bind 100 to 300 above it")  # fmt: skip
def up(name: str, osds: str | None, state: Path | None, timeout: int, mon_port: int | None) -> None:
    """Start NAME (create it first if its state directory is new) and wait until ready."""
    bed = _testbed(name, state, int(osds) if osds else None, mon_port)
    started = time.monotonic()
    try:
        bed.up(_say, timeout)
    except TestbedError as exc:
        console.print(f"[red]error:[/] {exc}", highlight=False)
        if bed.marker.exists():
            _say(f"`volperf testbed down ceph --purge --state {bed.state}` removes what was made")
        sys.exit(1)
    _say(f"ceph testbed ready in {time.monotonic() - started:.1f} s; state in {bed.state}")
    _say("use it:")
    for line in bed.usage():
        _say(f"  {line}")


@testbed.command()
@name_argument
@state_option
@click.option("--json", "as_json", is_flag=True)
def status(name: str, state: Path | None, as_json: bool) -> None:
    """Daemons, memory and health of NAME; exit status 0 only when it is ready."""
    report = _testbed(name, state).status()
    if as_json:
        click.echo(json.dumps(report, indent=2))
    elif not report["exists"]:
        _say(f"no ceph testbed in {report['state']}")
    else:
        _say(f"ceph testbed in {report['state']} ({report['osds']} OSD(s)), conf {report['conf']}")
        for d in report["daemons"]:
            memory = f", RSS {d['VmRSS'] / 1024:.0f} MiB (peak {d['VmHWM'] / 1024:.0f})" if d.get(
                "VmRSS") else ""  # fmt: skip
            _say(f"  {d['name']}: " + (f"pid {d['pid']}{memory}" if d["pid"] else "not running"))
        _say(f"  health: {report.get('health', 'daemons not running')}")
        for code, message in report.get("checks", {}).items():
            _say(f"    {code}: {message}")
    sys.exit(0 if report["ready"] else 1)


@testbed.command()
@name_argument
@state_option
@click.option("--purge", is_flag=True, help="also delete the state directory (data, keys)")
def down(name: str, state: Path | None, purge: bool) -> None:
    """Stop NAME's daemons (by their pid files); --purge removes its state as well."""
    bed = _testbed(name, state)
    try:
        stopped = bed.down(purge, _say)
    except TestbedError as exc:
        console.print(f"[red]error:[/] {exc}", highlight=False)
        sys.exit(1)
    _say(f"{len(stopped)} daemon(s) stopped")
