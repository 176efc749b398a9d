"""Faults given during a step's measured run, whatever they act on (core/faults.py): a
ledger that gives each action through a plane's switch, noting first in created.json
what it will leave changed, so that the step's end, or `volperf cleanup` after a run that
was killed, undoes it; and an injector that gives a step's faults on time from the start
of its measured run and writes every action, with its commands and times, to
raw/faults.json.

A plane brings its switch (what acts on its OSDs, its nodes …) and its state (what
actions leave changed of one of them, and what puts it back)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any, ClassVar, Protocol, Self

from harness.core.faults import NodeFault, OsdFault
from harness.core.store import CampaignStore, atomic_write_json
from harness.records.phases import FAULTS_FILE
from harness.testbeds import TestbedError

UNDONE = "undone:"  # how `volperf cleanup` tells a fault it undid from what it removed
# how it tells a note that left nothing to undo (its part's state already as it was)
NOTHING_TO_UNDO = "nothing to undo:"
Subject = Any  # what a fault acts on, as its switch names it: an OSD's id, a node's name


@dataclass(frozen=True)
class PartState:
    """What faults have left changed of one part (an OSD, a node): a plane's subclass
    names its flags as fields, how each action sets them (CHANGES) and, in order, the
    action that puts each flag back (UNDO)."""

    CHANGES: ClassVar[dict[str, dict[str, bool]]] = {}
    UNDO: ClassVar[tuple[tuple[str, str], ...]] = ()

    def after(self, action: str) -> Self:
        return replace(self, **self.CHANGES[action])

    def either(self, other: Self) -> Self:
        """Every flag set in either."""
        return replace(self, **{k: v or getattr(other, k) for k, v in asdict(self).items()})

    def undoing(self) -> list[str]:
        """The actions that put the part back."""
        return [action for flag, action in self.UNDO if getattr(self, flag)]

    @property
    def changed(self) -> bool:
        return any(asdict(self).values())


class Switch(Protocol):
    """How a plane's faults act on one backend's parts."""

    note_kind: str  # created.json's kind of its notes

    @property
    def where(self) -> str: ...
    def act(self, action: str, subject: Subject) -> list[str]:
        """Do one action; the commands it ran (none where there was nothing to do)."""

    def on(self, subject: Subject) -> str:
        """Its name on the page: 'osd.1', 'node n2'."""

    def key(self, subject: Subject) -> str:
        """Its note's key in created.json."""

    def identity(self, subject: Subject) -> dict[str, Any]:
        """What its note holds beside the state: enough to act on it again."""

    def state_of(self, note: dict[str, Any]) -> PartState:
        """A part's state as its note says (a clean one for none)."""


def entry(label: str, action: str, on: str, due: float | None) -> dict[str, Any]:
    """One action's entry in raw/faults.json, before it is given."""
    return {
        "fault": label,
        "action": action,
        "on": on,
        "due_s": due,
        "given_t": None,
        "done_t": None,
        "commands": [],
        "error": None,
    }


@dataclass
class FaultLedger:
    """Gives actions to one backend's parts: what each will leave changed of its part
    noted in created.json before it is done (none without a store), and every action's
    entry kept, with its commands, when it was given and when it came back. A part's
    state starts as a note left before says (an earlier Rally hook's firing: the same
    campaign's)."""

    switch: Switch
    store: CampaignStore | None
    given: list[dict[str, Any]] = field(default_factory=list)
    states: dict[Subject, PartState] = field(default_factory=dict)

    def state(self, subject: Subject) -> PartState:
        if subject not in self.states:
            note = {} if self.store is None else self.store.created().get(self._key(subject), {})
            self.states[subject] = self.switch.state_of(note)
        return self.states[subject]

    def give(self, action: str, subject: Subject, label: str, due: float | None) -> dict[str, Any]:
        before = self.state(subject)
        after = before.after(action)
        self._note(subject, before.either(after))  # noted before it is done
        given = {**entry(label, action, self.switch.on(subject), due), "given_t": time.time()}
        try:
            given["commands"] = self.switch.act(action, subject)
        except Exception as exc:  # recorded, and warned of: the step's other faults go on
            given["error"] = str(exc) if isinstance(exc, TestbedError) else repr(exc)
            after = before.either(after)  # not known to be undone: cleanup tries again
        given["done_t"] = time.time()
        self.given.append(given)
        self.states[subject] = after
        self._note(subject, after)
        return given

    def undo(self, label: str) -> None:
        """Put back what the actions given left changed."""
        for subject, state in sorted(self.states.items()):
            for action in state.undoing():
                self.give(action, subject, label, None)

    def _key(self, subject: Subject) -> str:
        return self.switch.key(subject)

    def _note(self, subject: Subject, state: PartState) -> None:
        if self.store is None:
            return
        if not state.changed:
            self.store.forget_created(self._key(subject))
            return
        self.store.record_created(
            self._key(subject),
            kind=self.switch.note_kind,
            **self.switch.identity(subject),
            **asdict(state),
        )


@dataclass
class FaultInjector:
    """Gives a step's faults on time from the start of its measured run (``began``: when
    it started, None before; ``with``: around the run), then undoes what they left changed
    and writes raw/faults.json."""

    faults: Sequence[OsdFault | NodeFault]
    ledger: FaultLedger
    began: Callable[[], float | None]
    raw: Path

    def __post_init__(self) -> None:
        self.started = 0.0
        self._over = threading.Event()
        self._thread = threading.Thread(target=self._give_all, name="faults", daemon=True)

    @property
    def given(self) -> list[dict[str, Any]]:
        return self.ledger.given

    def given_on(self) -> set[str]:
        """The parts faults were given to so far ('node n2' …), without error."""
        return {g["on"] for g in list(self.given) if g["given_t"] and not g["error"]}

    def __enter__(self) -> Self:
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
            for due, action in fault.schedule:
                if not any(g["fault"] == fault.label and g["action"] == action for g in self.given):
                    self.given.append(
                        {**entry(fault.label, action, fault.on, due), "error": self._ended(ended)}
                    )
        if self.faults:
            atomic_write_json(
                self.raw / FAULTS_FILE,
                {"where": self.ledger.switch.where, "started_t": self.started, "given": self.given},
            )

    def _ended(self, ended: float) -> str:
        if not self.started:
            return "not given: the measured run never began"
        return f"not given: the run ended at +{ended - self.started:.1f} s"

    def _give_all(self) -> None:
        while (began := self.began()) is None:
            if self._over.wait(0.02):
                return
        self.started = began
        due = [(at, action, f) for f in self.faults for at, action in f.schedule]
        due.sort(key=lambda given: given[0])  # in the spec's order where times are equal
        for at, action, fault in due:
            if self._over.wait(max(0.0, self.started + at - time.time())):
                return
            self.ledger.give(action, fault.subject, fault.label, at)


def undo_notes(
    store: CampaignStore,
    notes: dict[str, dict[str, Any]],
    switch_of: Callable[[dict[str, Any]], Switch],
    subject_of: Callable[[dict[str, Any]], Subject],
) -> list[str]:
    """`volperf cleanup`: put back what a killed run's faults left changed, as each note
    says, through the switch its note names; a line for each part: undone (the actions
    that put it back), nothing to undo, or not removed."""
    lines = []
    for key, note in sorted(notes.items()):
        subject = subject_of(note)
        name, done = str(subject), []
        try:
            switch = switch_of(note)
            name = switch.on(subject)
            for action in switch.state_of(note).undoing():
                switch.act(action, subject)
                done.append(action)
        except Exception as exc:  # said, and the note kept: cleanup can try again
            lines.append(f"NOT removed: the faults left on {name} ({exc})")
            continue
        store.forget_created(key)
        where = f"{switch.on(subject)} of {switch.where}"
        if done:
            lines.append(f"{UNDONE} {where}: {', '.join(done)}")
        else:  # its note said nothing was left changed: no action, none said to be undone
            lines.append(f"{NOTHING_TO_UNDO} {where} (its note said nothing was left changed)")
    return lines
