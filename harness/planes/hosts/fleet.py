"""A fleet of hosts that each run ``fio --server``: where each consumer of a step runs
and does its I/O, and the small fio jobs volperf sends through fio's client to look at
and remove its files there (it has no other way into the hosts)."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from harness.core.plan import ConsumerPlan
from harness.core.spec import FioHost
from harness.tools.fio.parse import FioParseError, parse_file
from harness.tools.fio.render import JobTarget
from harness.tools.fio.run import run_fio

KIND = "host-file"  # created.json: a consumer's file on a host
PLACEMENT = "hosts.json"  # raw/: which host each consumer ran on
PROBE_TIMEOUT_S = 120


def server(host: FioHost) -> str:
    """The host as fio's client is told it: ``ADDRESS,PORT``."""
    return f"{host.address},{host.port}"


def reported_name(host: FioHost) -> str:
    """The host as fio's client names it in its JSON (hostname) and its logs' names."""
    return (
        host.address.split(":", 1)[1] if host.address.startswith(("ip:", "ip6:")) else host.address
    )


@dataclass(frozen=True)
class Placed:
    """One consumer of a step on its host."""

    consumer: ConsumerPlan
    host: FioHost
    filename: str  # on the host
    position: int  # its place in the step (start_stagger counts it)

    @property
    def key(self) -> str:
        """Its file as created.json notes it."""
        return f"{server(self.host)}:{self.filename}"

    def job_target(self) -> JobTarget:
        return JobTarget(self.consumer.jobname, self.consumer.rw, self.filename)

    def prerun_output(self) -> Placed:
        """The file fio writes its job's exec_prerun output to (<jobname>.prerun.txt), in
        the host's dir, as a file of the consumer's."""
        name = f"{self.host.dir.rstrip('/')}/{self.consumer.jobname}.prerun.txt"
        return Placed(self.consumer, self.host, name, self.position)


def place(
    consumers: Sequence[ConsumerPlan], hosts: Sequence[FioHost], campaign: str
) -> list[Placed]:
    """Consumers over the hosts in turn, each with its own file in its host's dir."""
    placed = []
    for index, consumer in enumerate(consumers):
        host = hosts[index % len(hosts)]
        filename = f"{host.dir.rstrip('/')}/volperf-{campaign}-{consumer.name}.dat"
        placed.append(Placed(consumer, host, filename, index))
    return placed


def hosts_of(placed: Iterable[Placed]) -> dict[str, str]:
    """The servers the placed consumers are on, each with fio's name for it."""
    return {server(p.host): reported_name(p.host) for p in placed}


def file_stem(name: str) -> str:
    """A server's ``ADDRESS,PORT`` as part of a file name."""
    return name.replace(":", "_").replace(",", "_")


def by_host(placed: Iterable[Placed]) -> dict[str, list[Placed]]:
    """The placed consumers grouped by their host's server, in the hosts' order."""
    groups: dict[str, list[Placed]] = {}
    for p in placed:
        groups.setdefault(server(p.host), []).append(p)
    return groups


def write_placement(raw: Path, placed: Sequence[Placed]) -> None:
    """raw/hosts.json: each consumer's host, as the step's records need it."""
    entries = {
        p.consumer.jobname: {
            "consumer": p.consumer.name,
            "server": server(p.host),
            "host": reported_name(p.host),
            "filename": p.filename,
        }
        for p in placed
    }
    (raw / PLACEMENT).write_text(json.dumps(entries, indent=2) + "\n", encoding="utf-8")


def read_placement(raw: Path) -> dict[str, dict[str, str]]:
    return json.loads((raw / PLACEMENT).read_text(encoding="utf-8"))


def answered(out: Path) -> set[str]:
    """The hosts (fio's hostname) with at least one job in a client's output."""
    try:
        return {job.host for job in parse_file(out).jobs}
    except FioParseError:
        return set()


def unanswered(out: Path, err: Sequence[Path], hosts: dict[str, str]) -> dict[str, str]:
    """The servers (``ADDRESS,PORT`` -> fio's hostname) with no job in a client's output,
    and why, from what the client printed (``err``: its stderr files, first found first)."""
    done = answered(out)
    stderr = "\n".join(e.read_text(encoding="utf-8", errors="replace") for e in err if e.exists())
    return {name: _reason(stderr, name, host) for name, host in hosts.items() if host not in done}


def _reason(stderr: str, name: str, host: str) -> str:
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    said = [line for line in lines if host in line]
    connect = [line for line in lines if line.startswith("fio: connect:")]
    reason = "; ".join(dict.fromkeys(connect + said)) or "fio's client printed nothing about it"
    return f"its fio server at {name} did not answer ({reason})"


def _small_job(jobname: str, filename: str, unlink: bool) -> list[str]:
    lines = [f"[{jobname}]", f"filename={filename}"]
    return lines + (["unlink=1"] if unlink else [])


def _tiny_jobs(files: Sequence[str], unlink: bool) -> str:
    """Read one block of each file that exists (creating none), and remove it after if
    ``unlink``: what volperf can do on a host through its fio server."""
    lines = [
        "[global]",
        "ioengine=psync",
        "rw=read",
        "bs=4k",
        "size=4k",
        "allow_file_create=0",
    ]
    for index, filename in enumerate(files):
        lines += ["", *_small_job(f"volperf-file-{index}", filename, unlink)]
    return "\n".join(lines) + "\n"


def existing_files(
    groups: dict[str, list[Placed]],
    scratch: Path,
    stop: threading.Event,
    fio: str = "fio",
    unlink: bool = False,
) -> tuple[set[str], dict[str, str]]:
    """Which of the placed files exist on their hosts (fio read a block of each, or with
    ``unlink`` removed it after), and the servers that did not answer, with why."""
    scratch.mkdir(parents=True, exist_ok=True)
    servers = []
    for name, placed in groups.items():
        jobfile = scratch / f"{file_stem(name)}.fio"
        jobfile.write_text(_tiny_jobs([p.filename for p in placed], unlink), encoding="utf-8")
        servers.append((name, jobfile))
    out, err = scratch / "fio.out", scratch / "fio.err"
    run_fio(servers, out, err, PROBE_TIMEOUT_S, stop, fio)
    try:
        jobs = parse_file(out).jobs
    except FioParseError:
        jobs = ()
    hosts = {reported_name(placed[0].host): placed for placed in groups.values()}
    present = {
        hosts[job.host][int(job.jobname.rsplit("-", 1)[1])].key
        for job in jobs
        if job.host in hosts and job.read is not None and job.read.io_bytes
    }
    return present, unanswered(out, [err], hosts_of(p for group in groups.values() for p in group))
