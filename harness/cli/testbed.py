"""`volperf testbed up|status|down NAME`: real backends on this machine."""

from __future__ import annotations

import importlib
import json
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import click

from harness.cli.console import console, say
from harness.testbeds import TestbedError, default_state_dir
from harness.testbeds.base import Testbed, TestbedOptions
from harness.testbeds.ceph_ports import Ports

# each testbed's module and class, imported only by a command that uses it (the
# Kubernetes one alone would double the start of every other command)
TESTBEDS = {
    "ceph": ("harness.testbeds.ceph", "CephTestbed"),
    "openstack": ("harness.testbeds.openstack.testbed", "OpenStackTestbed"),
    "k8s": ("harness.testbeds.k8s.testbed", "K8sTestbed"),
}


def _module(name: str) -> ModuleType:
    return importlib.import_module(TESTBEDS[name][0])


def _class(name: str) -> type[Testbed]:
    return getattr(_module(name), TESTBEDS[name][1])


name_argument = click.argument("name", type=click.Choice(list(TESTBEDS)))
state_option = click.option(
    "--state",
    type=click.Path(path_type=Path, file_okay=False),
    help="state directory (default $VOLPERF_STATE/NAME or ~/.local/state/volperf/testbeds/NAME)",
)


def _testbed(name: str, state: Path | None, options: TestbedOptions | None = None) -> Any:
    """The testbed ``name`` in ``state`` (Any: crash-node and guest-runner use methods of
    one testbed alone)."""
    return _class(name).from_options(state or default_state_dir(name), options or TestbedOptions())


@click.group()
def testbed() -> None:
    """Bring real backends up on this machine, for volperf's tests and for trying it out."""


@testbed.command()
@name_argument
@click.option("--osds", type=click.Choice(["1", "3"]), help="OSDs of a new testbed  [default: 1]")
@state_option
@click.option(
    "--timeout",
    type=click.IntRange(1),
    help="seconds each wait for readiness (a "
    "daemon, an API, the node, the cluster's health) may take from when it starts; "
    "builds (Kubernetes, images, the OpenStack venv) have their own limits and say "
    "how they go  [default: ceph 300, openstack 600, k8s 300]",
)
@click.option(
    "--mon-port",
    type=click.IntRange(1024, 65000),
    help=f"ceph: the monitor's v2 port (default {Ports.mon_v2}); v1 is the next one, "
    "the other daemons bind 100 to 300 above it",
)
@click.option(
    "--ceph-state",
    type=click.Path(path_type=Path, file_okay=False),
    help="openstack: the Ceph testbed Cinder uses (brought up if it is not running)  "
    "[default: the default ceph state dir]; k8s: a Ceph testbed whose CephFS, mounted "
    "with ceph-fuse, backs the class ceph-fs (brought up, CephFS added, if need be; "
    "kept by the testbed)  [default: none, no ceph-fs]",
)
@click.option(
    "--cephfs",
    is_flag=True,
    help="ceph: add an MDS and the CephFS `volperf` (kept by the testbed once added)",
)
@click.option(
    "--base-port",
    type=click.IntRange(1024, 65000),
    help="openstack: first of its ten loopback ports  [default: 21000]; k8s: first "
    "of its nine  [default: 23000]",
)
@click.option(
    "--static-pvs",
    type=click.IntRange(1, 480),
    help="k8s: pre-made local PVs of the local-static class, one a PVC (the node holds "
    "500 pods): 260 for 250 namespaces  [default: the number it was made with, else 40]",
)
@click.option(
    "--nodes",
    type=click.IntRange(1, 2),
    help="k8s: nodes, each its own kubelet and containerd on this machine; fewer than "
    "the testbed has removes the others  [default: the number it has, else 1]",
)
@click.option(
    "--guests",
    type=click.Choice(["stand-in", "real"]),
    help="openstack: how the data plane's VMs run: real (Nova's libvirt driver boots "
    "guests, KVM where a probe boot works, else QEMU's emulated CPU; volumes attached by "
    "QEMU's librbd) or stand-in (Nova's fake driver; the local guest runner runs each "
    "VM's agent on this host)  [default: what the testbed was made with, else stand-in]",
)
def up(
    name: str,
    osds: str | None,
    state: Path | None,
    timeout: int | None,
    mon_port: int | None,
    ceph_state: Path | None,
    base_port: int | None,
    static_pvs: int | None,
    cephfs: bool,
    nodes: int | None,
    guests: str | None,
) -> None:
    """Start NAME (create it first if its state directory is new) and wait until ready."""
    options = TestbedOptions(
        int(osds) if osds else None,
        mon_port,
        cephfs,
        ceph_state,
        base_port,
        static_pvs,
        nodes,
        guests,
    )
    bed = _testbed(name, state, options)
    started = time.monotonic()
    # Ctrl-C (or kill -INT) stops a bring-up cleanly even where the shell started volperf
    # with SIGINT ignored, as it does a script's background job (`volperf run` has its own
    # handler); Python raises KeyboardInterrupt only if SIGINT was not ignored at start
    signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        bed.up(say, timeout or _module(name).READY_TIMEOUT_S)
    except (TestbedError, KeyboardInterrupt) as exc:
        message = "interrupted" if isinstance(exc, KeyboardInterrupt) else str(exc)
        console().print(f"[red]error:[/] {message}", highlight=False)
        if bed.marker.exists():
            say(f"`volperf testbed down {name} --purge --state {bed.state}` removes what was made")
        sys.exit(130 if isinstance(exc, KeyboardInterrupt) else 1)
    say(f"{name} testbed ready in {time.monotonic() - started:.1f} s; state in {bed.state}")
    say("use it:")
    for line in bed.usage():  # commands to copy: never broken across lines
        console().print(f"  {line}", highlight=False, markup=False, soft_wrap=True)


@testbed.command()
@name_argument
def build(name: str) -> None:
    """Build what NAME runs that is not a Debian package into volperf's cache
    (~/.cache/volperf), starting nothing: the Kubernetes programs and images, the
    OpenStack services' venv. `up` builds what is missing itself; this does it ahead, for
    example while other work runs. A build another process has begun is waited for."""
    started = time.monotonic()
    try:
        _class(name).build(say)
    except (TestbedError, KeyboardInterrupt) as exc:
        message = "interrupted" if isinstance(exc, KeyboardInterrupt) else str(exc)
        console().print(f"[red]error:[/] {message}", highlight=False)
        sys.exit(130 if isinstance(exc, KeyboardInterrupt) else 1)
    say(f"{name} testbed's builds ready in {time.monotonic() - started:.0f} s")


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
        say(f"no {name} testbed in {report['state']}")
    elif name in ("openstack", "k8s"):
        _services_status(name, report)
    else:
        say(f"ceph testbed in {report['state']} ({report['osds']} OSD(s)), conf {report['conf']}")
        for d in report["daemons"]:
            memory = (
                f", RSS {d['VmRSS'] / 1024:.0f} MiB (peak {d['VmHWM'] / 1024:.0f})"
                if d.get("VmRSS")
                else ""
            )
            say(f"  {d['name']}: " + (f"pid {d['pid']}{memory}" if d["pid"] else "not running"))
        say(f"  health: {report.get('health', 'daemons not running')}")
        for code, message in report.get("checks", {}).items():
            say(f"    {code}: {message}")
    sys.exit(0 if report["ready"] else 1)


def _services_status(name: str, report: dict) -> None:
    client_file = report.get("clouds_yaml") or report.get("kubeconfig")
    say(f"{name} testbed in {report['state']}; client file {client_file}")
    total = 0
    for d in report["daemons"]:
        total += d["rss_kib"]
        running = f"pid {d['pid']}, RSS {d['rss_kib'] / 1024:.0f} MiB" if d["pid"] else None
        say(f"  {d['name']}: {running or 'not running'}")
    say(f"  memory: {total / 1024:.0f} MiB RSS in all (workers included)")
    if report.get("guests_words"):
        say(f"  guests: {report['guests_words']}")
    for name in report.get("services_down", []):
        say(f"  not up: {name}")


@testbed.command()
@name_argument
@state_option
@click.option("--purge", is_flag=True, help="also delete the state directory (data, keys)")
def down(name: str, state: Path | None, purge: bool) -> None:
    """Stop NAME's daemons (by their pid files); --purge removes its state as well."""
    bed = _testbed(name, state)
    try:
        stopped = bed.down(purge, say)
    except TestbedError as exc:
        console().print(f"[red]error:[/] {exc}", highlight=False)
        sys.exit(1)
    say(f"{len(stopped)} daemon(s) stopped")


def _fault(name: str, state: Path | None, give: Callable[[Any], None]) -> None:
    """A fault given to the testbed that is there (crash-node, stop-service), its
    refusal said as an error."""
    bed = _testbed(name, state)
    if not bed.marker.exists():
        console().print(f"[red]error:[/] no {name} testbed in {bed.state}", highlight=False)
        sys.exit(1)
    try:
        give(bed)
    except TestbedError as exc:
        console().print(f"[red]error:[/] {exc}", highlight=False)
        sys.exit(1)


@testbed.command("crash-node")
@click.argument("name", type=click.Choice(["k8s"]))
@click.argument("node")
@state_option
def crash_node(name: str, node: str, state: Path | None) -> None:
    """Crash NODE of the k8s testbed, as a power loss would: its kubelet, container
    runtime and pods killed at once (for the migration workload's failure: crash).
    `volperf testbed up k8s` brings it back."""
    _fault(name, state, lambda bed: bed.crash_node(node, say))


@testbed.command("stop-service")
@click.argument("name", type=click.Choice(["openstack"]))
@click.argument("service")
@state_option
def stop_service(name: str, service: str, state: Path | None) -> None:
    """Stop SERVICE of the OpenStack testbed (cinder-volume, cinder-scheduler,
    cinder-backup) as `systemctl stop` would, for a fault during a step. `volperf
    testbed up openstack` starts it again."""
    _fault(name, state, lambda bed: bed.stop_service(service, say))


@testbed.command("guest-runner")
@state_option
@click.option(
    "--once",
    is_flag=True,
    help="run the agents of the servers ready now, in the foreground, and exit when they end",
)
@click.option("--stop", is_flag=True, help="stop the runner `testbed up openstack` started")
def guest_runner(state: Path | None, once: bool, stop: bool) -> None:
    """The OpenStack testbed's local guest runner, a TEST STAND-IN for VMs: Nova's fake virt
    driver boots no guest, so this runs each cinder-fio server's own user_data agent on this
    host, on the server's Cinder volume through fio's rbd engine, and the agent signals the
    real Heat. `testbed up openstack` starts it; --stop stops it, --once runs it on demand."""
    bed = _testbed("openstack", state)
    if not bed.marker.exists():
        console().print(f"[red]error:[/] no OpenStack testbed in {bed.state}", highlight=False)
        sys.exit(1)
    if stop:
        say("guest runner stopped" if bed.stop_guest_runner() else "guest runner was not running")
    elif once:
        command = _module("openstack").guest_runner_command(bed.state, once=True)
        sys.exit(subprocess.call(command))
    else:
        bed.start_guest_runner(say)
