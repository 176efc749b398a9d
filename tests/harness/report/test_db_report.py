"""The database profiles run from the CLI, and their report page shows the db tables."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.harness.db_fixtures import make_reachable
from tests.harness.helpers import volperf
from tests.harness.report.html_tables import tables_of

pytestmark = pytest.mark.functional
REPO = Path(__file__).parents[3]


@pytest.fixture(scope="module")
def workspace(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("dbreport")
    make_reachable(root / "storage")
    source = root / "doc" / "source"
    shutil.copytree(REPO / "doc" / "source", source, ignore=shutil.ignore_patterns("test_results"))
    (source / "test_results").mkdir()
    shutil.copy(REPO / "doc" / "source" / "test_results" / "index.rst", source / "test_results")
    return root


def run_profile(root: Path, profile: str, *options: str) -> dict:
    result = volperf(
        "run",
        "local",
        "--profile",
        profile,
        "--dir",
        "storage",
        "--name",
        profile,
        "--runtime",
        "2",
        *options,
        cwd=root,
    )
    assert result.returncode == 0, result.stderr
    return json.loads((root / "results" / profile / "summary.json").read_text())


def page_tables(root: Path, name: str) -> dict[str, list[list[str]]]:
    result = volperf("report", f"results/{name}", "--build", "html", cwd=root)
    assert result.returncode == 0, result.stderr
    return tables_of(root / "html" / "test_results" / name / "index.html")


def test_bare_host_profile_page(workspace):
    summary = run_profile(
        workspace, "bare-host", "--size", "16M", "--set", "file_num=2", "--set", "scale=1"
    )
    tables = page_tables(workspace, "bare-host")
    by_step = {s["workload"]: s for s in summary["steps"]}
    rndrw = tables["fileio-rndrw: per step"]
    assert rndrw[0][:5] == ["consumers", "threads", "reads/s", "writes/s", "fsyncs/s"]
    assert rndrw[1][2] == f"{by_step['fileio-rndrw']['db']['reads_per_s_total']:.0f}"
    seqwr = tables["fileio-seqwr: per step"][1]
    assert seqwr[6] == f"{by_step['fileio-seqwr']['db']['written_mib_s_total']:.1f}"
    pgbench = tables["pgbench: per step"]
    assert pgbench[0] == [
        "consumers",
        "clients",
        "TPS sum",
        "TPS per consumer",
        "latency avg ms",
        "load s",
    ]
    db = by_step["pgbench"]["db"]
    assert pgbench[1][2] == f"{db['tps_total']:.1f}" and float(pgbench[1][5]) > 0
    per_consumer = tables["Database results per consumer"]
    assert "tps" in per_consumer[0] and "qps" not in per_consumer[0]  # empty columns go


def test_multi_tenant_oltp_profile_page(workspace):
    summary = run_profile(
        workspace,
        "multi-tenant-oltp",
        "--sweep",
        "2",
        "--set",
        "table_size=1000",
        "--set",
        "threads=[1, 2]",
        "--set",
        "kills=1",
        "--set",
        "before=2",
        "--set",
        "after=2",
    )
    # threads=[1, 2] applies to both workloads: 2 oltp steps, 2 io-pause steps
    assert [s["state"] for s in summary["steps"]] == ["done"] * 4
    tables = page_tables(workspace, "multi-tenant-oltp")
    oltp = tables["oltp-rw: per step"]
    assert [row[:2] for row in oltp[1:]] == [["2", "1"], ["2", "2"]]
    assert all(float(row[2]) > 0 for row in oltp[1:])
    pause = tables["io-pause: per step"]
    assert pause[0][3:5] == ["io-pause mean s", "io-pause max s"]
    assert pause[1][2] == "2"  # two servers killed once
    events = tables["Timed events"]
    assert {row[2] for row in events[1:]} == {"io-pause", "server-recovery"}
    assert (
        workspace / "doc" / "source" / "test_results" / "multi-tenant-oltp" / "w1-tps.png"
    ).exists()
    page = (workspace / "html" / "test_results" / "multi-tenant-oltp" / "index.html").read_text()
    assert "w1-tps.png" in page


def test_set_names_a_key_no_workload_has(workspace):
    result = volperf(
        "run",
        "local",
        "--profile",
        "bare-host",
        "--dir",
        "storage",
        "--set",
        "nosuch=1",
        cwd=workspace,
    )
    assert result.returncode == 2
    assert "no workload of profile 'bare-host' has 'nosuch'" in result.stderr
