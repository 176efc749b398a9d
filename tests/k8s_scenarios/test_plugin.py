"""The scenarios' specs at each scale validate; at the reference scale the database
scenarios size their data against the servers' memory (dataset: 2x-memory) with a
memory limit on the server containers, at the small scale they give their sizes."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.core.spec import validate
from k8s_scenarios.plugin import SCALES, ScenarioOptions


def _options(scale: str) -> ScenarioOptions:
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
