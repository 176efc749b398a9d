"""Hook ``volperf_ceph_fault``: one fault of a Ceph OSD each time its trigger fires, given
as volperf gives a step's faults (planes/ceph/faults.py: on the Ceph testbed its
daemons, on another cluster Ceph's orchestrator and monitors, and there only with
``allow_faults: true``). Give it an event trigger, one hook per fault:
``{event: {unit: time, at: [10]}}`` stops, another at 30 starts the OSD again.

With ``campaign`` (a volperf campaign's folder: the Rally plane gives its own), what the
fault leaves changed of its OSD is noted in the campaign's created.json before it is
done, so that `volperf cleanup` puts it back after a task that was killed; a later firing
(start-osd) reads the note and forgets it. Each firing's commands and times are kept in
the task's results, the line after FAULT_PREFIX as JSON, for the task's phases
(planes/rally/phases.py) beside the volperf_ceph_health hook's samples."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from rally import consts
from rally.task import hook

from harness.core.faults import OSD_ACTIONS, OsdFault
from harness.core.store import CampaignStore
from harness.planes.base import TargetError
from harness.planes.ceph.access import default_conf
from harness.planes.ceph.faults import OsdSwitch
from harness.planes.faults import FaultLedger
from harness.planes.rally.phases import FAULT_PREFIX, FAULT_TITLE


def _when(triggered_by: dict[str, Any]) -> float:
    """The seconds into the task the trigger names (0 for an iteration's)."""
    return float(triggered_by.get("value") or 0) if triggered_by.get("event_type") == "time" else 0


@hook.configure(name="volperf_ceph_fault")
class CephFaultHook(hook.HookAction):
    """Gives one fault to a Ceph OSD (stop, start, out, in, pause for N s)."""

    CONFIG_SCHEMA = {
        "$schema": consts.JSON_SCHEMA,
        "type": "object",
        "properties": {
            "action": {"enum": sorted(OSD_ACTIONS), "description": "; ".join(OSD_ACTIONS)},
            "osd": {"type": "integer", "minimum": 0},
            "seconds": {"type": "number", "minimum": 0, "exclusiveMinimum": True},
            "ceph_conf": {"type": "string", "description": "default: $CEPH_CONF"},
            "user": {"type": "string", "description": "cephx user (default admin)"},
            "allow_faults": {
                "type": "boolean",
                "description": "a cluster that is not a volperf testbed: faults only if true",
            },
            "campaign": {
                "type": "string",
                "description": "a volperf campaign's folder: notes for `volperf cleanup`",
            },
        },
        "required": ["action", "osd"],
        "additionalProperties": False,
    }

    def run(self) -> None:
        conf = Path(self.config.get("ceph_conf") or default_conf())
        switch = OsdSwitch(conf, self.config.get("user", "admin"))
        try:
            fault = OsdFault(
                action=self.config["action"],
                osd=self.config["osd"],
                at=_when(self._triggered_by),
                seconds=self.config.get("seconds"),
            )
            switch.check([fault], bool(self.config.get("allow_faults")))
            store = self._store()
        except (TargetError, ValueError) as exc:
            self.set_error(type(exc).__name__, "the fault cannot be given", str(exc))
            return
        ledger = FaultLedger(switch, store)
        for due, action in fault.schedule:
            time.sleep(max(0.0, due - fault.at))  # a pause's end, after its seconds
            ledger.give(action, fault.osd, fault.label, due)
        failed = [g for g in ledger.given if g["error"]]
        self.add_output(
            complete={
                "title": FAULT_TITLE,
                "description": f"{fault.label} on {switch.where}",
                "chart_plugin": "TextArea",
                "data": [
                    *(
                        f"{g['action']}: {' && '.join(g['commands']) or 'nothing to do'}"
                        for g in ledger.given
                    ),
                    *(f"{g['action']} failed: {g['error']}" for g in failed),
                    FAULT_PREFIX + json.dumps({"where": switch.where, "given": ledger.given}),
                ],
            }
        )
        if failed:
            self.set_error("FaultFailed", f"{fault.label} failed", failed[0]["error"])

    def _store(self) -> CampaignStore | None:
        if not self.config.get("campaign"):
            return None
        store = CampaignStore(Path(self.config["campaign"]))
        if not store.exists():
            raise ValueError(f"campaign {store.root}: not a volperf campaign's folder")
        return store
