"""How the suite runs its tests side by side (pytest-xdist, ``--dist loadgroup``).

Every test that uses a testbed goes into that testbed's group, and a group runs on one
worker from start to end, so each testbed is brought up once per run, by one worker,
while the other workers run the tests that need none, a module at a time (its module
fixtures made once). The groups follow from the
fixtures a test uses (``TESTBED_GROUPS``), never from a list of test names: a new test of
the k8s testbed lands in the k8s group by using ``k8s_testbed``. A test that would need
two groups' testbeds is a collection error, since it would make two workers bring up
the same testbed.

Tests whose figures depend on having the machine to themselves (two runs' speeds set
against each other, volperf's own timing of its processes) are marked ``quiet``: they
form a group of their own, on one worker, and each runs only while no other test does
(``QuietWindow``): every other test holds the machine-wide quiet lock shared from its
setup to its teardown, a quiet test holds it alone, and starts once what the others wrote
is on disk. Other tests never wait for a quiet
test that is waiting, so quiet tests run in the moments when nothing else does, most of
them once the testbeds' groups are done.

The testbeds' groups are the suite's longest chains, and most of their time is waiting
on their daemons; the spread tests can run at any time. So the spread tests, and all they
start, run in a cgroup of their own (``CpuWeights``) that weighs on the CPU as much as one
process session: on a busy machine the testbeds' tests, which share the pytest session's
weight with the spread tests otherwise, come first, and the spread tests fill the time
the testbeds' groups leave idle.

At the end, the wall time each group took, from its first setup to its last teardown,
goes to the terminal beside pytest's slowest tests.
"""

from __future__ import annotations

import atexit
import contextlib
import fcntl
import os
import tempfile
import time
from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

import pytest

# fixture -> the group of every test that uses it, directly or through another fixture
TESTBED_GROUPS: dict[str, str] = {
    "ceph_testbed": "openstack",
    "openstack_bring_up": "openstack",
    "openstack_testbed": "openstack",
    "openstack_campaigns": "openstack",
    "runner_stopped": "openstack",
    "k8s_ceph_testbed": "k8s",
    "k8s_testbed_up": "k8s",
    "k8s_testbed": "k8s",
    "k8s_scenarios": "k8s",
    "k8s_scenarios_done": "k8s",
    "k8s_testbed_alone": "k8s",
    "k8s_scenarios_all": "k8s",
    "guests_ceph_testbed": "guests",
    "real_guests_testbed": "guests",
}
# A group's tests run in the order of the first of these fixtures each uses, from the
# last to the first here (a stable sort: else in the order they were collected). The
# testbeds' groups are the suite's longest chains, so what waits on a testbed goes on in
# the background while other tests of the group run (tests/conftest.py).
# k8s: k8s_scenarios run in the background while the tests that share the cluster run:
# first the tests of the testbed as brought up, then those sharing it, then those of the
# scenarios' results, then those that need the cluster to themselves, and last the fio
# scenario's (its disk figures).
# openstack: the Ceph testbed's own tests while the OpenStack testbed comes up (STARTED
# EARLY), then those of the cloud. (Tests that only looked at the cloud while the
# campaigns ran in the background slowed both down: Heat's template validation took
# 61-110 s instead of 5 beside the Heat sweep, the campaigns 600 s instead of 391, and
# the k8s group's scenarios failed under the load, run25.)
TURNS = (
    "k8s_scenarios_all",
    "k8s_testbed_alone",
    "k8s_scenarios_done",
    "k8s_testbed",
    "k8s_testbed_up",
    "openstack_testbed",
)
# a fixture whose setup only starts work in the background -> a fixture after which it
# can start: when a selected test needs the former, every test that uses the latter
# starts it too (the first one to run does), so the work goes on while they run
STARTED_EARLY = {"openstack_bring_up": "ceph_testbed"}
UNGROUPED = "spread"  # tests of no testbed: any worker takes them, a module at a time
QUIET = "quiet"  # the mark of tests that run alone, and their group
QUIET_PLUGIN = "volperf-quiet-window"  # the plugin that holds the quiet lock (QuietWindow)
GROUP_PROPERTY = "volperf_group"


def group_of(fixturenames: list[str]) -> str | None:
    """The group of a test that uses these fixtures; ValueError when it spans two."""
    groups = sorted({TESTBED_GROUPS[name] for name in fixturenames if name in TESTBED_GROUPS})
    if len(groups) > 1:
        raise ValueError(f"uses the testbeds of groups {', '.join(groups)}")
    return groups[0] if groups else None


def turn_of(fixturenames: list[str]) -> int:
    """A test's place in its group's order (TURNS): 0 for a test that uses none of them."""
    for index, name in enumerate(TURNS):
        if name in fixturenames:
            return len(TURNS) - index
    return 0


def order_turns(items: list[pytest.Item]) -> None:
    """Sorts the tests, in place, by their turn (TURNS), else in collection order."""
    items.sort(key=lambda item: turn_of(list(getattr(item, "fixturenames", []))))


def start_early(items: list[pytest.Item]) -> None:
    """Adds each fixture of STARTED_EARLY to the tests that use the fixture it can start
    after, when a selected test needs it: right after that one in the test's fixtures,
    which are set up in their list's order (before the module's own)."""
    names = [getattr(item, "fixturenames", None) for item in items]
    for started, after in STARTED_EARLY.items():
        if not any(started in (fixtures or []) for fixtures in names):
            continue
        for fixtures in names:
            if fixtures is not None and after in fixtures and started not in fixtures:
                fixtures.insert(fixtures.index(after) + 1, started)


def arrange(items: list[pytest.Item]) -> None:
    """The suite's collection hook: early starts, turns, groups (in that order: the
    groups follow from the fixtures, the early ones included)."""
    start_early(items)
    order_turns(items)
    assign_groups(items)


def assign_groups(items: list[pytest.Item]) -> None:
    """Marks each test with its testbed's xdist group; runs before xdist's own hook,
    which appends the group to the test's id (conftest.py: tryfirst)."""
    errors = []
    for item in items:
        try:
            group = group_of(list(getattr(item, "fixturenames", [])))
        except ValueError as exc:
            errors.append(f"{item.nodeid}: {exc}")
            continue
        if item.get_closest_marker(QUIET):
            if group:  # it would hold its testbed's worker until every other test is done
                errors.append(f"{item.nodeid}: a quiet test uses the {group} testbed")
                continue
            group = QUIET
        # a test of no testbed goes with the rest of its module, on one worker, so that a
        # module's fixtures (a campaign, a built wheel) are made once, not once per worker
        module = getattr(item, "module", None)
        unit = group or (module.__name__ if module else item.nodeid.split("::")[0])
        item.add_marker(pytest.mark.xdist_group(unit))
        item.user_properties.append((GROUP_PROPERTY, group or UNGROUPED))
    if errors:
        raise pytest.UsageError(
            "tests that cannot be placed (two testbeds' groups, or quiet with a testbed):"
            "\n  " + "\n  ".join(errors)
        )


def lock_dir() -> Path:
    """Machine-wide, so that two suites at once (or two workers) see the same locks;
    $VOLPERF_TEST_LOCKS for a suite of its own (the tests of this module)."""
    default = Path(tempfile.gettempdir()) / "volperf-test-locks"
    folder = Path(os.environ.get("VOLPERF_TEST_LOCKS") or default)
    folder.mkdir(mode=0o1777, exist_ok=True)
    return folder


@contextmanager
def one_per_machine(testbed: str) -> Iterator[None]:
    """Held while a session fixture's testbed is up: a second worker or suite that tries
    to bring up the same testbed (same ports, same daemons) fails at once, naming the
    process that holds it, instead of fighting over its ports."""
    path = lock_dir() / f"testbed-{testbed}.lock"
    with open(path, "a+") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.seek(0)
            holder = handle.read().strip() or "unknown"
            pytest.fail(
                f"the {testbed} testbed is already held by process {holder}: one testbed of "
                "each kind per machine (its tests belong to one xdist group, see "
                "tests/suite_groups.py), or another suite is running"
            )
        handle.seek(0)
        handle.truncate()
        handle.write(f"{os.getpid()} ({os.environ.get('PYTEST_XDIST_WORKER', 'main')})\n")
        handle.flush()
        try:
            yield
        finally:
            handle.truncate(0)
            fcntl.flock(handle, fcntl.LOCK_UN)


def register(config: pytest.Config) -> None:
    """The plugins of this module, in the processes that need them (conftest.py)."""
    if not hasattr(config, "workerinput"):  # the controller (or a run without xdist)
        config.pluginmanager.register(GroupTimes(), "volperf-group-times")
        spread = make_spread_cgroup() if config.getoption("numprocesses", None) else None
        if spread is not None:  # the workers, started later, inherit its name
            os.environ[SPREAD_CGROUP_ENV] = str(spread)
    config.pluginmanager.register(QuietWindow(), QUIET_PLUGIN)
    spread = os.environ.get(SPREAD_CGROUP_ENV)
    if spread and hasattr(config, "workerinput"):
        config.pluginmanager.register(CpuWeights(Path(spread)), "volperf-cpu-weights")


CPU_CGROUPS = Path("/sys/fs/cgroup/cpu")  # cgroup v1's cpu controller (this machine's kind)
SPREAD_CGROUP_ENV = "VOLPERF_TEST_SPREAD_CGROUP"
SPREAD_CPU_SHARES = 1024  # the weight of one process session (autogroup) at nice 0


def make_spread_cgroup() -> Path | None:
    """The cpu cgroup of a suite's spread tests, made by the controller and removed at its
    end (those of suites that died, their controller gone, at the next one's start); None
    where there is no cgroup v1 cpu controller to write (every test keeps its weight)."""
    if not os.access(CPU_CGROUPS / "cgroup.procs", os.W_OK):
        return None
    for stale in CPU_CGROUPS.glob("volperf-tests-*"):
        if not Path(f"/proc/{stale.name.rsplit('-', 1)[1]}").exists():
            remove_cgroup(stale)
    path = CPU_CGROUPS / f"volperf-tests-{os.getpid()}"
    path.mkdir(exist_ok=True)
    (path / "cpu.shares").write_text(f"{SPREAD_CPU_SHARES}\n")
    atexit.register(remove_cgroup, path)
    return path


def remove_cgroup(path: Path) -> None:
    """What is still in it (a leftover process) moved back to the root, then the cgroup
    removed."""
    with contextlib.suppress(OSError):
        for pid in (path / "cgroup.procs").read_text().split():
            with contextlib.suppress(OSError):  # gone meanwhile
                (CPU_CGROUPS / "cgroup.procs").write_text(pid)
        path.rmdir()


class CpuWeights:
    """Moves the worker into the spread tests' cgroup for a spread test, back to the root
    (its process session's weight) for any other; what a test starts stays where it
    started."""

    def __init__(self, spread: Path) -> None:
        self.spread = spread

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_setup(self, item: pytest.Item) -> None:
        group = dict(item.user_properties).get(GROUP_PROPERTY)
        cgroup = self.spread if group == UNGROUPED else CPU_CGROUPS
        with contextlib.suppress(OSError):  # the suite's end removed it: nothing to weigh
            (cgroup / "cgroup.procs").write_text(str(os.getpid()))


def quiet_lock_path() -> Path:
    return lock_dir() / "quiet.lock"


def quiet_shared() -> IO[str]:
    """The quiet lock held shared, as a test holds it, by work that goes on in the
    background between tests (no quiet test runs beside it): close the file to let go."""
    handle = quiet_lock_path().open("a")
    fcntl.flock(handle, fcntl.LOCK_SH)
    return handle


def flush_others_writes() -> None:
    """What the tests before wrote and left in the page cache, written back now (sync):
    otherwise the kernel writes it back in bursts up to 30 s later (vm.dirty_expire), on
    the disk a quiet test is measuring, beside one of its steps and not the next."""
    os.sync()


class QuietWindow:
    """Holds the quiet lock around each test's setup, call and teardown: shared for most
    tests, alone for a quiet one. (tools/test.sh holds it shared around its background
    builds too.) Registered in every process that runs tests."""

    def __init__(self) -> None:
        self.handle = quiet_lock_path().open("a")

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_protocol(self, item: pytest.Item, nextitem: pytest.Item | None):
        alone = item.get_closest_marker(QUIET) is not None
        fcntl.flock(self.handle, fcntl.LOCK_EX if alone else fcntl.LOCK_SH)
        if alone:
            flush_others_writes()
        try:
            return (yield)
        finally:
            fcntl.flock(self.handle, fcntl.LOCK_UN)


@contextmanager
def machine_alone(config: pytest.Config) -> Iterator[None]:
    """Within a test of a testbed's group: the quiet lock this worker holds shared made
    exclusive for the block (it waits for every other test to end, as a quiet test
    does), then shared again: for a step whose figures are set against counters of the
    whole machine (a disk's own count of I/Os)."""
    window = config.pluginmanager.get_plugin(QUIET_PLUGIN)
    if window is None:  # a run without the suite's plugins
        yield
        return
    fcntl.flock(window.handle, fcntl.LOCK_EX)
    flush_others_writes()
    try:
        yield
    finally:
        fcntl.flock(window.handle, fcntl.LOCK_SH)


@dataclass
class GroupClock:
    """First start and last stop of any phase (setup, call, teardown) of a group's tests,
    as the reports that reach the controller give them."""

    tests: set[str] = field(default_factory=set)
    start: float = float("inf")
    stop: float = 0.0
    busy: float = 0.0  # summed phase durations

    def add(self, report: pytest.TestReport) -> None:
        self.tests.add(report.nodeid)
        if report.start:
            self.start = min(self.start, report.start)
        if report.stop:
            self.stop = max(self.stop, report.stop)
        self.busy += report.duration


class GroupTimes:
    """Collects the reports of every phase and prints the wall time per group."""

    def __init__(self) -> None:
        self.groups: dict[str, GroupClock] = defaultdict(GroupClock)
        self.session_start = time.time()

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        group = dict(report.user_properties).get(GROUP_PROPERTY, UNGROUPED)
        self.groups[group].add(report)

    def pytest_terminal_summary(self, terminalreporter) -> None:  # noqa: ANN001
        if not self.groups:
            return
        write = terminalreporter.write_line
        terminalreporter.section("wall time per group")
        write(f"{'group':<10} {'tests':>6} {'from':>7} {'to':>7} {'wall':>7} {'busy':>7}")
        for name, clock in sorted(self.groups.items(), key=lambda kv: kv[1].start):
            first = clock.start - self.session_start
            last = clock.stop - self.session_start
            write(
                f"{name:<10} {len(clock.tests):>6} {_mmss(first):>7} {_mmss(last):>7} "
                f"{_mmss(last - first):>7} {_mmss(clock.busy):>7}"
            )
        write(
            "(from/to: minutes:seconds after the session began; busy: the group's setup, "
            f"call and teardown times summed; '{UNGROUPED}': tests of no testbed, "
            "on whichever worker is free)"
        )


def _mmss(seconds: float) -> str:
    seconds = max(0, int(round(seconds)))
    return f"{seconds // 60}:{seconds % 60:02d}"
