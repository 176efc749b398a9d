"""Hook ``volperf_service_fault``: one fault of a Cinder service of the volperf OpenStack
testbed each time its trigger fires (planes/rally/service_faults.py: stopped as `volperf
testbed stop-service` does, started again as `volperf testbed up` does); volperf stops no
service of another cloud. Give it an event trigger, one hook per fault:
``{event: {unit: time, at: [10]}}`` stops cinder-volume, another at 90 starts it again.

With ``campaign`` (a volperf campaign's folder: the Rally plane gives its own), what the
fault leaves stopped is noted in the campaign's created.json before it is done, so that
`volperf cleanup` starts it after a task that was killed; a later firing (start-service)
reads the note and forgets it; and after each stop the volumes of the task's projects the
service may have held are noted, so that what it lost of them is found and removed
(planes/rally/lost_volumes.py). Each firing's commands and times are kept in the task's
results, the line after FAULT_PREFIX as JSON, for the task's phases
(planes/rally/phases.py) beside the Rally plane's samples of Cinder's services."""

from __future__ import annotations

from pathlib import Path
from typing import get_args

from rally import consts
from rally.common import objects
from rally.task import hook

from harness.core.faults import SERVICE_ACTIONS, Service, ServiceFault
from harness.core.store import CampaignStore
from harness.planes.base import TargetError
from harness.planes.faults import FaultLedger
from harness.planes.rally.cleanup import name_matcher
from harness.planes.rally.phases import SERVICE_FAULT_TITLE
from harness.planes.rally.runner import owner_uuids
from harness.planes.rally.service_faults import (
    ServiceSwitch,
    Watch,
    in_hand_watch,
    openstack_testbed_of,
)
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
        testbed = openstack_testbed_of(Path(self.config["clouds_yaml"]))
        try:
            fault = ServiceFault(
                action=self.config["action"],
                service=self.config["service"],
                at=when(self._triggered_by),
            )
            ServiceSwitch(testbed).check([fault])
            store = campaign_store(self.config)
        except (TargetError, ValueError) as exc:
            self.set_error(type(exc).__name__, "the fault cannot be given", str(exc))
            return
        ledger = FaultLedger(ServiceSwitch(testbed), store)
        give(self, fault, ledger, SERVICE_FAULT_TITLE)
        stopped = [g for g in ledger.given if g["action"] == "stop-service" and not g["error"]]
        if store is not None and testbed is not None and stopped:
            self._note_in_hand(store, testbed, fault.service)

    def _note_in_hand(self, store: CampaignStore, testbed: Path, service: str) -> None:
        """After the stop (not before: the stop is given when asked), the volumes of the
        task's projects the service may have held, noted in the campaign."""
        try:
            self._watch(store, testbed)(service)
        except Exception as exc:  # said in the task's report; the stop itself was given
            self.set_error(
                type(exc).__name__,
                f"the volumes {service} may have held at the stop were not noted: "
                "run `volperf cleanup` after checking its pools",
                str(exc),
            )

    def _watch(self, store: CampaignStore, testbed: Path) -> Watch:
        """What each stop may catch in the service's hands, noted in the campaign: the
        volumes of the task's projects, known by Rally's names of its owners."""
        task = objects.Task.get(self.task["uuid"], detailed=True).to_dict()
        ours = name_matcher(owner_uuids(task))
        return in_hand_watch(store, testbed, self.task["uuid"], ours)
