"""What the volperf fault hooks share: a fault's actions given on time through a ledger
(planes/faults.py), and what was given added to the task's results, the line after
FAULT_PREFIX as JSON, for the workload's phases (planes/rally/phases.py)."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from rally.task import hook

from harness.core.faults import OsdFault, ServiceFault
from harness.core.store import CampaignStore
from harness.planes.faults import FaultLedger
from harness.planes.rally.phases import FAULT_PREFIX


def when(triggered_by: dict[str, Any]) -> float:
    """The seconds into the task the trigger names (0 for an iteration's)."""
    return float(triggered_by.get("value") or 0) if triggered_by.get("event_type") == "time" else 0


def campaign_store(config: dict[str, Any]) -> CampaignStore | None:
    """The volperf campaign the hook's config names, for its notes (None: no campaign)."""
    if not config.get("campaign"):
        return None
    store = CampaignStore(Path(config["campaign"]))
    if not store.exists():
        raise ValueError(f"campaign {store.root}: not a volperf campaign's folder")
    return store


def give(
    action: hook.HookAction, fault: OsdFault | ServiceFault, ledger: FaultLedger, title: str
) -> None:
    """Give the fault's actions, each at its time; what was given in the hook's output
    titled ``title``, a failed action the hook's error."""
    for due, step in fault.schedule:
        time.sleep(max(0.0, due - fault.at))  # a pause's end, after its seconds
        ledger.give(step, fault.subject, fault.label, due)
    where = ledger.switch.where
    failed = [g for g in ledger.given if g["error"]]
    action.add_output(
        complete={
            "title": title,
            "description": f"{fault.label} on {where}",
            "chart_plugin": "TextArea",
            "data": [
                *(
                    f"{g['action']}: {' && '.join(g['commands']) or 'nothing to do'}"
                    for g in ledger.given
                ),
                *(f"{g['action']} failed: {g['error']}" for g in failed),
                FAULT_PREFIX + json.dumps({"where": where, "given": ledger.given}),
            ],
        }
    )
    if failed:
        action.set_error("FaultFailed", f"{fault.label} failed", failed[0]["error"])
