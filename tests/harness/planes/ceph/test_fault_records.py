"""A step's records, page and comparison when volperf gave the faults itself
(fixtures/osd-faults/capture.sh: a real `volperf run` of examples/ceph-rbd-outage.yaml on a
3-OSD testbed, osd.1 stopped 10 s into fio's run and started at 30 s), set against the
outage given by hand (fixtures/osd-outage: the same step, the OSD stopped from outside)."""

from __future__ import annotations

import csv
import json
import shutil
from datetime import datetime
from pathlib import Path

import pytest

from harness.campaign.rebuild import rebuild
from harness.core.store import CampaignStore
from harness.records.compare import compare_campaigns
from harness.records.phases import HEALED
from harness.report.data import load
from harness.report.render import write_report
from tests.harness.helpers import doc_source_copy
from tests.harness.planes.ceph.fixtures import (
    assert_phases_equal_the_iops_log,
    completed_per_phase,
)

FIXTURES = Path(__file__).parent / "fixtures"


def _campaign(tmp_path: Path, name: str) -> CampaignStore:
    store = CampaignStore(tmp_path / name)
    shutil.copytree(FIXTURES / name / "campaign", store.root)
    rebuild(store)
    return store


def _step(store: CampaignStore) -> dict:
    [step] = json.loads((store.root / "summary.json").read_text())["steps"]
    return step


def test_the_faults_given_are_in_the_steps_records_at_their_times_from_fios_start(tmp_path):
    step = _step(_campaign(tmp_path, "osd-faults"))
    [raw] = (tmp_path / "osd-faults" / "steps").glob("*/raw")
    written = json.loads((raw / "faults.json").read_text())
    assert written["where"] == "the Ceph testbed in <testbed>"
    stop, start = step["faults"]
    assert (stop["fault"], start["fault"]) == (
        "stop-osd osd.1 at +10 s",
        "start-osd osd.1 at +30 s",
    )
    # given when asked, from fio's own start (its exec_prerun), as the measured start has it
    assert stop["at_s"] == pytest.approx(10, abs=0.5) and start["at_s"] == pytest.approx(
        30, abs=0.5
    )
    assert stop["commands"][0].startswith("kill -TERM ") and stop["error"] is None
    assert not [w for w in step["warnings"] if w["code"] == "fault-not-given"]
    # from the stop to the first sample with every PG clean again
    found = step["phases"]
    [healed] = [p for p in found["phases"] if p["state"] == HEALED]
    assert found["fault_to_healed_s"] == pytest.approx(healed["start_s"] - stop["at_s"], abs=0.01)
    assert list(found["per_second"]) == ["c01"]


def test_the_page_draws_the_phases_and_lists_the_faults_commands(tmp_path):
    store = _campaign(tmp_path, "osd-faults")
    page = write_report(store, doc_source_copy(tmp_path))
    text = page.read_text()
    assert ".. figure:: phases.png" in text
    assert (page.parent / "phases.png").stat().st_size > 10_000
    assert "stop-osd osd.1 at +10 s: given at +" in text
    assert "start-osd osd.1 at +30 s: given at +" in text and "ceph-osd -c <testbed>" in text


def test_the_outage_volperf_gave_compares_phase_by_phase_with_the_one_given_by_hand(tmp_path):
    by_hand = load(_campaign(tmp_path, "osd-outage")).compared()
    given = load(_campaign(tmp_path, "osd-faults")).compared()
    comparison = compare_campaigns(by_hand, given, accept_differences=True)
    deltas = {(d.direction, d.metric): d for d in comparison.deltas}
    for state in ("healthy", "degraded", "recovering", "healed"):
        kept = deltas[(f"phase {state}", "iops")]
        assert kept.baseline is not None and kept.other is not None
    healed = deltas[("recovery", "fault_to_healed_s")]
    assert healed.baseline is None  # given by hand: volperf knew of no fault
    assert healed.other == _step_of(tmp_path)["phases"]["fault_to_healed_s"]


def _step_of(tmp_path: Path) -> dict:
    return _step(CampaignStore(tmp_path / "osd-faults"))


def test_the_last_phase_ends_where_fios_per_second_log_does(tmp_path):
    """fio writes no point for the run's last, partial second: the last phase ends at the
    log's last point, or its IOPS would count that second's time without its I/Os."""
    store = _campaign(tmp_path, "osd-faults")
    step = _step(store)
    [raw] = (store.root / "steps").glob("*/raw")
    [iops_log] = raw.glob("logs/*_iops.1.log")
    with iops_log.open() as handle:
        last_point = max(int(row[0]) for row in csv.reader(handle)) / 1000
    with (store.root / "fio.csv").open() as handle:
        [row] = csv.DictReader(handle)
    start = datetime.fromisoformat(row["starttime"]).timestamp()
    stop = datetime.fromisoformat(row["stoptime"]).timestamp()
    found = step["phases"]
    last = found["phases"][-1]
    assert start + last["start_s"] + last["seconds"] == pytest.approx(last_point, abs=0.002)
    assert stop - last_point > 0.5  # the second fio left out
    rates = completed_per_phase(raw, start, found["phases"])
    for summed, rate in zip(found["sum"], rates, strict=True):
        assert summed["kept_pct"] == pytest.approx(100 * rate / rates[0], abs=5)


def test_each_phases_iops_kept_equals_fios_per_second_log_read_apart(tmp_path):
    """Each phase's I/Os, IOPS and IOPS kept, to their rounding, as fio's own per-second
    IOPS log gives them read apart from volperf's parser."""
    store = _campaign(tmp_path, "osd-faults")
    found = _step(store)["phases"]
    [raw] = (store.root / "steps").glob("*/raw")
    with (store.root / "fio.csv").open() as handle:
        [row] = csv.DictReader(handle)
    assert len(found["sum"]) >= 3
    assert_phases_equal_the_iops_log(
        found, raw, datetime.fromisoformat(row["starttime"]).timestamp()
    )
