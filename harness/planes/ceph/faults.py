"""Faults of Ceph's OSDs during a step's measured run (core/faults.py): given on time,
written down, undone.

On a volperf Ceph testbed (its marker beside the ceph.conf) an OSD is stopped by SIGTERM
to its daemon, started again as the testbed starts it, frozen by SIGSTOP and let go by
SIGCONT. On any other cluster, only where the target allows it (allow_faults), an OSD is
stopped and started through Ceph's orchestrator (`ceph orch daemon stop|start osd.N`:
cephadm or Rook), and cannot be frozen. Marking out and in goes through the monitors
(`ceph osd out|in N`) on both.

What a fault changes of an OSD is noted in created.json before it is done (kind
``ceph-fault``: stopped, out, paused), so that `volperf cleanup` undoes it after a run
that was killed; what the step's faults left changed is undone at the step's end. Every
command, with when it was given and when it came back, goes to raw/faults.json.
"""

from __future__ import annotations

import os
import signal
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from harness.core.faults import RESUME, OsdFault
from harness.core.store import CampaignStore
from harness.planes.base import TargetError
from harness.planes.faults import FaultInjector, FaultLedger, PartState, undo_notes
from harness.testbeds import TestbedError
from harness.testbeds.ceph import MARKER, CephTestbed

COMMAND_TIMEOUT_S = 60
NOTE_KIND = "ceph-fault"


@dataclass(frozen=True)
class OsdState(PartState):
    """What faults have left changed of one OSD."""

    CHANGES: ClassVar[dict[str, dict[str, bool]]] = {
        "stop-osd": {"stopped": True},
        "start-osd": {"stopped": False, "paused": False},
        "out-osd": {"out": True},
        "in-osd": {"out": False},
        "pause-osd": {"paused": True},
        RESUME: {"paused": False},
    }
    # let it go, start it, mark it in
    UNDO = (("paused", RESUME), ("stopped", "start-osd"), ("out", "in-osd"))

    stopped: bool = False
    out: bool = False
    paused: bool = False


class OsdSwitch:
    """How faults act on one cluster's OSDs: its testbed's daemons, or Ceph's commands."""

    note_kind = NOTE_KIND

    def __init__(self, conf: Path, user: str):
        self.conf, self.user = conf, user
        state = conf.parent
        self.testbed = CephTestbed(state) if (state / MARKER).exists() else None

    @property
    def where(self) -> str:
        if self.testbed is not None:
            return f"the Ceph testbed in {self.testbed.state}"
        return f"the Ceph cluster of {self.conf}"

    def check(self, faults: list[OsdFault], allowed: bool) -> None:
        """Refuse faults this cluster may not be given, naming them."""
        if self.testbed is None:
            if not allowed:
                raise TargetError(
                    f"faults {', '.join(f.label for f in faults)}: {self.where} is not a "
                    "volperf testbed; volperf injects faults there only if the target says "
                    "allow_faults: true. It would run: " + "; ".join(self.plan(faults))
                )
            paused = [f.label for f in faults if f.action == "pause-osd"]
            if paused:
                raise TargetError(
                    f"faults {', '.join(paused)}: pause-osd signals the OSD's daemon, which "
                    "only the Ceph testbed runs on this host"
                )
            return
        for fault in faults:
            try:
                self.testbed.osd(fault.osd)
            except TestbedError as exc:
                raise TargetError(f"fault {fault.label}: {exc}") from None

    def plan(self, faults: list[OsdFault]) -> list[str]:
        """Each fault and the commands it will run, for the user to read first."""
        return [
            f"+{due:g} s: {' && '.join(self.commands(action, fault.osd))}"
            for fault in faults
            for due, action in fault.schedule
        ]

    def commands(self, action: str, osd: int) -> list[str]:
        """The commands an action runs (a daemon's pid as <pid of osd.N>)."""
        pid = f"<pid of osd.{osd}>"
        if action in ("out-osd", "in-osd"):
            return [" ".join(self._ceph("osd", action.removesuffix("-osd"), str(osd)))]
        if self.testbed is None:
            verb = {"stop-osd": "stop", "start-osd": "start"}[action]
            return [" ".join(self._ceph("orch", "daemon", verb, f"osd.{osd}"))]
        return {
            "stop-osd": [f"kill -TERM {pid}"],
            "start-osd": [f"ceph-osd -c {self.conf} -i {osd}"],
            "pause-osd": [f"kill -STOP {pid}"],
            RESUME: [f"kill -CONT {pid}"],
        }[action]

    def act(self, action: str, osd: int) -> list[str]:
        """Do one action; the commands it ran (none where there was nothing to do)."""
        if action in ("out-osd", "in-osd") or self.testbed is None:
            for command in self.commands(action, osd):
                self._run(command.split())
            return self.commands(action, osd)
        daemon = self.testbed.osd(osd)
        if action == "start-osd":
            return self.testbed.start_osd(osd)
        pid = daemon.pid()
        if pid is None:
            return []
        if action == "stop-osd":
            os.kill(pid, signal.SIGCONT)  # a frozen daemon cannot act on SIGTERM
            daemon.stop()
            return [f"kill -TERM {pid}"]
        sent = signal.SIGSTOP if action == "pause-osd" else signal.SIGCONT
        os.kill(pid, sent)
        return [f"kill -{sent.name.removeprefix('SIG')} {pid}"]

    def on(self, osd: int) -> str:
        return f"osd.{osd}"

    def key(self, osd: int) -> str:
        return note_key(self.conf, osd)

    def identity(self, osd: int) -> dict[str, Any]:
        return {"conf": str(self.conf), "user": self.user, "osd": osd}

    def state_of(self, note: dict[str, Any]) -> OsdState:
        return OsdState(*(bool(note.get(name)) for name in ("stopped", "out", "paused")))

    def _ceph(self, *argv: str) -> list[str]:
        return ["ceph", "-c", str(self.conf), "--id", self.user, "--connect-timeout", "10", *argv]

    def _run(self, argv: list[str]) -> None:
        try:
            done = subprocess.run(
                argv, capture_output=True, text=True, timeout=COMMAND_TIMEOUT_S, check=False
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise TestbedError(f"`{' '.join(argv)}`: {exc}") from None
        if done.returncode != 0:
            said = (done.stderr.strip() or done.stdout.strip()).splitlines()[-2:]
            raise TestbedError(f"`{' '.join(argv)}` exited {done.returncode}: {' / '.join(said)}")


def note_key(conf: Path, osd: int) -> str:
    return f"{NOTE_KIND}:{conf}:osd.{osd}"


PRERUN = "date +%s.%N"  # fio's exec_prerun: when each job, set up, begins its I/O
PRERUN_GLOB = "*.prerun.txt"  # where fio writes that command's output, a file per job


def started_prerun(raw: Path) -> str:
    """The exec_prerun that tells the injector when fio's run began: each job writes the
    time its I/O begins (after the rbd engine has connected: about a second here) to
    <jobname>.prerun.txt in raw/."""
    return f"cd {raw} && {PRERUN}"


def run_began(raw: Path) -> float | None:
    """When the first of fio's jobs began its I/O, as its exec_prerun wrote it; None
    before any has."""
    times = []
    for path in raw.glob(PRERUN_GLOB):
        try:
            times.append(float(path.read_text().strip()))
        except (OSError, ValueError):  # being written
            continue
    return min(times, default=None)


def osd_faults(
    faults: list[OsdFault], switch: OsdSwitch, store: CampaignStore, raw: Path
) -> FaultInjector:
    """A step's OSD faults, given on time from the start of fio's run (its jobs'
    exec_prerun, started_prerun; ``with``: around fio)."""
    return FaultInjector(faults, FaultLedger(switch, store), lambda: run_began(raw), raw)


def undo_noted(store: CampaignStore, notes: dict[str, dict[str, Any]]) -> list[str]:
    """`volperf cleanup`: put back what a killed run's faults left changed (an OSD left
    frozen is let go, one left stopped started, one left out marked in)."""
    return undo_notes(
        store,
        notes,
        lambda note: OsdSwitch(Path(note["conf"]), note["user"]),
        lambda note: int(note["osd"]),
    )
