"""volperf as a user installs it: the sdist and wheel `python -m build` makes from the
tracked files (no warning), installed with its extras into a fresh virtualenv outside
the checkout, and used from there: a local campaign, the Heat template found and checked,
Rally listing volperf's plugins, the k8s scenarios collected as a pytest plugin, and a
report built into a site of its own."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

pytestmark = pytest.mark.functional
REPO = Path(__file__).parents[1]
SHIPPED = [
    "heat_templates/cinder-fio/main.yaml",
    "heat_templates/cinder-fio/vm.yaml",
    "heat_templates/cinder-fio/agent.sh",
    "rally_plugins/tasks/control-plane.yaml",
    "rally_plugins/tasks/data-plane.yaml",
    "rally_plugins/scenarios/data_plane.py",
    "rally_plugins/scenarios/volumes.py",
    "rally_plugins/tasks/presets/lifecycle.yaml",
    "rally_plugins/tasks/presets/sweep-2-to-120.yaml",
    "harness/report/site/conf.py",
    "harness/report/site/test_results/index.rst",
    "harness/report/templates/campaign.rst.j2",
    "harness/campaign/profiles/quick.yaml",
    "harness/testbeds/k8s/kbuild/go.mod",
    "harness/testbeds/k8s/kbuild/go.sum",
    "harness/testbeds/openstack/services-constraints.txt",
    "harness/testbeds/openstack/templates/nova.conf.j2",
    "harness/tools/sysbench/reconnect.lua",
    "harness/tools/apps/redis.sh",
    "harness/tools/ycsb/go/go.mod",
    "harness/tools/ycsb/go/go.sum",
    "harness/tools/ycsb/go/main.go",
    "harness/tools/nats/go/go.mod",
    "harness/tools/nats/go/go.sum",
    "harness/tools/nats/go/tools.go",
    "harness/tools/apps/broker.sh",
    "k8s_scenarios/test_fio_pvc.py",
]


def _run(*argv: str | Path, cwd: Path, timeout: float = 900) -> subprocess.CompletedProcess[str]:
    # as a user's shell has it: this machine's PYTHONDONTWRITEBYTECODE only makes
    # setuptools say it skips byte-compiling
    unset = ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONDONTWRITEBYTECODE")
    environment = {k: v for k, v in os.environ.items() if k not in unset}
    done = subprocess.run(
        [str(a) for a in argv],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
        env=environment,
    )
    assert done.returncode == 0, f"{argv}:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> tuple[Path, str]:
    """The sdist and the wheel, built from a copy of the tracked files; build's output."""
    root = tmp_path_factory.mktemp("packaging")
    source = root / "source"
    tracked = subprocess.run(
        ["git", "ls-files", "-z"], cwd=REPO, capture_output=True, check=True
    ).stdout.decode()
    for name in filter(None, tracked.split("\0")):
        if name.startswith(("results/", "tests/", "benchmarks/")) or not (REPO / name).exists():
            continue
        (source / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(REPO / name, source / name)
    done = _run(sys.executable, "-m", "build", "--outdir", root / "dist", source, cwd=root)
    return root, done.stdout + done.stderr


@pytest.fixture(scope="module")
def venv(built) -> Path:
    """A fresh virtualenv outside the checkout with the wheel and its extras."""
    root, _ = built
    [wheel] = (root / "dist").glob("volperf-*.whl")
    _run(sys.executable, "-m", "venv", root / "venv", cwd=root)
    pip = root / "venv" / "bin" / "pip"
    # --no-compile: a module is compiled when a command first imports it; compiling every
    # module of every dependency at install took 38 of the install's 96 CPU-s (idle, 2026-11-28)
    wanted = f"{wheel}[rally,heat,k8s,docs]"
    _run(pip, "install", "--quiet", "--no-compile", wanted, cwd=root, timeout=1800)
    (root / "work").mkdir()
    return root / "venv" / "bin"


def test_the_build_warns_of_nothing_and_ships_every_file_the_commands_read(built):
    root, output = built
    assert not re.findall(r"(?im)^.*warning.*$", output)
    [wheel] = (root / "dist").glob("volperf-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    assert [n for n in SHIPPED if n not in names] == []
    [sdist] = (root / "dist").glob("volperf-*.tar.gz")
    assert sdist.stat().st_size > 50_000


def test_a_local_campaign_and_its_report_in_a_site_of_its_own(venv, tmp_path):
    work = venv.parents[1] / "work"
    (work / "data").mkdir()
    argv = ["run", "local", "--dir", "data", "--profile", "quick", "--runtime", "1"]
    argv += ["--size", "4M", "--sweep", "2", "--name", "installed", "--results", "results"]
    _run(venv / "volperf", *argv, cwd=work)
    assert (work / "results" / "installed" / "fio.csv").exists()
    reported = _run(venv / "volperf", "report", "results/installed", "--build", "site", cwd=work)
    assert "site/test_results/installed/index.html" in reported.stderr
    assert (work / "site.source" / "conf.py").exists()
    page = (work / "site" / "test_results" / "installed" / "index.html").read_text()
    assert "Results of campaign installed" in page


def test_the_heat_template_is_found_in_the_installed_package_and_checked(venv):
    work = venv.parents[1] / "work"
    example = REPO / "examples" / "openstack-heat-fio.yaml"
    checked = _run(venv / "volperf", "spec", "check", example, cwd=work)
    assert "site-packages/heat_templates/cinder-fio/main.yaml checked" in checked.stdout


def test_rally_lists_volperfs_plugins(venv):
    listed = _run(venv / "rally", "plugin", "list", cwd=venv.parents[1] / "work")
    plugins = (
        "volperf_ceph_health",
        "volperf_ceph_fault",
        "volperf_service_fault",
        "volperf_action_percentile",
        "volperf_regression",
        "volperf_data_plane_args",
        "VolPerf.cinder_fio",
        "VolPerf.multiattach_volume",
        "VolPerf.retype_volume",
    )
    for plugin in plugins:
        assert plugin in listed.stdout


def test_the_k8s_scenarios_are_collected_from_the_installed_package(venv, tmp_path):
    collected = _run(
        venv / "python",
        "-m",
        "pytest",
        "-p",
        "no:cacheprovider",
        # its own: pytest's default root would be made private (0700) again, under the
        # suite's database tests whose servers' users traverse it
        "--basetemp",
        str(tmp_path / "basetemp"),
        "--pyargs",
        "k8s_scenarios",
        "--collect-only",
        "-q",
        "--volperf-storage-class",
        "fast",
        cwd=venv.parents[1] / "work",
    )
    assert "test_fio_pvc.py::" in collected.stdout and "[fast]" in collected.stdout
