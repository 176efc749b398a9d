"""tests/suite_groups.py: each testbed's tests run on one worker, in a real pytest-xdist
run of a small suite whose testbed fixtures only note the worker that made them."""

from __future__ import annotations

import fcntl
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.harness.helpers import REPO
from tests.suite_groups import CPU_CGROUPS, QuietWindow, group_of, quiet_lock_path

CONFTEST = """
import os
import pytest
from tests.suite_groups import arrange, machine_alone, register

@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items):
    arrange(items)

def pytest_configure(config):
    register(config)

def _made(name):
    with open(os.path.join(os.environ["MADE_DIR"], name), "a") as out:
        out.write(os.environ.get("PYTEST_XDIST_WORKER", "main") + "\\n")

@pytest.fixture(scope="session")
def ceph_testbed():
    _made("ceph")

@pytest.fixture(scope="session")
def openstack_bring_up(ceph_testbed):
    _made("openstack")
    _os_turn("bring-up")

@pytest.fixture(scope="session")
def openstack_testbed(openstack_bring_up):
    pass

def _os_turn(name):
    with open(os.path.join(os.environ["MADE_DIR"], "os-turns"), "a") as out:
        out.write(name + "\\n")

@pytest.fixture(scope="session")
def k8s_testbed_up():
    _made("k8s")

@pytest.fixture(scope="session")
def k8s_scenarios(k8s_testbed_up):
    _made("k8s-scenarios")

@pytest.fixture(scope="session")
def k8s_testbed(k8s_scenarios):
    pass

@pytest.fixture(scope="session")
def k8s_scenarios_done(k8s_scenarios):
    pass

@pytest.fixture(scope="session")
def k8s_testbed_alone(k8s_scenarios_done):
    pass

@pytest.fixture(scope="session")
def k8s_scenarios_all(request, k8s_testbed_alone):
    import time
    with machine_alone(request.config):
        start = time.time()
        time.sleep(0.3)
        with open(os.path.join(os.environ["MADE_DIR"], "times"), "a") as out:
            out.write(f"alone-k8s {start} {time.time()}\\n")
"""

TESTS = """
import pytest

def test_pods_last(k8s_scenarios_all):
    _turn("last")

def test_pods_alone(k8s_testbed_alone):
    _turn("alone")

def test_pods_results(k8s_scenarios_done):
    _turn("results")

@pytest.mark.parametrize("n", range(4))
def test_heat(openstack_testbed, n):
    _cgroup(f"heat{n}")
    _turn("cloud", "os-turns")

@pytest.mark.parametrize("n", range(4))
def test_rbd(ceph_testbed, n):
    _cgroup(f"rbd{n}")
    _turn("ceph", "os-turns")

@pytest.mark.parametrize("n", range(4))
def test_pods(k8s_testbed, n):
    _cgroup(f"pods{n}")
    _turn("shared")

def test_pods_fresh(k8s_testbed_up):
    _turn("fresh")

@pytest.mark.parametrize("n", range(12))
def test_unit(n, tmp_path_factory):
    _timed(f"unit{n}", 0.2)
    _cgroup(f"unit{n}")

@pytest.mark.quiet
@pytest.mark.parametrize("n", range(3))
def test_alone(n):
    _timed(f"quiet{n}", 0.3)
    _cgroup(f"quiet{n}")

def _cgroup(name):
    import os, subprocess
    # as a process the test starts sees it
    line = subprocess.run(["grep", ":cpu,cpuacct:\\|:cpu:", "/proc/self/cgroup"],
                          capture_output=True, text=True).stdout.strip()
    with open(os.path.join(os.environ["MADE_DIR"], "cgroups"), "a") as out:
        out.write(f"{name} {line.rsplit(':', 1)[-1] if line else '?'}\\n")

def _turn(name, file="turns"):
    import os
    with open(os.path.join(os.environ["MADE_DIR"], file), "a") as out:
        out.write(name + "\\n")

def _timed(name, seconds):
    import os, time
    start = time.time()
    time.sleep(seconds)
    with open(os.path.join(os.environ["MADE_DIR"], "times"), "a") as out:
        out.write(f"{name} {start} {time.time()}\\n")
"""


def test_a_testbed_is_made_once_and_its_tests_share_a_worker(tmp_path: Path):
    (tmp_path / "conftest.py").write_text(textwrap.dedent(CONFTEST))
    (tmp_path / "test_small.py").write_text(textwrap.dedent(TESTS))
    made = tmp_path / "made"
    made.mkdir()
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-n", "3", "--dist", "loadgroup", "-v"]
        # its own --basetemp: pytest makes its default root private again (0700), which
        # would shut the database tests' service users out of theirs
        + ["--basetemp", str(tmp_path / "basetemp")]
        + ["-p", "no:cacheprovider", "--rootdir", str(tmp_path), str(tmp_path)],
        capture_output=True,
        text=True,
        env={
            "PYTHONPATH": str(REPO),
            "MADE_DIR": str(made),
            "VOLPERF_TEST_LOCKS": str(tmp_path / "locks"),  # not the suite's own
            "PATH": "/usr/bin:/bin",
        },
        timeout=300,
    )
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]
    ran = {
        test: worker for worker, test in re.findall(r"\[(gw\d)\] .*?PASSED \S+::(\S+)", run.stdout)
    }
    assert len(ran) == 31, run.stdout
    workers = {
        kind: {w for t, w in ran.items() if t.startswith(f"test_{kind}[")}
        for kind in ("rbd", "heat", "pods")
    }
    workers["pods"] |= {w for t, w in ran.items() if t.startswith("test_pods_")}
    # Ceph and OpenStack (on that Ceph) share one worker, Kubernetes has one of its own
    assert len(workers["rbd"] | workers["heat"]) == 1 and len(workers["pods"]) == 1
    assert workers["rbd"] != workers["pods"]
    for testbed in ("ceph", "openstack", "k8s", "k8s-scenarios"):
        assert len((made / testbed).read_text().splitlines()) == 1, testbed
    assert "wall time per group" in run.stdout
    table = run.stdout[run.stdout.index("wall time per group") :]
    assert re.search(r"openstack\s+8\s", table) and re.search(r"k8s\s+8\s", table)
    assert re.search(r"spread\s+12\s", table) and re.search(r"quiet\s+3\s", table)
    # the k8s group in turns (suite_groups.TURNS), whatever the order in the file: the
    # testbed as brought up, the tests that share it with the background scenarios, those
    # of the scenarios' results, those that need it alone, the one that runs last
    turns = (made / "turns").read_text().split()
    assert turns == ["fresh", *["shared"] * 4, "results", "alone", "last"]
    # the openstack group likewise: the cloud's bring-up started with the first test of
    # Ceph (suite_groups.STARTED_EARLY), those tests run while it comes up, the cloud's
    # after them (written first in the file)
    turns = (made / "os-turns").read_text().split()
    assert turns == ["bring-up", *["ceph"] * 4, *["cloud"] * 4]
    # the quiet tests share a worker, and each ran while no other test did; so did the
    # k8s group's last run, in its worker's own turn (suite_groups.machine_alone)
    assert len({w for t, w in ran.items() if t.startswith("test_alone[")}) == 1
    times = [line.split() for line in (made / "times").read_text().splitlines()]
    spans = {name: (float(start), float(stop)) for name, start, stop in times}
    assert "alone-k8s" in spans
    for name, (start, stop) in spans.items():
        if name.startswith(("quiet", "alone")):
            others = [s for n, s in spans.items() if n != name]
            assert all(stop <= s0 or s1 <= start for s0, s1 in others), (name, spans)
    # the spread tests (and what they start) in the suite's cpu cgroup, the others not;
    # the cgroup gone at the end
    lines = (made / "cgroups").read_text().splitlines()
    cgroups = {name: cgroup for name, cgroup in (line.split() for line in lines)}
    assert len(cgroups) == 27
    if os.access(CPU_CGROUPS / "cgroup.procs", os.W_OK):  # this machine's kind
        [spread] = {c for n, c in cgroups.items() if n.startswith("unit")}
        assert re.fullmatch(r"/volperf-tests-\d+", spread), cgroups
        assert {c for n, c in cgroups.items() if not n.startswith("unit")} == {"/"}, cgroups
        assert not (CPU_CGROUPS / spread.lstrip("/")).exists()


def test_a_test_that_needs_two_groups_testbeds_is_refused():
    assert group_of(["tmp_path", "openstack_campaigns"]) == "openstack"
    assert group_of(["tmp_path"]) is None
    with pytest.raises(ValueError, match="groups k8s, openstack"):
        group_of(["ceph_testbed", "k8s_testbed"])


class _Item:
    def __init__(self, quiet: bool) -> None:
        self.quiet = quiet

    def get_closest_marker(self, name: str) -> object | None:
        return object() if self.quiet and name == "quiet" else None


def test_a_quiet_test_runs_once_the_writes_others_left_are_on_disk(tmp_path, monkeypatch):
    """QuietWindow: a quiet test takes the lock alone, then the page cache's dirty pages
    are written back (sync), before it runs; a test of the other kind does neither."""
    monkeypatch.setenv("VOLPERF_TEST_LOCKS", str(tmp_path))
    synced: list[str] = []

    def sync() -> None:  # who else could hold the lock while the writes go to disk
        with quiet_lock_path().open("a") as other:
            try:
                fcntl.flock(other, fcntl.LOCK_SH | fcntl.LOCK_NB)
                synced.append("shared")
            except BlockingIOError:
                synced.append("alone")

    monkeypatch.setattr(os, "sync", sync)
    window = QuietWindow()
    for quiet in (True, False):
        protocol = window.pytest_runtest_protocol(_Item(quiet), None)
        next(protocol)  # the test runs here
        with pytest.raises(StopIteration):
            protocol.send(None)
    assert synced == ["alone"]
