"""The scenarios' specs at each scale validate; at the reference scale the database
scenarios size their data against the servers' memory (dataset: 2x-memory) with a
memory limit on the server containers, at the small scale they give their sizes."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.core.spec import validate
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
