"""Hook ``volperf_service_fault``: one fault of a Cinder service of the volperf OpenStack
testbed each time its trigger fires (planes/rally/service_faults.py: stopped as `volperf
testbed stop-service` does, started again as `volperf testbed up` does); volperf stops no
service of another cloud. Give it an event trigger, one hook per fault:
``{event: {unit: time, at: [10]}}`` stops cinder-volume, another at 90 starts it again.

With ``campaign`` (a volperf campaign's folder: the Rally plane gives its own), what the
fault leaves stopped is noted in the campaign's created.json before it is done, so that
`volperf cleanup` starts it after a task that was killed; a later firing (start-service)
reads the note and forgets it. Each firing's commands and times are kept in the task's
results, the line after FAULT_PREFIX as JSON, for the task's phases
(planes/rally/phases.py) beside the Rally plane's samples of Cinder's services."""

from __future__ import annotations

from pathlib import Path
from typing import get_args

from rally import consts
from rally.task import hook

from harness.core.faults import SERVICE_ACTIONS, Service, ServiceFault
from harness.planes.base import TargetError
from harness.planes.faults import FaultLedger
from harness.planes.rally.phases import SERVICE_FAULT_TITLE
from harness.planes.rally.service_faults import ServiceSwitch, openstack_testbed_of
from rally_plugins.hooks.fault_output import campaign_store, give, when


@hook.configure(name="volperf_service_fault")
class ServiceFaultHook(hook.HookAction):
    """Stops or starts one Cinder service of the volperf OpenStack testbed."""

    CONFIG_SCHEMA = {
        "$schema": consts.JSON_SCHEMA,
        "type": "object",
        "properties": {
            "action": {"enum": sorted(SERVICE_ACTIONS), "description": "; ".join(SERVICE_ACTIONS)},
            "service": {"enum": list(get_args(Service))},
            "clouds_yaml": {
                "type": "string",
                "description": "the OpenStack testbed's clouds.yaml (in its state folder)",
            },
            "campaign": {
                "type": "string",
                "description": "a volperf campaign's folder: notes for `volperf cleanup`",
            },
        },
        "required": ["action", "service", "clouds_yaml"],
        "additionalProperties": False,
    }

    def run(self) -> None:
        switch = ServiceSwitch(openstack_testbed_of(Path(self.config["clouds_yaml"])))
        try:
            fault = ServiceFault(
                action=self.config["action"],
                service=self.config["service"],
                at=when(self._triggered_by),
            )
            switch.check([fault])
            store = campaign_store(self.config)
        except (TargetError, ValueError) as exc:
            self.set_error(type(exc).__name__, "the fault cannot be given", str(exc))
            return
        give(self, fault, FaultLedger(switch, store), SERVICE_FAULT_TITLE)
