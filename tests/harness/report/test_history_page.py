"""`volperf history` on six real local campaigns of the same spec, the last three
deliberately slower (fio waits 1 ms between I/Os, well under what the first three did):
the page and its CSV show the figures in the order the campaigns ran, the fourth is
flagged, the level changes from the fourth on with the setting that differs, and each
campaign's page links to the history."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from harness.campaign.run import run_campaign
from harness.planes.local.fio_target import LocalFioTarget
from tests.harness.helpers import doc_source_copy, tiny_spec, volperf

# quiet: three runs' speeds set against each other
pytestmark = [pytest.mark.functional, pytest.mark.quiet]


@pytest.fixture(scope="module")
def nightly(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("history")
    (root / "data").mkdir()
    slow = {"thinktime": 1000}  # 1 ms between I/Os: the device is as fast, fio is not
    runs = [
        *((f"nightly-{n}", {}) for n in (1, 2, 3)),
        *((f"nightly-{n}", slow) for n in (4, 5, 6)),
    ]
    for name, options in runs:
        workload = {"rw": ["randread"], "iodepth": 4, "runtime": 2, "fio_options": options}
        spec = tiny_spec(root / "data", name=name, sweep=[1], workload=workload)
        assert run_campaign(spec, root / "results", LocalFioTarget).ok
    doc_source_copy(root)
    return root


def _summary_iops(root: Path, name: str) -> float:
    [step] = json.loads((root / "results" / name / "summary.json").read_text())["steps"]
    return step["read"]["iops_sum"]


def test_the_slower_campaign_is_flagged_and_the_figures_are_the_summaries(nightly):
    root = nightly
    made = volperf("history", "--match", "nightly-*", "--results", "results", cwd=root)
    assert made.returncode == 0, made.stderr
    assert "worse randrw-4k, 1, read: IOPS, sum: nightly-4" in made.stderr
    printed = " ".join(made.stderr.split())
    assert "level worse randrw-4k, 1, read: IOPS, sum: from nightly-4 on" in printed
    assert "changes of level against each figure's noise" in printed
    page = root / "doc" / "source" / "test_results" / "history-nightly"
    with (page / "history.csv").open() as handle:
        rows = [r for r in csv.DictReader(handle) if r["figure"] == "IOPS, sum"]
    assert [r["campaign"] for r in rows] == [f"nightly-{n}" for n in range(1, 7)]
    for row in rows:
        assert float(row["value"]) == pytest.approx(_summary_iops(root, row["campaign"]), 1e-5)
    assert [r["flag"] for r in rows][3] == "worse" and float(rows[3]["change"]) < -0.10
    assert _summary_iops(root, "nightly-4") < 0.5 * _summary_iops(root, "nightly-3")
    # the level changed from nightly-4 on, and only there, with the setting that changed
    assert [r["level_change"] for r in rows] == ["", "", "", "worse", "", ""]
    text = " ".join((page / "index.rst").read_text().split())
    assert "nightly-4" in text and "WORSE" in text
    level = text[text.index("Changes of level") : text.index("Changes beyond the threshold")]
    assert "randrw-4k, 1, read: IOPS, sum: from nightly-4 on, −" in level
    assert "what differs in method from nightly-3: fio\\_options" in level.replace("\\_", "\\_")
    assert "thinktime" in level
    assert (page / "h1.png").stat().st_size > 1000


def test_a_campaign_page_links_to_its_history_and_the_site_builds(nightly):
    root = nightly
    made = volperf("history", "--match", "nightly-*", "--results", "results", cwd=root)
    assert made.returncode == 0, made.stderr
    built = volperf("report", "results/nightly-2", "--build", "doc/build/html", cwd=root)
    assert built.returncode == 0, built.stderr
    campaign = (root / "doc/build/html/test_results/nightly-2/index.html").read_text()
    assert "../history-nightly/index.html" in campaign
    history = (root / "doc/build/html/test_results/history-nightly/index.html").read_text()
    body = history[history.index('role="main"') :]  # not the theme's navigation beside it
    table = body[body.index("Campaigns") :]  # the campaigns in the order they ran
    assert table.index("nightly-1") < table.index("nightly-2") < table.index("nightly-6")


def test_history_needs_two_campaigns(nightly):
    alone = volperf("history", "results/nightly-1", cwd=nightly)
    assert alone.returncode == 2 and "two campaigns or more" in alone.stderr
