"""The `openstack` target of a spec: Rally workloads go to the Rally target (control
plane), fio workloads to the Heat target (VMs with Cinder volumes); one cloud for both."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import TYPE_CHECKING

from harness.core.plan import Step
from harness.core.spec import CampaignSpec
from harness.core.store import CampaignStore
from harness.core.workloads.registry import families, family_of
from harness.planes.base import Plane, StepOutcome, Tick

if TYPE_CHECKING:
    from harness.planes.heat.target import HeatTarget
    from harness.planes.rally.target import RallyTarget


class OpenStackCloudTarget:
    path: Path | None = None  # its storage is not a folder of this host

    def __init__(self, spec: CampaignSpec):
        # imported here: openstacksdk and Rally load only for a campaign of this target
        from harness.planes.heat.target import HeatTarget
        from harness.planes.rally.target import RallyTarget

        present = families(spec.workloads)
        self.rally = RallyTarget(spec) if "rally" in present else None
        self.heat = HeatTarget(spec) if "fio" in present else None  # fio in its VMs

    @property
    def parts(self) -> list[RallyTarget | HeatTarget]:
        return [t for t in (self.heat, self.rally) if t is not None]

    @property
    def backend(self) -> str:
        return self.parts[0].backend

    @property
    def announcements(self) -> list[str]:
        """What its parts say before the campaign starts (the commands faults will run)."""
        return [line for target in self.parts for line in getattr(target, "announcements", ())]

    def prepare(self, spec: CampaignSpec, store: CampaignStore) -> None:
        for target in self.parts:
            target.prepare(spec, store)

    def tool_versions(self) -> dict[str, str]:
        return {k: v for target in self.parts for k, v in target.tool_versions().items()}

    def run_step(
        self, step: Step, store: CampaignStore, stop: threading.Event, tick: Tick
    ) -> StepOutcome:
        target = self.heat if family_of(step.workload) == "fio" else self.rally
        assert target is not None
        return target.run_step(step, store, stop, tick)

    def cleanup(self, store: CampaignStore) -> list[str]:
        return [line for target in self.parts for line in target.cleanup(store)]


# not a plane of its own: the spec's `openstack` target type, split between two planes
PLANE = Plane("openstack", targets={"openstack": OpenStackCloudTarget})
