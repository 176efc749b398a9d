"""A real local campaign of three repeats: its page shows the common window beside the
whole run, and each figure's mean and coefficient of variation across the repeats."""

from __future__ import annotations

import json

import pytest

from harness.campaign.run import run_campaign
from harness.planes.local.fio_target import LocalFioTarget
from harness.records import stats
from tests.harness.helpers import doc_source_copy, tiny_spec, volperf

pytestmark = pytest.mark.functional


def test_repeats_page(tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    spec = tiny_spec(data, name="thrice", sweep=[2], repeats=3, workload={"runtime": 2})
    outcome = run_campaign(spec, tmp_path / "results", LocalFioTarget)
    assert outcome.ok, [r.summary for r in outcome.results]
    summary = json.loads((outcome.store.root / "summary.json").read_text())
    sums = [s["read"]["iops_sum"] for s in summary["steps"]]
    [spread] = [
        r for r in summary["repeats"] if r["direction"] == "read" and r["figure"] == "iops_sum"
    ]
    assert spread["values"] == sums
    assert spread["cv"] == pytest.approx(stats.coefficient_of_variation(sums))
    assert spread["flagged"] == (spread["cv"] > 0.10)
    assert all(s["window"]["read"]["iops_sum"] > 0 for s in summary["steps"])

    source = doc_source_copy(tmp_path)
    result = volperf("report", str(outcome.store.root), "--doc-source", str(source), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    page = (source / "test_results" / "thrice" / "index.rst").read_text()
    assert ".. list-table:: Common window against the whole run" in page
    assert ".. list-table:: Run-to-run spread" in page
    assert f"{spread['cv']:.1%}" in page
