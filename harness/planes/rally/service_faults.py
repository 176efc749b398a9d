"""Faults of an OpenStack service during a Rally workload (core/faults.py's ServiceFault):
Cinder's services of the volperf OpenStack testbed (its marker beside the target's
clouds.yaml), stopped as `volperf testbed stop-service` does and started again as
`volperf testbed up` does, through the ledger of planes/faults.py. volperf stops no
service of another cloud. What a fault leaves stopped is noted in created.json first
(kind ``openstack-service-fault``), so that `volperf cleanup` starts it after a run that
was killed. After each stop, a watch notes the volumes of the task's projects the
service may have held (planes/rally/lost_volumes.py), so that what it lost of them is
found and removed."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from harness.core.faults import ServiceFault
from harness.core.store import CampaignStore
from harness.planes.base import TargetError
from harness.planes.faults import PartState, undo_notes
from harness.planes.rally.lost_volumes import NOTE_KIND as LOST_KIND
from harness.planes.rally.lost_volumes import CinderPools, at_risk, note_in_hand
from harness.testbeds import TestbedError
from harness.testbeds.ceph import CINDER_USER
from harness.testbeds.openstack.testbed import BACKENDS, MARKER, OpenStackTestbed

NOTE_KIND = "openstack-service-fault"
ACT_TIMEOUT_S = 900  # `up` waits for the services to report, each wait up to 600 s


@dataclass(frozen=True)
class ServiceState(PartState):
    """What faults have left changed of one service."""

    CHANGES: ClassVar[dict[str, dict[str, bool]]] = {
        "stop-service": {"stopped": True},
        "start-service": {"stopped": False},
    }
    UNDO = (("stopped", "start-service"),)

    stopped: bool = False


def openstack_testbed_of(clouds_yaml: Path | None) -> Path | None:
    """The OpenStack testbed's state folder whose clouds.yaml this is, if it is one."""
    if clouds_yaml is None:
        return None
    state = clouds_yaml.expanduser().resolve().parent
    return state if (state / MARKER).exists() else None


def cinder_pools(testbed: Path) -> CinderPools:
    """Where the testbed's Cinder backends keep their volumes' images."""
    ceph = OpenStackTestbed(testbed).ceph_state
    return CinderPools(ceph / "ceph.conf", CINDER_USER, tuple(BACKENDS.values()))


Watch = Callable[[str], None]  # notes what a stopped service held, given its name


def in_hand_watch(
    store: CampaignStore, testbed: Path, task: str, ours: Callable[[str], bool]
) -> Watch:
    """A watch that notes in ``store`` the volumes of Rally task ``task``'s projects
    (``ours``: Rally's names of them) a stopped service may have held (lost_volumes.py):
    those it held at the stop keep their status (creating, deleting …) until it starts
    again, then fail."""
    conn = OpenStackTestbed(testbed).connection()
    pools = cinder_pools(testbed)
    key = f"{LOST_KIND}:{testbed}:{task}"

    def watch(service: str) -> None:
        note_in_hand(store, key, testbed, service, pools, at_risk(conn, ours))

    return watch


class ServiceSwitch:
    """How faults act on the OpenStack testbed's services: its own CLI."""

    note_kind = NOTE_KIND

    def __init__(self, testbed: Path | None):
        self.testbed = testbed

    @property
    def where(self) -> str:
        return f"the OpenStack testbed in {self.testbed}"

    def check(self, faults: Sequence[ServiceFault]) -> None:
        """Refuse service faults anywhere but on the testbed, naming them."""
        if faults and self.testbed is None:
            raise TargetError(
                f"faults {', '.join(f.label for f in faults)}: volperf stops and starts "
                "only the OpenStack testbed's services (`volperf testbed up openstack`; "
                "its clouds.yaml the target's)"
            )

    def plan(self, faults: Sequence[ServiceFault]) -> list[str]:
        """Each fault and the commands it will run, for the user to read first."""
        return [
            f"+{due:g} s: {' && '.join(self.commands(action, fault.service))}"
            for fault in faults
            for due, action in fault.schedule
        ]

    def commands(self, action: str, service: str) -> list[str]:
        return {
            "stop-service": [f"volperf testbed stop-service openstack {service} {self._state}"],
            "start-service": [f"volperf testbed up openstack {self._state}"],
        }[action]

    @property
    def _state(self) -> str:
        return f"--state {self.testbed}"

    def act(self, action: str, service: str) -> list[str]:
        """Do one action; the commands it ran."""
        if self.testbed is None:
            raise TestbedError(f"{action} {service}: not the volperf OpenStack testbed")
        verb = {"stop-service": ["stop-service", service], "start-service": ["up"]}[action]
        argv = [sys.executable, "-m", "harness.cli", "testbed", verb[0], "openstack", *verb[1:]]
        try:
            done = subprocess.run(
                [*argv, "--state", str(self.testbed)],
                capture_output=True,
                text=True,
                timeout=ACT_TIMEOUT_S,
            )
        except subprocess.TimeoutExpired:
            raise TestbedError(f"{action} {service}: no answer in {ACT_TIMEOUT_S} s") from None
        if done.returncode != 0:
            said = (done.stderr.strip() or done.stdout.strip()).splitlines()
            raise TestbedError(f"{action} {service}: {said[-1] if said else done.returncode}")
        return self.commands(action, service)

    def on(self, service: str) -> str:
        return f"service {service}"

    def key(self, service: str) -> str:
        return f"{NOTE_KIND}:{self.testbed}:{service}"

    def identity(self, service: str) -> dict[str, Any]:
        return {"testbed": str(self.testbed), "service": service}

    def state_of(self, note: dict[str, Any]) -> ServiceState:
        return ServiceState(bool(note.get("stopped")))


def undo_noted(store: CampaignStore, notes: dict[str, dict[str, Any]]) -> list[str]:
    """`volperf cleanup`: start the services a killed run's faults left stopped."""
    return undo_notes(
        store, notes, lambda note: ServiceSwitch(Path(note["testbed"])), lambda n: n["service"]
    )
