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

from pathlib import Path

from rally import consts
from rally.task import hook

from harness.core.faults import OSD_ACTIONS, OsdFault
from harness.planes.base import TargetError
from harness.planes.ceph.access import default_conf
from harness.planes.ceph.faults import OsdSwitch
from harness.planes.faults import FaultLedger
from harness.planes.rally.phases import FAULT_TITLE
from rally_plugins.hooks.fault_output import campaign_store, give, when


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
                at=when(self._triggered_by),
                seconds=self.config.get("seconds"),
            )
            switch.check([fault], bool(self.config.get("allow_faults")))
            store = campaign_store(self.config)
        except (TargetError, ValueError) as exc:
            self.set_error(type(exc).__name__, "the fault cannot be given", str(exc))
            return
        give(self, fault, FaultLedger(switch, store), FAULT_TITLE)
