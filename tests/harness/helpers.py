"""Shared helpers for tests that run real fio campaigns."""

from __future__ import annotations

import contextlib
import csv
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.core.spec import CampaignSpec, validate
from harness.planes.ceph import images
from harness.planes.ceph.access import bindings

REPO = Path(__file__).parents[2]


def tiny_spec(directory: Path, name: str = "tiny", **overrides: Any) -> CampaignSpec:
    """A real but short campaign: 1 s steps on 8 MiB prefilled files."""
    workload = {
        "name": "randrw-4k",
        "rw": ["randread", "randwrite"],
        "bs": "4k",
        "iodepth": 8,
        "size": "8M",
        "runtime": 1,
        "prefill": True,
        **overrides.pop("workload", {}),
    }
    data = {
        "name": name,
        "target": {"type": "local", "dir": str(directory)},
        "workloads": [workload],
        "sweep": [1, 2],
        **overrides,
    }
    return validate(data)


@contextmanager
def small_ext4(work: Path, size: str = "24M") -> Iterator[Path]:
    """A file system of its own, ``size`` in all, on a loop device (root): a disk that
    fills up (O_DIRECT works there, unlike tmpfs), or a disk whose counters in
    /proc/diskstats see only the test's own I/O, whatever other tests do beside it (its
    inode tables and journal written by mkfs, not later in the background by the
    kernel's lazy init). Unmounted after."""
    image, mount = work / "disk.img", work / "disk"
    subprocess.run(["truncate", "-s", size, str(image)], check=True)
    eager = "lazy_itable_init=0,lazy_journal_init=0"
    subprocess.run(["mkfs.ext4", "-q", "-F", "-E", eager, str(image)], check=True)
    mount.mkdir()
    subprocess.run(["mount", "-o", "loop", str(image), str(mount)], check=True)
    try:
        yield mount
    finally:
        subprocess.run(["umount", str(mount)], check=True)


@contextmanager
def iops_limited(device: str, iops: int) -> Iterator[Path]:
    """A cgroup of its own whose I/O to ``device`` (MAJ:MIN) the kernel's block throttle
    holds to ``iops`` reads and ``iops`` writes a second (cgroup v1's
    blkio.throttle.*_iops_device, or v2's io.max, whichever this machine has): write a
    process's pid to its cgroup.procs and what it starts is held too. Removed after (a
    process still in it back in the parent first); on v2, the io controller enabled for
    it disabled again."""
    name = f"volperf-test-{os.getpid()}-{time.monotonic_ns()}"
    v1 = Path("/sys/fs/cgroup/blkio")
    enabled = None
    if (v1 / "blkio.throttle.read_iops_device").exists():
        group = v1 / name
        group.mkdir()
        for direction in ("read", "write"):
            (group / f"blkio.throttle.{direction}_iops_device").write_text(f"{device} {iops}")
    else:
        root = Path("/sys/fs/cgroup")
        if "io" not in (root / "cgroup.subtree_control").read_text().split():
            enabled = root / "cgroup.subtree_control"
            enabled.write_text("+io")
        group = root / name
        group.mkdir()
        (group / "io.max").write_text(f"{device} riops={iops} wiops={iops}")
    try:
        yield group
    finally:
        for pid in (group / "cgroup.procs").read_text().split():
            (group.parent / "cgroup.procs").write_text(pid)
        group.rmdir()
        if enabled is not None:
            with contextlib.suppress(OSError):  # another group may use it meanwhile
                enabled.write_text("-io")


def device_of(mount: Path) -> str:
    """The MAJ:MIN of the block device a file system is mounted from."""
    found = subprocess.run(
        ["findmnt", "-n", "-o", "MAJ:MIN", "--target", str(mount)],
        capture_output=True,
        text=True,
        check=True,
    )
    return found.stdout.strip()


def raw_files(raw: Path) -> dict[str, bytes]:
    """Every file under a step's raw/ (fio's logs are in raw/logs/), by relative path."""
    return {str(p.relative_to(raw)): p.read_bytes() for p in raw.rglob("*") if p.is_file()}


def fio_json(path: Path) -> dict[str, Any]:
    """fio's own output read with nothing but the json module (no volperf parsing)."""
    text = path.read_text()
    return json.loads(text[text.index("\n{") + 1 :] if not text.startswith("{") else text)


def check_pace_against_its_logs(root: Path, step: dict[str, Any], rate: float) -> None:
    """A fixed-rate step's pace in summary.json, consumer by consumer, against its fio IOPS
    log (under the step's raw folder, one direction) read with the csv module alone: each
    consumer asked for ``rate``, its seconds as the log gives them, and the most it was
    behind its schedule (after k seconds it was asked for rate × k I/Os)."""
    raw = root / "steps" / step["step"] / "raw"
    for consumer in step["pace"]["consumers"]:
        assert consumer["asked_iops"] == rate, consumer
        (log,) = raw.rglob(f"{consumer['consumer']}_iops.*.log")
        with log.open() as handle:
            per_second = [float(row[1]) for row in csv.reader(handle) if row]
        done, most = 0.0, 0.0
        for k, iops in enumerate(per_second, start=1):
            done += iops
            most = max(most, (rate * k - done) / rate)
        assert abs(consumer["behind_s"] - most) <= 0.001, (consumer["consumer"], most)
        assert len(consumer["per_second"]) == len(per_second), consumer["consumer"]
        gaps = [abs(a - b) for a, b in zip(consumer["per_second"], per_second, strict=True)]
        assert max(gaps, default=0.0) <= 0.001, (consumer["consumer"], per_second)


def images_left(ceph_testbed: Any, openstack_state: Path | None = None) -> str:
    """The RBD images in the testbed's volumes pool, each with what may explain why it is
    there (its snapshots, parent and watchers, and the last lines cinder-volume logged of
    its volume, when an OpenStack testbed is given): '' when there is none. CI's machines
    and their logs are gone when a failure is read, so an assertion's message says it."""
    rbd = bindings()[1]
    log = openstack_state / "log" / "cinder-volume.log" if openstack_state else None
    logged = log.read_text(errors="replace").splitlines() if log and log.is_file() else []
    lines = []
    with ceph_testbed.access().pool_io() as ioctx:
        for name in sorted(images.existing(ioctx)):
            try:
                with rbd.Image(ioctx, name, read_only=True) as image:
                    snaps = [snap["name"] for snap in image.list_snaps()]
                    watchers = [w["addr"] for w in image.watchers_list()]
                    try:
                        parent = "/".join(image.parent_info())
                    except rbd.ImageNotFound:
                        parent = None
                lines.append(f"{name}: snaps {snaps}, parent {parent}, watchers {watchers}")
            except rbd.ImageNotFound:
                lines.append(f"{name}: gone while it was read")
            volume = name.removeprefix("volume-").split(".")[0]
            said = [line for line in logged if volume in line and " DEBUG " not in line]
            lines += [f"  {line[:400]}" for line in said[-12:]]
    return "\n".join(lines)


def lose_volume_and_run_agents(ceph_testbed: Any, volume: str, state: str, cwd: Path) -> None:
    """A Cinder volume's RBD image removed under its VM, then the OpenStack testbed's
    guest runner (stopped by the test) runs the agents once; it says it is a stand-in."""
    with ceph_testbed.access().pool_io() as ioctx:
        images.remove(ioctx, f"volume-{volume}")
    agents = volperf("testbed", "guest-runner", "--once", "--state", state, cwd=cwd, timeout=300)
    assert "TEST STAND-IN" in agents.stdout + agents.stderr


def doc_source_copy(tmp_path: Path) -> Path:
    """A copy of the documentation sources without any generated page."""
    source = tmp_path / "doc" / "source"
    shutil.copytree(REPO / "doc" / "source", source, ignore=shutil.ignore_patterns("test_results"))
    (source / "test_results").mkdir()
    shutil.copy(REPO / "doc" / "source" / "test_results" / "index.rst", source / "test_results")
    return source


# the suite's k8s testbed's local-static PVs: k8s_scenarios' runs take about 40 while the
# tests beside them take theirs (a used one stays Released until `up` again remakes it)
K8S_TEST_STATIC_PVS = 64


def k8s_scenarios_argv(
    k8s_testbed: Any, work: Path, *args: str, basetemp: Path | None = None
) -> list[str]:
    """pytest on k8s_scenarios as a user runs it, at small scale on the k8s testbed, its
    campaigns and pages under ``work`` (its temporary files in ``basetemp``, by default
    work/basetemp: one each for runs side by side)."""
    # its own --basetemp: a nested pytest would reset the suite's own temporary root
    return [
        sys.executable,
        "-m",
        "pytest",
        *args,
        "-p",
        "no:cacheprovider",
        "-q",
        "--volperf-kubeconfig",
        str(k8s_testbed.kubeconfig),
        "--volperf-scale",
        "small",
        "--volperf-results",
        str(work / "results"),
        "--volperf-image-pull-policy",
        "Never",
        "--rootdir",
        str(REPO / "k8s_scenarios"),
        "--basetemp",
        str(basetemp or work / "basetemp"),
        "--volperf-doc-source",
        str(work / "doc" / "source"),
    ]


def k8s_up(k8s_testbed: Any, *args: str) -> subprocess.CompletedProcess[str]:
    """`volperf testbed up k8s ARGS` on the suite's k8s testbed, which must succeed."""
    done = volperf(
        "testbed",
        "up",
        "k8s",
        "--state",
        str(k8s_testbed.state),
        *args,
        cwd=k8s_testbed.state.parent,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done


def k8s_status(k8s_testbed: Any) -> dict[str, Any]:
    """`volperf testbed status k8s --json` of the suite's k8s testbed."""
    done = volperf(
        "testbed",
        "status",
        "k8s",
        "--state",
        str(k8s_testbed.state),
        "--json",
        cwd=k8s_testbed.state.parent,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return json.loads(done.stdout)


def volperf(
    *args: str, cwd: Path, timeout: float = 300, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """The volperf command as a user runs it; ``env``: variables set for it."""
    return subprocess.run(
        [sys.executable, "-m", "harness.cli", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**os.environ, **env} if env else None,
    )


@dataclass(frozen=True)
class FioServer:
    """A real `fio --server` on a loopback address: a host of a fleet."""

    address: str
    port: int
    dir: Path  # where volperf may make its files on that "host"

    def host(self) -> dict[str, object]:
        """As a hosts target's spec names it."""
        return {"address": self.address, "port": self.port, "dir": str(self.dir)}


def run_killed_when(
    spec: Path, cwd: Path, given: Callable[[], bool], what: str, timeout_s: float = 300
) -> None:
    """`volperf run SPEC` in ``cwd``, killed outright (SIGKILL to its whole session, Rally's
    runner and all) as soon as ``given()`` says what the test waits for (``what``) has
    happened; fails if volperf ends first or it never happens."""
    run = subprocess.Popen(
        [sys.executable, "-m", "harness.cli", "run", str(spec)],
        cwd=cwd,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    deadline = time.monotonic() + timeout_s
    try:
        while not given():
            assert run.poll() is None, f"volperf ended before {what}"
            assert time.monotonic() < deadline, f"{what}: never"
            time.sleep(0.5)
    finally:
        os.killpg(run.pid, signal.SIGKILL)
        run.wait()


def process_state(pid: int) -> str | None:
    """R, S, T (stopped by a signal), Z (a zombie), … as /proc says; None: no such process."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return None


def free_port(address: str) -> int:
    with socket.socket() as probe:
        probe.bind((address, 0))
        return probe.getsockname()[1]


def _listening(address: str, port: int, seconds: float = 10) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        with socket.socket() as probe:
            if probe.connect_ex((address, port)) == 0:
                return
        time.sleep(0.05)
    raise RuntimeError(f"fio --server on {address}:{port} did not listen within {seconds} s")


@contextmanager
def fio_servers(addresses: Sequence[str], root: Path) -> Iterator[list[FioServer]]:
    """One `fio --server` on each address (a free port each), stopped at the end."""
    servers, processes = [], []
    try:
        for address in addresses:
            port = free_port(address)
            (root / address).mkdir()
            with (root / f"{address}.log").open("wb") as log:
                processes.append(
                    subprocess.Popen(
                        ["fio", f"--server=ip:{address},{port}"], stdout=log, stderr=log
                    )
                )
            _listening(address, port)
            servers.append(FioServer(address, port, root / address))
        yield servers
    finally:
        for process in processes:
            process.terminate()
            process.wait(timeout=30)


def rbd(conf: Path, *argv: str) -> str:
    """Ceph's rbd command on the cluster ``conf`` names, asserted to succeed; its output."""
    done = subprocess.run(
        ["rbd", "-c", str(conf), *argv], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def heat_stacks(state: Path) -> list[str]:
    """Every project's stacks not deleted on the OpenStack testbed of ``state``, from
    Heat's database: Heat's API lets nobody list them all (its policy
    stacks:global_index denies everybody)."""
    from harness.testbeds.openstack import infra

    query = "SELECT name FROM stack WHERE deleted_at IS NULL"
    client = infra.mariadb(state).client()
    done = subprocess.run(
        [*client, "heat", "-N", "-e", query], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.split()


RALLY = Path(sys.executable).with_name("rally")


def rally_cli(
    config: Path, *args: str, timeout: float = 300, exits: int = 0
) -> subprocess.CompletedProcess[str]:
    """The rally command as a user types it, on the Rally database ``config`` names (this
    machine's OS_* variables left out), asserted to exit with ``exits`` (`rally task start`
    exits 2 when the task ran but failed an SLA)."""
    environment = {k: v for k, v in os.environ.items() if not k.startswith("OS_")}
    done = subprocess.run(
        [str(RALLY), "--config-file", str(config), *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=environment,
    )
    assert done.returncode == exits, done.stdout[-2000:] + done.stderr[-2000:]
    return done


def rally_cli_env(config: Path, name: str, spec: Path) -> None:
    """Rally's database and an environment ``name`` of ``spec``, not made the default
    (``--no-use``: nothing written to ~/.rally)."""
    rally_cli(config, "db", "ensure")
    rally_cli(config, "env", "create", "--name", name, "--spec", str(spec), "--no-use")


def dummy_task(title: str, sleep: float) -> str:
    """A Rally task of Dummy.dummy iterations that each sleep ``sleep`` s, run on Rally's
    empty environment (no cloud); the runner's times and concurrency left to the step."""
    return (
        "version: 2\n"
        f"title: {title}\n"
        "subtasks:\n"
        f"  - title: {title}\n"
        f"    scenario: {{Dummy.dummy: {{sleep: {sleep:g}}}}}\n"
        "    runner: {constant: {times: {{ times }}, concurrency: {{ concurrency }}}}\n"
    )


def output_table(iteration: dict, title: str) -> dict | None:
    """The complete output of a Rally iteration with that title (a table), or None."""
    found = [
        t for t in (iteration.get("output") or {}).get("complete") or [] if t["title"] == title
    ]
    assert len(found) <= 1, f"{len(found)} tables titled {title!r}"
    return found[0] if found else None


def rally_report_workloads(report: Path) -> list[dict[str, Any]]:
    """The workloads of Rally's HTML report as its page gets them (the JSON its template
    puts in ``$scope.scenarios``): each one's description, config, and hooks' outputs."""
    [line] = [
        line.strip()
        for line in report.read_text(encoding="utf-8").splitlines()
        if line.strip().startswith("$scope.scenarios = ")
    ]
    return json.loads(line.removeprefix("$scope.scenarios = ").removesuffix(";"))


def rally_report_charts(workload: dict[str, Any], title: str) -> list[dict[str, Any]]:
    """The complete outputs titled ``title`` of every hook firing of a report's workload."""
    return [
        chart
        for hook in workload["hooks"]
        for fired in hook["complete"]
        for chart in fired["charts"]
        if chart["title"] == title
    ]
