"""Every campaign kept under results/ reparsed (a copy of it, in a temporary folder: never
results/ itself) gives the records it keeps: summary.json and each record file the
reparse writes (fio.csv, rally.csv, events.csv …), found by walking results/, so a
campaign kept later is checked too. A campaign that does not is listed below with why;
its test is expected to fail (strictly: kept again so that it matches, it must be taken
off the list)."""

from __future__ import annotations

import csv
import io
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from harness.campaign.rebuild import SUMMARY_FILE, rebuild, rebuilt
from harness.campaign.results import record_files
from harness.core.store import CampaignStore
from harness.planes.rally.runner import HTML_REPORT

RESULTS = Path(__file__).parents[3] / "results"
KEPT = sorted(path.parent for path in RESULTS.glob("**/campaign.yaml"))

# The Heat campaigns are kept without their VMs' per-second fio logs and agent.log
# (benchmarks/scale/measure.py, keep_heat_campaign: tens of MB at 40 VMs): the figures
# made from them (each VM's window and stalls, the common window, the measured overlap,
# when each VM was ready, a capacity search's achieved rates) cannot be made again from
# what is kept; the reparse estimates the overlap from fio's own start and stop instead.
NO_LOGS = "kept without the VMs' per-second fio logs and agent.log (keep_heat_campaign)"
# Made by an older volperf: the records it makes now have more (p50_merged, stalls, …).
OLDER = "kept as an older volperf made its records (reparse it in results/ to refresh)"
APART = {
    "samples/hosts-localhost": OLDER,
    "samples/quick-20261127-174710": OLDER,
    "samples/rbd-testbed": OLDER,
    "scale/heat-capacity/heat-capacity": NO_LOGS,
    "scale/heat-vms/heat-vms-20": NO_LOGS,
    "scale/heat-vms/heat-vms-40": NO_LOGS,
    "scale/heat-vms-quota-10/heat-vms-20": f"{NO_LOGS}; {OLDER}",
    "scale/heat-vms-quota-10/heat-vms-40": f"{NO_LOGS}; {OLDER}",
}


def _name(campaign: Path) -> str:
    return campaign.relative_to(RESULTS).as_posix()


def _is_reference(campaign: Path) -> bool:
    return bool(CampaignStore(campaign).read_campaign().get("reference"))


def _params() -> list[Any]:
    params = []
    for campaign in KEPT:
        marks = []
        if _name(campaign) in APART:
            marks = [pytest.mark.xfail(strict=True, reason=APART[_name(campaign)])]
        params.append(pytest.param(campaign, id=_name(campaign), marks=marks))
    return params


def _copy(campaign: Path, tmp_path: Path) -> CampaignStore:
    copy = tmp_path / campaign.name
    shutil.copytree(campaign, copy)
    return CampaignStore(copy)


def _record_files(root: Path) -> dict[str, str]:
    return {
        n: (root / n).read_text(encoding="utf-8") for n in record_files() if (root / n).is_file()
    }


def _summary_as_compared(text: str, raw_of: dict[str, Path]) -> dict[str, Any]:
    summary = json.loads(text)
    summary.pop("generated")  # when the records were made: the reparse's own time
    for step in summary.get("steps", []):
        # the Rally sweep's campaigns are kept without Rally's HTML page (results/README.md):
        # their summary names the page the run had, the reparse finds none to name
        if "rally" in step and not (raw_of[step["step"]] / HTML_REPORT).exists():
            step["rally"].pop("html")
    return summary


def test_every_kept_campaign_is_found():
    assert len(KEPT) >= 20, f"campaigns under {RESULTS}: {[_name(c) for c in KEPT]}"
    assert set(APART) <= {_name(c) for c in KEPT}, "a campaign listed apart is gone"


@pytest.mark.parametrize("campaign", _params())
def test_a_kept_campaign_reparses_to_the_records_it_keeps(campaign: Path, tmp_path: Path):
    if _is_reference(campaign):  # said, not skipped silently
        pytest.skip("a reference campaign: published figures, no raw output to reparse")
    store = _copy(campaign, tmp_path)
    rebuild(store)
    kept, again = _record_files(campaign), _record_files(store.root)
    assert sorted(again) == sorted(kept), "the reparse writes other record files"
    raw_of = {step: store.raw_dir(step) for step in store.step_ids()}
    assert _summary_as_compared(again.pop(SUMMARY_FILE), raw_of) == _summary_as_compared(
        kept.pop(SUMMARY_FILE), raw_of
    )
    for name, text in kept.items():
        assert again[name] == text, f"{name} reparsed differs"


def _rows(text: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(text, newline="")))


HEAT = [c for c in KEPT if (c / "events.csv").exists() and any(c.glob("steps/*/raw/heat"))]


@pytest.mark.parametrize("campaign", [pytest.param(c, id=_name(c)) for c in HEAT])
def test_a_kept_heat_campaign_rebuilds_heats_create_times(campaign: Path, tmp_path: Path):
    """What a Heat campaign keeps whole (Heat's events, gzipped) gives the create times it
    keeps, though its per-second logs are not kept (its stalls are made from those)."""
    made = rebuilt(_copy(campaign, tmp_path))
    kept = json.loads((campaign / SUMMARY_FILE).read_text(encoding="utf-8"))
    for step, again in zip(kept["steps"], made.summary["steps"], strict=True):
        assert again["heat"]["create_s"] == step["heat"]["create_s"]
        assert again["heat"]["create_s"], "no create times"
    timed = [r for r in _rows(made.files["events.csv"] or "") if r["event"] != "stall"]
    assert timed == [
        r for r in _rows((campaign / "events.csv").read_text()) if r["event"] != "stall"
    ]
    assert timed


def test_rebuilt_writes_nothing(tmp_path: Path):
    store = _copy(RESULTS / "scale" / "heat-vms" / "heat-vms-20", tmp_path)
    before = {p: p.read_bytes() for p in store.root.rglob("*") if p.is_file()}
    made = rebuilt(store)
    assert made.files["events.csv"]
    assert {p: p.read_bytes() for p in store.root.rglob("*") if p.is_file()} == before
