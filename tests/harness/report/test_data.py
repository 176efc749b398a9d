"""What a page shows is loaded without a write into the campaign's folder (a docs build
reads results/, never writes it): the records rebuilt from raw/ are kept in memory, and
they are what the page shows and offers, not the files the folder keeps."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from harness.core.store import CampaignStore
from harness.report.data import load

RESULTS = Path(__file__).parents[3] / "results"


def _files(root: Path) -> dict[Path, bytes]:
    return {p: p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.mark.parametrize(
    "kept",
    [
        "ceph-recovery/high-client-ops",
        "scale/heat-vms/heat-vms-20",
        "reference/performance-docs-cinder-ceph",
    ],
)
def test_loading_a_campaign_writes_nothing_into_it(tmp_path, kept):
    campaign = tmp_path / Path(kept).name
    shutil.copytree(RESULTS / kept, campaign)
    before = _files(campaign)
    data = load(CampaignStore(campaign))
    assert data.steps
    assert _files(campaign) == before


def test_the_records_loaded_are_rebuilt_from_raw_not_read_from_the_folder(tmp_path):
    campaign = tmp_path / "heat-vms-20"
    shutil.copytree(RESULTS / "scale" / "heat-vms" / "heat-vms-20", campaign)
    (campaign / "events.csv").unlink()  # a record file gone, summary.json made stale
    summary = json.loads((campaign / "summary.json").read_text())
    summary["steps"][0]["heat"]["create_s"] = {}
    (campaign / "summary.json").write_text(json.dumps(summary))
    data = load(CampaignStore(campaign))
    assert not (campaign / "events.csv").exists()
    assert "heat volume-create" in data.files["events.csv"]  # from the gzipped events.json
    assert json.loads(data.files["summary.json"])["steps"][0]["heat"]["create_s"]
    assert data.steps[0]["heat"]["create_s"]["volume-create"]["count"] == 20


def test_a_search_s_answers_are_loaded_from_its_records_in_memory(tmp_path):
    campaign = tmp_path / "heat-capacity"
    shutil.copytree(RESULTS / "scale" / "heat-capacity" / "heat-capacity", campaign)
    (campaign / "summary.json").unlink()
    data = load(CampaignStore(campaign))
    assert not (campaign / "summary.json").exists()
    assert data.capacity and data.capacity[0]["trials"]
