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
import threading
import time
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from harness.core.faults import Fault
from harness.core.store import CampaignStore, atomic_write_json
from harness.planes.base import TargetError
from harness.records.phases import FAULTS_FILE
from harness.testbeds import TestbedError
from harness.testbeds.ceph import MARKER, CephTestbed

COMMAND_TIMEOUT_S = 60
NOTE_KIND = "ceph-fault"
RESUME = "resume-osd"  # a pause's end
UNDONE = "undone:"  # how `volperf cleanup` tells a fault it undid from what it removed


@dataclass(frozen=True)
class OsdState:
    """What faults have left changed of one OSD."""

    stopped: bool = False
    out: bool = False
    paused: bool = False

    def after(self, action: str) -> OsdState:
        changes = {
            "stop-osd": {"stopped": True},
            "start-osd": {"stopped": False, "paused": False},
            "out-osd": {"out": True},
            "in-osd": {"out": False},
            "pause-osd": {"paused": True},
            RESUME: {"paused": False},
        }
        return replace(self, **changes[action])

    def either(self, other: OsdState) -> OsdState:
        return OsdState(
            self.stopped or other.stopped, self.out or other.out, self.paused or other.paused
        )

    def undoing(self) -> list[str]:
        """The actions that put the OSD back: let it go, start it, mark it in."""
        wanted = [(self.paused, RESUME), (self.stopped, "start-osd"), (self.out, "in-osd")]
        return [action for changed, action in wanted if changed]

    @property
    def changed(self) -> bool:
        return any(asdict(self).values())


class OsdSwitch:
    """How faults act on one cluster's OSDs: its testbed's daemons, or Ceph's commands."""

    def __init__(self, conf: Path, user: str):
        self.conf, self.user = conf, user
        state = conf.parent
        self.testbed = CephTestbed(state) if (state / MARKER).exists() else None

    @property
    def where(self) -> str:
        if self.testbed is not None:
            return f"the Ceph testbed in {self.testbed.state}"
        return f"the Ceph cluster of {self.conf}"

    def check(self, faults: list[Fault], allowed: bool) -> None:
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

    def plan(self, faults: list[Fault]) -> list[str]:
        """Each fault and the commands it will run, for the user to read first."""
        return [
            f"+{due:g} s: {' && '.join(self.commands(action, fault.osd))}"
            for fault in faults
            for due, action in schedule(fault)
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


def schedule(fault: Fault) -> list[tuple[float, str]]:
    """(seconds into the run, action): a pause is frozen at its time, let go after."""
    if fault.action == "pause-osd":
        return [(fault.at, "pause-osd"), (fault.last_s, RESUME)]
    return [(fault.at, fault.action)]


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


@dataclass
class OsdLedger:
    """Gives actions to one cluster's OSDs: what each will leave changed of its OSD noted in
    created.json before it is done (none without a store), and every action's entry kept,
    with its commands, when it was given and when it came back. An OSD's state starts as
    a note left before says (an earlier Rally hook's firing: the same campaign's)."""

    switch: OsdSwitch
    store: CampaignStore | None
    given: list[dict[str, Any]] = field(default_factory=list)
    states: dict[int, OsdState] = field(default_factory=dict)

    def state(self, osd: int) -> OsdState:
        if osd not in self.states:
            note = {} if self.store is None else self.store.created().get(self._key(osd), {})
            self.states[osd] = OsdState(
                *(bool(note.get(name)) for name in ("stopped", "out", "paused"))
            )
        return self.states[osd]

    def give(self, action: str, osd: int, label: str, due: float | None) -> dict[str, Any]:
        before = self.state(osd)
        after = before.after(action)
        self._note(osd, before.either(after))  # noted before it is done
        entry = {**_entry(label, action, osd, due), "given_t": time.time()}
        try:
            entry["commands"] = self.switch.act(action, osd)
        except Exception as exc:  # recorded, and warned of: the step's other faults go on
            entry["error"] = str(exc) if isinstance(exc, TestbedError) else repr(exc)
            after = before.either(after)  # not known to be undone: cleanup tries again
        entry["done_t"] = time.time()
        self.given.append(entry)
        self.states[osd] = after
        self._note(osd, after)
        return entry

    def undo(self, label: str) -> None:
        """Put back what the actions given left changed."""
        for osd, state in sorted(self.states.items()):
            for action in state.undoing():
                self.give(action, osd, label, None)

    def _key(self, osd: int) -> str:
        return note_key(self.switch.conf, osd)

    def _note(self, osd: int, state: OsdState) -> None:
        if self.store is None:
            return
        if not state.changed:
            self.store.forget_created(self._key(osd))
            return
        self.store.record_created(
            self._key(osd),
            kind=NOTE_KIND,
            conf=str(self.switch.conf),
            user=self.switch.user,
            osd=osd,
            **asdict(state),
        )


@dataclass
class FaultInjector:
    """Gives a step's faults on time from the start of fio's run (its jobs' exec_prerun,
    started_prerun; ``with``: around fio), then undoes what they left changed and writes
    raw/faults.json."""

    faults: list[Fault]
    switch: OsdSwitch
    store: CampaignStore
    raw: Path

    def __post_init__(self) -> None:
        self.started = 0.0
        self.ledger = OsdLedger(self.switch, self.store)
        self._over = threading.Event()
        self._thread = threading.Thread(target=self._give_all, name="faults", daemon=True)

    @property
    def given(self) -> list[dict[str, Any]]:
        return self.ledger.given

    def __enter__(self) -> FaultInjector:
        if self.faults:
            self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        ended = time.time()
        self._over.set()
        if self._thread.is_alive():
            self._thread.join()
        self.ledger.undo("undone at the step's end")
        for fault in self.faults:
            for due, action in schedule(fault):
                if not any(g["fault"] == fault.label and g["action"] == action for g in self.given):
                    self.given.append(
                        {
                            **_entry(fault.label, action, fault.osd, due),
                            "error": self._ended(ended),
                        }
                    )
        if self.faults:
            atomic_write_json(
                self.raw / FAULTS_FILE,
                {"where": self.switch.where, "started_t": self.started, "given": self.given},
            )

    def _ended(self, ended: float) -> str:
        if not self.started:
            return "not given: fio's run never began"
        return f"not given: the run ended at +{ended - self.started:.1f} s"

    def _give_all(self) -> None:
        while (began := run_began(self.raw)) is None:
            if self._over.wait(0.02):
                return
        self.started = began
        due = [(at, action, f) for f in self.faults for at, action in schedule(f)]
        due.sort(key=lambda given: given[0])  # in the spec's order where times are equal
        for at, action, fault in due:
            if self._over.wait(max(0.0, self.started + at - time.time())):
                return
            self.ledger.give(action, fault.osd, fault.label, at)


def _entry(label: str, action: str, osd: int, due: float | None) -> dict[str, Any]:
    return {
        "fault": label,
        "action": action,
        "osd": osd,
        "due_s": due,
        "given_t": None,
        "done_t": None,
        "commands": [],
        "error": None,
    }


def undo_noted(store: CampaignStore, notes: dict[str, dict[str, Any]]) -> list[str]:
    """`volperf cleanup`: put back what a killed run's faults left changed (an OSD left
    frozen is let go, one left stopped started, one left out marked in)."""
    lines = []
    for key, note in sorted(notes.items()):
        switch = OsdSwitch(Path(note["conf"]), note["user"])
        state = OsdState(bool(note["stopped"]), bool(note["out"]), bool(note["paused"]))
        done: list[str] = []
        try:
            for action in state.undoing():
                switch.act(action, int(note["osd"]))
                done.append(action)
        except (TestbedError, OSError) as exc:
            lines.append(f"NOT removed: the faults left on osd.{note['osd']} ({exc})")
            continue
        store.forget_created(key)
        lines.append(f"{UNDONE} osd.{note['osd']} of {switch.where}: {', '.join(done)}")
    return lines
