"""An open-ended sweep on a real file system that fills up: a 24 MiB ext4 on a loop
device, 8 MiB files prefilled per consumer, counts 1, 2, 4, 8. The 4-consumer step runs
out of space (fio's own ENOSPC), ends the sweep there with fio's words, the 8-consumer
step is skipped saying why, the earlier steps' results are kept, and a second run goes on
as the first left it. Without the rule the campaign is refused before anything runs."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from harness.campaign.run import run_campaign
from harness.planes.base import TargetError
from harness.planes.local.fio_target import LocalFioTarget
from harness.report import data as report_data
from harness.report.render import method_lines, write_report
from tests.harness.helpers import doc_source_copy, fio_json, small_ext4, tiny_spec

pytestmark = pytest.mark.functional


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    with small_ext4(tmp_path) as mount:
        yield mount


def _spec(directory: Path, **sweep: object):
    return tiny_spec(directory, name="fills", sweep={"counts": [1, 2, 4, 8], **sweep})


def test_a_sweep_that_runs_out_of_space_ends_there_and_keeps_what_it_measured(small_disk, tmp_path):
    spec = _spec(small_disk, stop_when={"no_space": True})
    outcome = run_campaign(spec, tmp_path / "results", LocalFioTarget)
    store = outcome.store
    states = [r.summary["state"] for r in outcome.results]
    assert states == ["done", "done", "failed", "skipped"]
    assert outcome.ok and outcome.failed_steps == []  # the sweep ended as it was told to

    full = outcome.results[2].summary
    err = (store.raw_dir(full["step"]) / "prefill.err").read_text()
    assert "No space left on device" in err  # fio's own words, in its stderr
    assert full["ended_sweep"].startswith("no space: ")
    assert "No space left on device" in full["ended_sweep"]
    skipped = outcome.results[3].summary
    assert skipped["error"] == (
        f"not run: the sweep of randrw-4k ended at 4 consumers ({full['step']}): "
        f"{full['ended_sweep']}"
    )
    assert not store.raw_dir(skipped["step"]).exists()  # nothing ran
    assert outcome.ended_sweeps == [
        f"randrw-4k at 4 consumers ({full['step']}): {full['ended_sweep']}"
    ]

    # the steps before it keep their figures: fio.csv has their 1 + 2 rows, equal to fio
    rows = (store.root / "fio.csv").read_text().splitlines()[1:]
    assert len(rows) == 3
    for result in outcome.results[:2]:
        raw = fio_json(store.raw_dir(result.summary["step"]) / "fio.out")
        iops = sum(j["read"]["iops"] + j["write"]["iops"] for j in raw["jobs"])
        sums = [(result.summary[d] or {}).get("iops_sum", 0) for d in ("read", "write")]
        assert sum(sums) == pytest.approx(iops, rel=1e-6)
    on_disk = json.loads((store.root / "summary.json").read_text())
    assert [s["ended_sweep"] for s in on_disk["steps"]] == [None, None, full["ended_sweep"], None]

    # the page's method says how far the sweep went and why it ended, its warnings name
    # the step; the skipped step has no row in its tables
    data = report_data.load(store)
    line = next(m for m in method_lines(data) if m.startswith("Consumers per step"))
    page = write_report(store, doc_source_copy(tmp_path)).read_text()
    assert f"- {full['step']}: the sweep of randrw-4k ended here: no space: " in page
    assert skipped["step"] not in page and "skipped" not in page
    assert line.startswith(
        "Consumers per step: 1, 2, 4, 8, until a step runs out of space; the sweep of "
        "randrw-4k ended at 4 consumers (no space: "
    )
    assert line.endswith("), so 8 did not run; 1 run(s) of each.")

    # run again: nothing runs, the ended sweep stays ended
    again = run_campaign(spec, tmp_path / "results", LocalFioTarget)
    assert [r.summary["state"] for r in again.results] == states
    assert [store.read_status(s).attempts for s in store.step_ids()] == [1, 1, 1, 0]
    assert not list(small_disk.glob("volperf-*"))  # its files removed at the end


def test_without_the_rule_a_sweep_that_cannot_fit_is_refused_before_it_starts(small_disk, tmp_path):
    spec = _spec(small_disk)
    with pytest.raises(TargetError, match=r"not enough free space .* x 8 consumers"):
        run_campaign(spec, tmp_path / "results", LocalFioTarget)
    assert not list(small_disk.glob("volperf-*"))
