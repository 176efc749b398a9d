"""Backends the suite brings up itself, once per session, and takes down at the end."""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import pytest
from hypothesis import settings

from harness.host.process import command_line
from harness.planes.ceph import images
from harness.planes.ceph.access import CephAccess
from harness.testbeds.ceph import POOLS, CephTestbed
from harness.testbeds.openstack.testbed import CLOUD
from tests.harness.helpers import K8S_TEST_STATIC_PVS, volperf
from tests.harness.planes.openstack_campaigns import OpenStackCampaigns, run_all
from tests.k8s_scenarios.scenario_runs import ScenarioRuns
from tests.suite_groups import arrange, machine_alone, one_per_machine, quiet_shared, register

# The suite runs beside testbeds and other tests on 2 cores: how long one example of a
# property test takes says nothing of what it checks, so hypothesis's deadline is off.
settings.register_profile("volperf-suite", deadline=None)
settings.load_profile("volperf-suite")


@pytest.hookimpl(tryfirst=True)  # before xdist's, which appends the group to each test's id
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    arrange(items)


def pytest_configure(config: pytest.Config) -> None:
    register(config)


@dataclass
class BringUp:
    """`volperf testbed up NAME` started in the background (``start``), holding the
    suite's quiet lock shared while it runs, and waited for (``wait``): if it failed,
    `testbed down NAME` (state and logs kept for diagnosis in pytest's temporary
    directory) before the test fails, so that a failed bring-up leaves nothing running
    for the rest of the suite."""

    name: str
    state: Path
    options: tuple[str, ...]
    cwd: Path
    timeout: float = 300
    process: subprocess.Popen[str] | None = None
    started: float = 0.0
    quiet: IO[str] | None = None
    up: subprocess.CompletedProcess[str] | None = None
    seconds: float = 0.0

    def start(self) -> BringUp:
        self.quiet = quiet_shared()
        self.started = time.monotonic()
        argv = [sys.executable, "-m", "harness.cli", "testbed", "up", self.name]
        self.process = subprocess.Popen(
            [*argv, "--state", str(self.state), *self.options],
            cwd=self.cwd,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            # a session of its own, so its own CFS autogroup: its setup commands (the
            # schemas, Keystone's bootstrap, the Ceph and Kubernetes CLIs) weigh as much
            # as one of the daemons they start, not a share of the pytest session's
            start_new_session=True,
        )
        return self

    def wait(self) -> subprocess.CompletedProcess[str]:
        if self.up is None:
            assert self.process is not None, "wait before start"
            try:
                out, err = self.process.communicate(
                    timeout=max(1, self.started + self.timeout - time.monotonic())
                )
            except subprocess.TimeoutExpired:
                self.process.kill()
                out, err = self.process.communicate()
                err += f"\n(killed after {self.timeout:.0f} s)"
            finally:
                self._release()
            self.seconds = time.monotonic() - self.started
            self.up = subprocess.CompletedProcess(
                self.process.args, self.process.returncode, out, err
            )
        if self.up.returncode != 0:
            down = volperf("testbed", "down", self.name, "--state", str(self.state), cwd=self.cwd)
            pytest.fail(
                f"testbed up {self.name} failed (exit {self.up.returncode}): "
                f"{self.up.stderr[-3000:]}\ntestbed down {self.name}: exit {down.returncode} "
                f"{down.stderr[-1000:]}; state and logs kept in {self.state}"
            )
        return self.up

    def end(self) -> None:
        """Waits, without failing, for a bring-up no test waited for."""
        if self.up is None and self.process is not None:
            self.process.communicate()
        self._release()

    def _release(self) -> None:
        if self.quiet is not None:
            self.quiet.close()
            self.quiet = None


def bring_up_or_fail(
    name: str, state: Path, *options: str, cwd: Path, timeout: float = 300
) -> subprocess.CompletedProcess[str]:
    """`volperf testbed up NAME`, waited for (BringUp)."""
    return BringUp(name, state, options, cwd, timeout).start().wait()


CEPH_TEST_MON_PORT = 20500  # off the default 20100, so a developer's own testbed can run
K8S_CEPH_MON_PORT = 24500  # the k8s testbed's own Ceph; its daemons bind 100-300 above
OPENSTACK_TEST_BASE_PORT = 22000  # off the default 21000, likewise
GUESTS_CEPH_MON_PORT = 25500  # the real guests' OpenStack testbed's own Ceph
GUESTS_TEST_BASE_PORT = 22500  # the real guests' OpenStack testbed


@dataclass(frozen=True)
class CephTestbedInfo:
    state: Path
    conf: Path
    up_seconds: float

    def access(self, user: str = "cinder") -> CephAccess:
        return CephAccess(self.conf, user, "volumes")


def ceph_daemons(conf: Path) -> list[str]:
    """Command lines of running processes that use this testbed's ceph.conf."""
    lines = (command_line(int(p.name)) for p in Path("/proc").iterdir() if p.name.isdigit())
    return [line for line in lines if str(conf) in line and line.startswith("ceph-")]


CEPH_FIXTURES = ("ceph_testbed", "guests_ceph_testbed", "k8s_ceph_testbed")


def _pool_images(info: CephTestbedInfo) -> dict[str, set[str]]:
    """Every image of the testbed's pools (those it has of POOLS), by pool."""
    found = {}
    with info.access().cluster() as cluster:
        for pool in (p for p in POOLS if cluster.pool_exists(p)):
            with closing(cluster.open_ioctx(pool)) as ioctx:
                found[pool] = images.existing(ioctx)
    return found


def _images_made(info: CephTestbedInfo, before: dict[str, set[str]]) -> dict[str, list[str]]:
    """The images of the testbed's pools that were not there ``before``, by pool."""
    now = _pool_images(info).items()
    return {
        pool: sorted(names - before.get(pool, set()))
        for pool, names in now
        if names - before.get(pool, set())
    }


# Cinder and Kubernetes delete a volume's image after they have said the volume deleted
ASYNC_DELETE_S = 60


@pytest.fixture(autouse=True)
def leaves_its_pools_as_found(request: pytest.FixtureRequest) -> Iterator[None]:
    """A test of a Ceph testbed leaves its pools as it found them, or fails itself with
    what it left (then removed, so that no later test fails for it): a fault's leftover is
    the test's own failure, not the next one's."""
    testbeds = [
        request.getfixturevalue(name) for name in CEPH_FIXTURES if name in request.fixturenames
    ]
    before = [_pool_images(info) for info in testbeds]
    yield
    left = {}
    for info, found in zip(testbeds, before, strict=True):
        made = _images_made(info, found)
        deadline = time.monotonic() + ASYNC_DELETE_S
        while made and time.monotonic() < deadline:  # a delete the test asked may still run
            time.sleep(2)
            made = _images_made(info, found)
        if made:
            _remove_images(info, made)
            left[str(info.state)] = made
    if left:
        pytest.fail(f"the test left RBD images (now removed): {left}")


def _remove_images(info: CephTestbedInfo, made: dict[str, list[str]]) -> None:
    with info.access().cluster() as cluster:
        for pool, names in made.items():
            with closing(cluster.open_ioctx(pool)) as ioctx:
                for name in names:
                    images.remove(ioctx, name)


def module_ceph_testbed(
    tmp_path_factory: pytest.TempPathFactory, name: str, mon_port: int, *options: str
) -> Iterator[CephTestbed]:
    """A Ceph testbed of one test module's own (`volperf testbed up ceph`, its monitor on
    ``mon_port``, its other daemons on the ports above it), for tests that stop and start
    its daemons; purged at the end, none of its daemons left."""
    work = tmp_path_factory.mktemp(name)
    state = work / "ceph"
    bring_up_or_fail("ceph", state, "--mon-port", str(mon_port), *options, cwd=work, timeout=600)
    try:
        yield CephTestbed(state)
    finally:
        down = volperf("testbed", "down", "ceph", "--purge", "--state", str(state), cwd=work)
        assert down.returncode == 0, down.stderr
    assert not ceph_daemons(state / "ceph.conf")


def keep_logs_if_failed(
    request: pytest.FixtureRequest, state: Path, work: Path, bring_up: BringUp | None = None
) -> None:
    """When a test of the run has failed, or the testbed's own bring-up did (its fixture
    ends before pytest has counted that error), the testbed's logs copied beside its state
    before the purge (`work/kept-logs`): CI's temporary folders outlive the run, its
    testbeds not."""
    up = bring_up.up if bring_up is not None else None
    if not (request.session.testsfailed or (up is not None and up.returncode != 0)):
        return
    for logs in (state / "log", state / "libvirt" / "log"):
        if logs.is_dir():
            kept = work / "kept-logs" / logs.relative_to(state)
            shutil.copytree(logs, kept, dirs_exist_ok=True, ignore_dangling_symlinks=True)


def _ceph_testbed(
    request: pytest.FixtureRequest,
    tmp_path_factory: pytest.TempPathFactory,
    name: str,
    *options: str,
) -> Iterator[CephTestbedInfo]:
    """A real single-node Ceph from nothing (`volperf testbed up ceph`), purged at the end;
    the end checks that no image, daemon or file of it is left."""
    work = tmp_path_factory.mktemp(name)
    state = work / "state"
    with one_per_machine(name):
        started = time.monotonic()
        bring_up_or_fail("ceph", state, *options, cwd=work)
        info = CephTestbedInfo(state, state / "ceph.conf", time.monotonic() - started)
        yield info
        with info.access().pool_io() as ioctx:
            left = images.existing(ioctx)
        keep_logs_if_failed(request, state, work)
        down = volperf("testbed", "down", "ceph", "--state", str(state), "--purge", cwd=work)
    assert down.returncode == 0, down.stderr
    assert not left, f"RBD images left behind: {left}"
    assert not ceph_daemons(info.conf)
    assert not state.exists()


@pytest.fixture(scope="session")
def ceph_testbed(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[CephTestbedInfo]:
    """The Ceph testbed of the RBD, OpenStack and Rally tests."""
    yield from _ceph_testbed(
        request, tmp_path_factory, "ceph-testbed", "--mon-port", str(CEPH_TEST_MON_PORT)
    )


@pytest.fixture(scope="session")
def k8s_ceph_testbed(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[CephTestbedInfo]:
    """The k8s testbed's own Ceph, with CephFS (its class ceph-fs): apart from the one
    Cinder uses, so that neither sees the other's load or pools."""
    yield from _ceph_testbed(
        request,
        tmp_path_factory,
        "k8s-ceph-testbed",
        "--cephfs",
        "--mon-port",
        str(K8S_CEPH_MON_PORT),
    )


@dataclass(frozen=True)
class OpenStackTestbedInfo:
    state: Path
    clouds_yaml: Path
    up_seconds: float
    up_output: str

    def connection(self) -> Any:
        import openstack

        config = openstack.config.OpenStackConfig(config_files=[str(self.clouds_yaml)])
        return openstack.connection.Connection(config=config.get_one(cloud=CLOUD))


def openstack_processes(state: Path) -> list[str]:
    """Command lines of running processes started for this OpenStack testbed."""
    lines = (command_line(int(p.name)) for p in Path("/proc").iterdir() if p.name.isdigit())
    return [line for line in lines if str(state) in line]


@pytest.fixture(scope="session")
def openstack_bring_up(
    request: pytest.FixtureRequest,
    tmp_path_factory: pytest.TempPathFactory,
    ceph_testbed: CephTestbedInfo,
) -> Iterator[BringUp]:
    """A real OpenStack control plane from nothing but the services' cached venv (built if
    missing), Cinder on the session's Ceph testbed, started in the background: in a run of
    its group, as soon as the Ceph testbed is up (tests/suite_groups.py: STARTED_EARLY),
    while the tests of Ceph alone run. Purged at the end, which checks that no process of
    it and no RBD image of Cinder's is left."""
    work = tmp_path_factory.mktemp("openstack-testbed")
    state = work / "state"
    options = ("--ceph-state", str(ceph_testbed.state))
    options += ("--base-port", str(OPENSTACK_TEST_BASE_PORT))
    with one_per_machine("openstack-testbed"):
        bring_up = BringUp("openstack", state, options, work, timeout=1800).start()
        try:
            yield bring_up
        finally:
            bring_up.end()  # if no test waited for it, it still ends before the purge
            keep_logs_if_failed(request, state, work, bring_up)
            down = volperf(
                "testbed", "down", "openstack", "--state", str(state), "--purge", cwd=work
            )
    assert down.returncode == 0, down.stderr
    assert not openstack_processes(state)
    assert not state.exists()


@pytest.fixture(scope="session")
def openstack_testbed(openstack_bring_up: BringUp) -> OpenStackTestbedInfo:
    """The OpenStack testbed once its bring-up has ended (its tests run after those of
    Ceph alone: tests/suite_groups.py, TURNS)."""
    up = openstack_bring_up.wait()
    state = openstack_bring_up.state
    return OpenStackTestbedInfo(
        state, state / "clouds.yaml", openstack_bring_up.seconds, up.stdout + up.stderr
    )


@pytest.fixture(scope="session")
def guests_ceph_testbed(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[CephTestbedInfo]:
    """The Ceph testbed of the real guests' OpenStack testbed: its own, so that the guests'
    group runs beside the OpenStack group (tests/suite_groups.py)."""
    yield from _ceph_testbed(
        request, tmp_path_factory, "guests-ceph-testbed", "--mon-port", str(GUESTS_CEPH_MON_PORT)
    )


@pytest.fixture(scope="session")
def real_guests_testbed(
    request: pytest.FixtureRequest,
    tmp_path_factory: pytest.TempPathFactory,
    guests_ceph_testbed: CephTestbedInfo,
) -> Iterator[OpenStackTestbedInfo]:
    """An OpenStack testbed whose Nova boots real guests (`--guests real`: libvirt, QEMU on
    the accelerator its probe boot chose, Cinder's RBD volumes attached by librbd), purged
    at the end, which checks that no process, QEMU, libvirt daemon or veth of it is left."""
    work = tmp_path_factory.mktemp("real-guests-testbed")
    state = work / "state"
    options = ("--ceph-state", str(guests_ceph_testbed.state), "--guests", "real")
    options += ("--base-port", str(GUESTS_TEST_BASE_PORT))
    with one_per_machine("real-guests-testbed"):
        bring_up = BringUp("openstack", state, options, work, timeout=1800).start()
        try:
            up = bring_up.wait()
            yield OpenStackTestbedInfo(
                state, state / "clouds.yaml", bring_up.seconds, up.stdout + up.stderr
            )
        finally:
            bring_up.end()
            keep_logs_if_failed(request, state, work, bring_up)
            down = volperf(
                "testbed", "down", "openstack", "--state", str(state), "--purge", cwd=work
            )
    assert down.returncode == 0, down.stderr
    assert not openstack_processes(state)
    assert not state.exists()


@pytest.fixture(scope="session")
def openstack_campaigns(
    tmp_path_factory: pytest.TempPathFactory,
    openstack_testbed: OpenStackTestbedInfo,
    ceph_testbed: CephTestbedInfo,
) -> OpenStackCampaigns:
    """Rally's control-plane sweep, its lifecycle workloads in two campaigns and a Heat
    sweep, at once on the session's OpenStack testbed
    (tests/harness/planes/openstack_campaigns.py)."""
    return run_all(
        tmp_path_factory.mktemp("openstack-campaigns"),
        openstack_testbed.clouds_yaml,
        ceph_testbed.conf,
        openstack_testbed.connection(),
        openstack_testbed.state / "log",
    )


K8S_TEST_BASE_PORT = 23500  # off the default 23000


@dataclass(frozen=True)
class K8sTestbedInfo:
    state: Path
    kubeconfig: Path
    up_seconds: float
    up_output: str

    def api(self) -> Any:
        from kubernetes import config

        return config.new_client_from_config(str(self.kubeconfig))


@pytest.fixture
def runner_stopped(openstack_testbed: OpenStackTestbedInfo) -> Iterator[str]:
    """The guest runner stopped for the test (the test runs the agents itself), restarted."""
    state = openstack_testbed.state
    stopped = volperf("testbed", "guest-runner", "--stop", "--state", str(state), cwd=state)
    assert stopped.returncode == 0, stopped.stderr
    yield str(state)
    started = volperf("testbed", "guest-runner", "--state", str(state), cwd=state)
    assert started.returncode == 0, started.stderr


def host_leftovers(state: Path) -> list[str]:
    """What a Kubernetes testbed could leave on the host: processes naming its state dir,
    mounts under it, loop devices on its files, its nodes' bridges, kubepods cgroups and
    the second node's cgroup root."""
    from harness.testbeds.k8s.configs import NODES

    left = [f"process: {line[:120]}" for line in openstack_processes(state)]
    mounts = Path("/proc/self/mountinfo").read_text().splitlines()
    left += [f"mount: {m.split()[4]}" for m in mounts if m.split()[4].startswith(str(state))]
    left += [f"bridge {n.bridge}" for n in NODES if Path("/sys/class/net", n.bridge).exists()]
    cgroups = Path("/sys/fs/cgroup")
    kubepods = [cgroups / "kubepods", *cgroups.glob("*/kubepods")]
    roots = [p for n in NODES if n.cgroup_root for p in cgroups.glob(f"*/{n.cgroup_root}")]
    left += [f"cgroup: {p}" for p in [*kubepods, *roots] if p.exists()]
    loops = subprocess.run(
        ["losetup", "--list", "--noheadings", "--output", "NAME,BACK-FILE"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.splitlines()
    left += [f"loop device: {line}" for line in loops if str(state) in line]
    return left


@pytest.fixture(scope="session")
def k8s_testbed_up(
    request: pytest.FixtureRequest,
    tmp_path_factory: pytest.TempPathFactory,
    k8s_ceph_testbed: CephTestbedInfo,
) -> Iterator[K8sTestbedInfo]:
    """A real single-node Kubernetes from nothing but the cached builds and images (made
    if missing: about 8 minutes of Go on 2 cores), its class ceph-fs on its own Ceph
    testbed's CephFS, purged at the end, which checks that nothing of it is left on the
    host. As brought up: the tests that use it alone run before any other of its group
    (tests/suite_groups.py: TURNS)."""
    work = tmp_path_factory.mktemp("k8s-testbed")
    state = work / "state"
    with one_per_machine("k8s-testbed"):
        started = time.monotonic()
        up = bring_up_or_fail(
            "k8s",
            state,
            "--base-port",
            str(K8S_TEST_BASE_PORT),
            "--ceph-state",
            str(k8s_ceph_testbed.state),
            "--static-pvs",
            str(K8S_TEST_STATIC_PVS),
            cwd=work,
            timeout=3600,
        )
        info = K8sTestbedInfo(
            state, state / "admin.kubeconfig", time.monotonic() - started, up.stdout + up.stderr
        )
        yield info
        keep_logs_if_failed(request, state, work)
        down = volperf("testbed", "down", "k8s", "--state", str(state), "--purge", cwd=work)
    assert down.returncode == 0, down.stderr
    assert host_leftovers(state) == []
    assert not state.exists()


@pytest.fixture(scope="session")
def k8s_scenarios(
    tmp_path_factory: pytest.TempPathFactory, k8s_testbed_up: K8sTestbedInfo
) -> Iterator[ScenarioRuns]:
    """k8s_scenarios' runs on the testbed, started at the first test that shares the
    cluster with them (tests/k8s_scenarios/scenario_runs.py); killed at the end if they
    still run."""
    runs = ScenarioRuns(k8s_testbed_up, tmp_path_factory.mktemp("k8s-scenarios"))
    try:
        runs.start()
        yield runs
    finally:
        runs.stop()


@pytest.fixture(scope="session")
def k8s_testbed(k8s_scenarios: ScenarioRuns, k8s_testbed_up: K8sTestbedInfo) -> K8sTestbedInfo:
    """The k8s testbed shared with k8s_scenarios' runs in the background: for tests that
    leave the cluster as they found it (one node, the classes and their free volumes, no
    volperf cleanup of the whole cluster) and whose figures are their own pods'."""
    return k8s_testbed_up


@pytest.fixture(scope="session")
def k8s_scenarios_done(k8s_scenarios: ScenarioRuns) -> tuple[Path, subprocess.CompletedProcess]:
    """k8s_scenarios' work folder and what their side-by-side runs printed, once they have
    ended."""
    return k8s_scenarios.wait()


@pytest.fixture(scope="session")
def k8s_testbed_alone(
    k8s_scenarios_done: tuple[Path, subprocess.CompletedProcess], k8s_testbed_up: K8sTestbedInfo
) -> K8sTestbedInfo:
    """The k8s testbed once k8s_scenarios' side-by-side runs have ended: for tests that
    change the cluster (nodes added, crashed or drained; `up` again) or time it."""
    return k8s_testbed_up


@pytest.fixture(scope="session")
def k8s_scenarios_all(
    request: pytest.FixtureRequest, k8s_scenarios: ScenarioRuns, k8s_testbed_alone: K8sTestbedInfo
) -> tuple[Path, subprocess.CompletedProcess]:
    """k8s_scenarios' fio scenario run alone, last of the k8s group, while no other test
    runs (its disk figures are set against the node disk's counters, which count every
    process's I/O): the work folder and what every run printed."""
    with machine_alone(request.config):
        return k8s_scenarios.run_alone()
