"""Rebuilding a campaign's records from its raw output (what report, compare and reparse
do): a summary that comes out the same is left as it is, so a campaign kept in the
repository (results/storage-types/) is not touched by the documentation build."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from harness.campaign.rebuild import rebuild
from harness.core.store import CampaignStore

KEPT = Path(__file__).parents[3] / "results" / "storage-types" / "bare-host"


def test_a_summary_that_comes_out_the_same_is_not_written_again(tmp_path):
    campaign = tmp_path / KEPT.name
    shutil.copytree(KEPT, campaign)
    summary = campaign / "summary.json"
    kept = summary.read_bytes()
    rebuild(CampaignStore(campaign))
    assert summary.read_bytes() == kept
    stale = json.loads(kept)
    stale["steps"] = stale["steps"][:1]
    summary.write_text(json.dumps(stale))
    rebuild(CampaignStore(campaign))
    again = json.loads(summary.read_text())
    assert again["steps"] == json.loads(kept)["steps"]  # written again, whole
