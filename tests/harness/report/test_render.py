"""Report pages built from real campaigns, checked in the built HTML."""

from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path

import pytest
import yaml

from harness.campaign.run import run_campaign
from harness.core.store import CampaignStore, atomic_write_text
from harness.planes.local.fio_target import LocalFioTarget
from harness.report.data import CampaignData
from harness.report.render import build_html, heading, method_lines, rst, write_report
from tests.harness.helpers import tiny_spec
from tests.harness.report.html_tables import tables_of

REPO = Path(__file__).parents[3]
REFERENCE = REPO / "results" / "reference" / "performance-docs-cinder-ceph"
RBD_SAMPLE = REPO / "results" / "samples" / "rbd-testbed"


def test_rst_escaping_and_headings():
    assert rst("a_b *c* `d` |e|") == r"a\_b \*c\* \`d\` \|e\|"
    assert rst("two\nlines") == "two lines"
    assert rst("") == "–"
    assert heading("Tail_latency", "^") == "Tail\\_latency\n" + "^" * 13


def test_the_kept_rbd_campaigns_method_names_the_engine_its_fio_job_ran():
    store = CampaignStore(RBD_SAMPLE)  # read only: its spec and a step's raw job file
    document = store.read_campaign()
    data = CampaignData(store.name, store, document["spec"], {}, document["backend"], [])
    [line] = [m for m in method_lines(data) if m.startswith("Workload randrw-4k:")]
    job = (store.raw_dir(store.step_ids()[0]) / "fio.job").read_text().splitlines()
    [ran] = [j.removeprefix("ioengine=") for j in job if j.startswith("ioengine=")]
    assert ran == "rbd" and document["spec"]["workloads"][0]["ioengine"] == "libaio"
    assert f"; ioengine {ran};" in line and "libaio" not in line, line


@pytest.fixture
def docs(tmp_path) -> Path:
    """A copy of the documentation sources, with the reference campaigns beside it."""
    source = tmp_path / "doc" / "source"
    shutil.copytree(REPO / "doc" / "source", source, ignore=shutil.ignore_patterns("test_results"))
    (source / "test_results").mkdir()
    shutil.copy(REPO / "doc" / "source" / "test_results" / "index.rst", source / "test_results")
    shutil.copytree(REFERENCE, tmp_path / "results" / "reference" / REFERENCE.name)
    return source


@pytest.fixture(scope="module")
def campaign(tmp_path_factory) -> CampaignStore:
    root = tmp_path_factory.mktemp("campaign")
    (root / "data").mkdir()
    spec = tiny_spec(root / "data", name="page", sweep=[2, 4])
    outcome = run_campaign(spec, root / "results", LocalFioTarget)
    assert outcome.ok
    return outcome.store


def build(docs: Path) -> Path:
    html = docs.parent / "html"
    result = build_html(docs, html)
    assert result.returncode == 0, result.stderr
    return html


@pytest.mark.functional
def test_page_tables_equal_the_csv(docs, campaign):
    index = write_report(campaign, docs)
    for stem in ("w1-iops", "w1-bandwidth", "w1-latency", "w1-distribution"):
        for suffix in ("png", "svg"):
            assert (index.parent / f"{stem}.{suffix}").stat().st_size > 1000
    html = build(docs)
    page = html / "test_results" / "page" / "index.html"
    tables = tables_of(page)
    rows = list(csv.DictReader((campaign.root / "fio.csv").open()))
    sums = tables["Sum over consumers"][1:]
    averages = tables["Average per consumer"][1:]
    for table_row, avg_row, concurrency in zip(sums, averages, ("2", "4"), strict=True):
        step_rows = [r for r in rows if r["concurrency"] == concurrency]
        readers = [float(r["read_iops"]) for r in step_rows if r["role"] == "reader"]
        writers = [float(r["write_iops"]) for r in step_rows if r["role"] == "writer"]
        assert table_row[:3] == [concurrency, f"{sum(readers):.0f}", f"{sum(writers):.0f}"]
        assert avg_row[1] == f"{sum(readers) / len(readers):.0f}"
        p95 = [float(r["read_complelatency_95%ile"]) for r in step_rows if r["role"] == "reader"]
        assert avg_row[7] == f"{sum(p95) / len(p95):.3f}"
    assert "Tail latency (ms)" in tables and "Runs" in tables
    # volperf's own cost, one row per step, as summary.json has it
    steps = json.loads((campaign.root / "summary.json").read_text())["steps"]
    cost = tables["volperf itself, per step"]
    assert cost[0][:4] == ["step", "consumers", "wall s", "volperf CPU s"]
    for row, step in zip(cost[1:], steps, strict=True):
        own = step["cost"]
        assert row[:5] == [
            step["step"],
            str(step["concurrency"]),
            f"{own['wall_s']:.1f}",
            f"{own['cpu_s']:.2f}",
            f"{own['cpu_s'] / step['concurrency']:.3f}",
        ]
        assert row[6] == f"{own['peak_rss_bytes'] / 2**20:.0f}" and row[7] == "0"
    assert (html / "test_results" / "page" / "index.html").read_text().count("<img") >= 4
    text = page.read_text()
    assert "fio.csv" in text and "Warnings" in text
    assert (html / "_downloads").exists()
    # the page leads with the answer: the sums and the IOPS plot, then the warnings, the
    # method and the detail; the environment at the end, before the raw data
    rst = index.read_text()
    order = ["In short", "Sum over consumers", "w1-iops.png", "\nWarnings\n", "\nMethod\n"]
    order += ["Average per consumer", "w1-bandwidth.png", "\nEnvironment\n", "\nRaw data\n"]
    places = [rst.index(marker) for marker in order]
    assert places == sorted(places) and rst.count("w1-iops.png") == 1


@pytest.mark.functional
def test_reference_campaign_page_marks_the_ceiling(docs):
    html = build(docs)  # conf.py generates the reference pages itself
    page = html / "test_results" / REFERENCE.name / "index.html"
    tables = tables_of(page)
    average = tables["Average per consumer"]
    assert average[1][:3] == ["2", "10711", "3517"]
    assert average[-1][0] == "40" and average[-1][-1] == "≥ ceiling"
    assert average[-2][-1] == "11848.909"
    rally = tables[
        "Response times, CinderVolumes.create_and_attach_volume, 120 iterations (concurrency 40)"
    ]
    assert rally[-1] == [
        "total",
        "31.509",
        "53.733",
        "68.212",
        "73.372",
        "109.88",
        "55.682",
        "100.0%",
        "120",
    ]
    assert "16711.68 ms" in page.read_text()


SECRETS = {
    "S3cretPass!": "a password",
    "tok-9f8e7d6c5b": "a kubeconfig token",
    "AQAKoUZYmYmDMxAAfD52DuUlghtH6bGSutTfnQ==": "the Ceph key printed in the seed page",
    "pw-in-clouds-yaml": "a clouds.yaml password",
    "eyJhbGciOiJIUzI1NiJ9.payload": "a bearer token",
}


@pytest.mark.functional
def test_no_secret_reaches_the_built_pages(docs, tmp_path):
    (tmp_path / "data").mkdir()
    spec = tiny_spec(
        tmp_path / "data",
        name="secrets",
        sweep=[1],
        labels={
            "os_password": "S3cretPass!",
            "note": "key AQAKoUZYmYmDMxAAfD52DuUlghtH6bGSutTfnQ==",
        },
    )
    store = run_campaign(spec, tmp_path / "results", LocalFioTarget).store
    # what a later plane might record: a clouds.yaml, a kubeconfig, a token in an error
    document = store.read_campaign()
    document["environment"]["clouds"] = {
        "devstack": {"auth": {"username": "admin", "password": "pw-in-clouds-yaml"}}
    }
    document["environment"]["kubeconfig"] = {
        "users": [{"name": "u", "user": {"token": "tok-9f8e7d6c5b"}}]
    }
    atomic_write_text(store.campaign_file, yaml.safe_dump(document))
    status = store.read_status(store.step_ids()[0])
    status.notes.append("api said: Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.payload")
    store.write_status(status)
    write_report(store, docs)
    html = build(docs)
    for path in list(html.rglob("*")) + list((docs / "test_results").rglob("*")):
        if path.is_file():
            content = path.read_bytes()
            for secret, what in SECRETS.items():
                assert secret.encode() not in content, f"{what} in {path}"
    page = (html / "test_results" / "secrets" / "index.html").read_text()
    assert "clouds.devstack.auth" in page and "&lt;redacted&gt;" in page
