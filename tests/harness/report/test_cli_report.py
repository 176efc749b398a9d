"""`volperf report` and `volperf compare` on real campaigns."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from harness.campaign.run import run_campaign
from harness.planes.local.fio_target import LocalFioTarget
from tests.harness.helpers import tiny_spec, volperf

pytestmark = pytest.mark.functional
REPO = Path(__file__).parents[3]


@pytest.fixture(scope="module")
def two_campaigns(tmp_path_factory) -> Path:
    """The same 4k randread sweep at iodepth 1 and at iodepth 16, on prefilled files."""
    root = tmp_path_factory.mktemp("cmp")
    (root / "data").mkdir()
    for name, depth in (("qd1", 1), ("qd16", 16)):
        spec = tiny_spec(
            root / "data",
            name=name,
            sweep=[1, 2],
            workload={"rw": "randread", "iodepth": depth, "runtime": 2},
        )
        assert run_campaign(spec, root / "results", LocalFioTarget).ok
    shutil.copytree(
        REPO / "doc" / "source",
        root / "doc" / "source",
        ignore=shutil.ignore_patterns("test_results"),
    )
    (root / "doc" / "source" / "test_results").mkdir()
    shutil.copy(
        REPO / "doc" / "source" / "test_results" / "index.rst",
        root / "doc" / "source" / "test_results",
    )
    return root


def test_compare_iodepth_1_against_16_has_the_right_signs_and_sizes(two_campaigns):
    root = two_campaigns
    result = volperf("compare", "results/qd1", "results/qd16", "--json", cwd=root)
    assert result.returncode == 0, result.stderr
    deltas = json.loads(result.stdout)["qd16"]
    summaries = {
        n: json.loads((root / "results" / n / "summary.json").read_text())["steps"]
        for n in ("qd1", "qd16")
    }
    for d in deltas:
        if d["delta"] is None:
            continue
        index = [s["step"] for s in summaries["qd1"]].index(d["step"])
        base = summaries["qd1"][index]["read"][d["metric"]]
        other = summaries["qd16"][index]["read"][d["metric"]]
        assert d["delta"] == pytest.approx((other - base) / base)  # the magnitude
    by_metric = {(d["concurrency"], d["metric"]): d for d in deltas}
    # 16 I/Os in flight instead of 1: more IOPS (better) at a higher latency (worse)
    assert by_metric[(1, "iops_sum")]["delta"] > 0.5 and by_metric[(1, "iops_sum")]["better"]
    assert (
        by_metric[(1, "p95_merged")]["delta"] > 0
        and by_metric[(1, "p95_merged")]["better"] is False
    )

    table = volperf("compare", "results/qd1", "results/qd16", cwd=root)
    assert table.returncode == 0, table.stderr
    assert "qd16 against qd1" in table.stderr and "better" in table.stderr
    page = root / "doc" / "source" / "test_results" / "compare-qd1-vs-qd16" / "index.rst"
    assert page.exists() and "IOPS, sum" in page.read_text()


def test_report_builds_and_prints_the_page(two_campaigns):
    root = two_campaigns
    result = volperf("report", "results/qd16", "--build", "doc/build/html", cwd=root)
    assert result.returncode == 0, result.stderr
    assert "report: doc/build/html/test_results/qd16/index.html" in result.stderr
    assert (root / "doc/build/html/test_results/qd16/index.html").exists()


def test_report_needs_a_sphinx_source(two_campaigns, tmp_path):
    result = volperf(
        "report",
        str(two_campaigns / "results" / "qd1"),
        "--doc-source",
        str(tmp_path),
        cwd=tmp_path,
    )
    assert result.returncode == 1 and "no conf.py" in result.stderr


def test_reference_campaigns_cannot_be_reparsed(tmp_path):
    reference = REPO / "results" / "reference" / "performance-docs-cinder-ceph"
    result = volperf("reparse", str(reference), cwd=tmp_path)
    assert result.returncode == 1 and "reference campaign" in result.stderr
