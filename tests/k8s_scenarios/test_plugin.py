"""The scenarios' specs at each scale validate; at the reference scale the database
scenarios size their data against the servers' memory (dataset: 2x-memory) with a
memory limit on the server containers, at the small scale they give their sizes. The
plugin's options (pytest's volperf group, --volperf-*) format in `pytest --help`, and no
page is written unless --volperf-doc-source is given."""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from harness.core.spec import validate
from k8s_scenarios import plugin
from k8s_scenarios.plugin import SCALES, ScenarioOptions, capacity_of


def _options(scale: str, **capacity: object) -> ScenarioOptions:
    return ScenarioOptions(
        kubeconfig=Path("kubeconfig"),
        storage_classes=["fast"],
        scale=SCALES[scale],
        campaign="t",
        results=Path("results"),
        fio_image="fio",
        mariadb_image="mariadb",
        postgresql_image="postgresql",
        app_image="apps",
        image_pull_policy="Never",
        pod_timeout=300,
        capacity=capacity_of(SCALES[scale]["capacity"], capacity),
    )


@pytest.mark.parametrize("scale", sorted(SCALES))
def test_database_scenarios_validate_at_every_scale(scale):
    options = _options(scale)
    workloads = [
        {"name": "oltp", "tool": "sysbench-oltp", **options.data_size("table_size", 1000)},
        {"name": "tpcb", "tool": "pgbench", **options.data_size("scale", 2)},
    ]
    spec = validate(options.spec("db", "fast", workloads, [1]))
    oltp, tpcb = spec.workloads
    if scale == "reference":
        assert oltp.dataset == tpcb.dataset == "2x-memory"
        assert spec.target.db_memory_limit == "2Gi"
        assert spec.databases.mariadb.options["innodb_buffer_pool_size"] == "1G"
    else:
        assert (oltp.dataset, oltp.table_size, tpcb.scale) == (None, 1000, 2)
        assert spec.target.db_memory_limit is None


@pytest.mark.parametrize("scale", sorted(SCALES))
def test_the_application_scenarios_validate_at_every_scale(scale):
    options = _options(scale)
    pace = options.scale["app_pace"]
    workloads = [
        {
            "name": "git",
            "tool": "git",
            "repo": options.scale["git_repo"],
            "iterations": options.scale["git_iterations"],
            "pace": pace,
        },
        {
            "name": "build",
            "tool": "build",
            "source": options.scale["build_source"],
            "jobs": options.scale["build_jobs"],
            "iterations": options.scale["build_iterations"],
            "pace": pace,
        },
    ]
    spec = validate(options.spec("apps", "fast", workloads, options.scale["app_sweep"]))
    assert spec.target.app_image == "apps"
    assert spec.stop_when is not None and spec.stop_when.no_space
    if scale == "reference":
        assert spec.counts == [1, 10, 50, 100, 250]
        assert all(w.pace.create_per_min == 10 for w in spec.workloads)


@pytest.mark.parametrize("scale", sorted(SCALES))
def test_the_capacity_scenario_searches_at_every_scale(scale):
    options = _options(scale)
    spec = validate(options.spec("capacity", "fast", *options.capacity_search()))
    (workload,) = spec.workloads
    asked = SCALES[scale]["capacity"]
    assert spec.search is not None and spec.search.p99_ms == asked["p99_ms"]
    assert spec.search.p50_ms is None and spec.search.achieved_pct == asked["achieved_pct"]
    assert (spec.sweep.start, spec.sweep.max) == (1, asked["max_pods"])
    assert (workload.rw, workload.rate_iops, workload.runtime) == (
        ["randwrite"],
        asked["rate_iops"],
        asked["runtime"],
    )


def test_the_capacity_options_given_replace_the_scales_and_only_those():
    options = _options("small", rate_iops=80, p99_ms=5.0, p50_ms=1.0, max_pods=None)
    spec = validate(options.spec("capacity", "fast", *options.capacity_search()))
    assert spec.workloads[0].rate_iops == 80
    assert spec.search is not None and (spec.search.p99_ms, spec.search.p50_ms) == (5, 1)
    assert spec.sweep.max == SCALES["small"]["capacity"]["max_pods"]  # not given: the scale's


REPO = Path(__file__).resolve().parents[2]


def test_pytest_help_lists_the_volperf_group_and_exits_0(tmp_path):
    """The plugin loads in every pytest session of the environment: `pytest --help` works
    there, with its options in a group of their own, each named --volperf-*."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--help"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "unsupported format character" not in done.stderr
    group = done.stdout[done.stdout.index("volperf k8s_scenarios") :]
    for option in (
        "--volperf-results",
        "--volperf-scale",
        "--volperf-campaign",
        "--volperf-doc-source",
        "--volperf-kubeconfig",
        "--volperf-storage-class",
        "--volperf-capacity-achieved-pct",
    ):
        assert option in group, option
    listed = set(re.findall(r"^\s+(--[\w-]+)", done.stdout, re.MULTILINE))
    for old in ("--results", "--scale", "--campaign", "--doc-source", "--kubeconfig"):
        assert old not in listed, old


class _Session:
    """What pytest_sessionfinish reads of a session: the options and the terminal."""

    def __init__(self, options: dict[str, object]) -> None:
        self.said: list[str] = []
        self.config = self
        self.options = options

    def getoption(self, name: str) -> object:
        return self.options[name]

    def get_terminal_writer(self) -> _Session:
        return self

    def line(self, text: str) -> None:
        self.said.append(text)


def test_no_page_is_written_unless_a_doc_source_is_given(tmp_path, monkeypatch):
    """The current folder's Sphinx project (doc/source) is left alone by default."""
    source = tmp_path / "doc" / "source"
    source.mkdir(parents=True)
    (source / "conf.py").write_text("")
    campaign = tmp_path / "results" / "k8s-fio-fast"
    campaign.mkdir(parents=True)
    (campaign / "summary.json").write_text("{}")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setitem(plugin.CAMPAIGNS, "fio", [campaign])
    session = _Session({"volperf_doc_source": None, "volperf_results": Path("results")})
    plugin.pytest_sessionfinish(session)  # type: ignore[arg-type]
    assert sorted(p.name for p in source.iterdir()) == ["conf.py"]
    (said,) = session.said
    assert "no pages written" in said and "--volperf-doc-source" in said


def test_the_default_doc_source_is_none():
    parser = argparse.ArgumentParser()

    class _Group:
        def addoption(self, *names: str, **kwargs: object) -> None:
            parser.add_argument(*names, **kwargs)  # type: ignore[arg-type]

    class _Parser:
        def getgroup(self, name: str, description: str = "") -> _Group:
            assert name == "volperf"
            return _Group()

    plugin.pytest_addoption(_Parser())  # type: ignore[arg-type]
    defaults = parser.parse_args([])
    assert defaults.volperf_doc_source is None
    assert defaults.volperf_results == Path("results")
    parser.format_help()  # every help string formats (a bare % would raise)
