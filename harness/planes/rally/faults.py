"""A Rally workload's faults (core/faults.py) as volperf_ceph_fault hooks: one hook per
fault, fired by Rally's time trigger ``at`` seconds into each of the task's workloads (the
runner puts them on every workload of the rendered task: runner.add_hooks); what they
left changed at the step's end put back (planes/ceph/faults.py's ledger, from the hooks'
notes in created.json), and what was asked and what was undone written to
raw/faults.json, for the step's warnings."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from harness.core.faults import OsdFault
from harness.core.store import CampaignStore, atomic_write_json
from harness.planes.ceph.faults import OsdSwitch
from harness.planes.faults import FaultLedger
from harness.records.phases import FAULTS_FILE

HOOK = "volperf_ceph_fault"
UNDONE_LABEL = "undone at the step's end"


def fault_hooks(
    faults: list[OsdFault], switch: OsdSwitch, allow_faults: bool, campaign: Path
) -> list[dict[str, Any]]:
    """Rally's hook entries (task format 2) that give ``faults``."""
    hooks = []
    for fault in faults:
        action: dict[str, Any] = {
            "action": fault.action,
            "osd": fault.osd,
            "ceph_conf": str(switch.conf),
            "user": switch.user,
            "allow_faults": allow_faults,
            "campaign": str(campaign),
        }
        if fault.seconds is not None:
            action["seconds"] = fault.seconds
        hooks.append(
            {
                "description": f"volperf fault {fault.label}",
                "action": {HOOK: action},
                "trigger": {"event": {"unit": "time", "at": [int(fault.at)]}},  # whole s
            }
        )
    return hooks


def undo_left(
    faults: list[OsdFault], switch: OsdSwitch, store: CampaignStore, raw: Path
) -> list[dict[str, Any]]:
    """Put back what the hooks left changed of the faults' OSDs (as their notes say) and
    write raw/faults.json: the actions asked of each workload, and those undone."""
    ledger = FaultLedger(switch, store)
    for osd in sorted({f.osd for f in faults}):
        ledger.state(osd)
    ledger.undo(UNDONE_LABEL)
    asked = [
        {"fault": f.label, "action": action, "osd": f.osd, "on": f.on, "due_s": due}
        for f in faults
        for due, action in f.schedule
    ]
    atomic_write_json(
        raw / FAULTS_FILE, {"where": switch.where, "asked": asked, "undone": ledger.given}
    )
    return ledger.given


def asked(raw: Path) -> list[dict[str, Any]]:
    """The actions each workload of the step was to be given (none: no faults file)."""
    try:
        return json.loads((raw / FAULTS_FILE).read_text()).get("asked") or []
    except (OSError, ValueError):
        return []
