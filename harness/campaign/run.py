"""Run a campaign: every step not yet done, in order, resumable after any interruption.

A done step is never run again. Ctrl-C or SIGTERM stops fio cleanly, marks the running
step interrupted (its partial raw output kept) and leaves every finished step intact; the
next `volperf run` of the same campaign starts at the first step not done.
"""

from __future__ import annotations

import signal
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING

from harness.campaign import capacity, sweep_end
from harness.campaign.cleanup import remove_created
from harness.campaign.environment import snapshot
from harness.core import secrets
from harness.core.plan import Step
from harness.core.redact import redact
from harness.core.spec import CampaignSpec
from harness.core.store import CampaignError, CampaignStore, atomic_write_json, settled
from harness.host.owncost import CostMeter
from harness.planes.base import StepOutcome, Target, TargetError, Tick

if TYPE_CHECKING:  # the records' modules load once a step has run: see _rebuild
    from harness.campaign.results import StepResult
    from harness.records.capacity import Capacity, Trial


@dataclass(frozen=True)
class CampaignOutcome:
    store: CampaignStore
    results: list[StepResult]
    interrupted: bool
    removed: list[str]

    @property
    def failed_steps(self) -> list[str]:
        """Steps that did not run as meant (a step whose failure ended its sweep did)."""
        return [
            r.summary["step"]
            for r in self.results
            if not settled(r.summary["state"], r.summary.get("ended_sweep"))
        ]

    @property
    def ended_sweeps(self) -> list[str]:
        """Each workload's sweep that a stop rule ended: where and why."""
        return [
            f"{r.summary['workload']} at {r.summary['concurrency']} consumers "
            f"({r.summary['step']}): {r.summary['ended_sweep']}"
            for r in self.results
            if r.summary.get("ended_sweep")
        ]

    @property
    def ok(self) -> bool:
        return not self.interrupted and not self.failed_steps


class Display:
    """What the runner tells the user; the CLI gives a rich one, tests a silent one."""

    def campaign_started(self, store: CampaignStore, steps: list[Step], todo: int) -> None: ...
    def announce(self, line: str) -> None:
        """What the target will do beyond the steps' tools (faults it injects), before
        any step starts."""

    def step_started(self, step: Step, position: int, total: int) -> Tick:
        return lambda elapsed, iops: None

    def step_finished(self, step: Step, outcome: StepOutcome) -> None: ...
    def sweep_ended(self, step: Step, reason: str, skipped: int) -> None: ...
    def searched(self, found: Capacity, trial: Trial | None) -> None:
        """A capacity search's step judged (``trial``), or its end (None): what it found."""


@contextmanager
def stop_on_signals(stop: threading.Event) -> Iterator[None]:
    """SIGINT and SIGTERM set ``stop`` instead of killing the run mid-write."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(signum: int, frame: FrameType | None) -> None:
        stop.set()

    previous = {s: signal.signal(s, handler) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for s, h in previous.items():
            signal.signal(s, h)


def _spec_differences(stored: dict, wanted: dict, prefix: str = "") -> list[str]:
    """What differs, field by field; a field kept redacted in the campaign matches any
    value (it cannot be told apart: key_name, redacted by older volperf, included)."""
    keys = sorted(set(stored) | set(wanted))
    diffs = []
    for key in keys:
        a, b = stored.get(key), wanted.get(key)
        if isinstance(a, dict) and isinstance(b, dict):
            diffs += _spec_differences(a, b, f"{prefix}{key}.")
        elif a != b and a != secrets.REDACTED:
            diffs.append(f"{prefix}{key}: {a!r} in the campaign, {b!r} now")
    return diffs


def open_campaign(spec: CampaignSpec, results_root: Path) -> CampaignStore:
    store = CampaignStore(results_root / spec.name)
    if store.exists():
        stored = store.read_campaign()["spec"]
        differences = _spec_differences(stored, redact(spec.to_dict()))
        if differences:
            raise CampaignError(
                f"{store.root} already holds campaign {spec.name!r} run with another spec; "
                "resume it with the same spec or choose a new --name:\n  "
                + "\n  ".join(differences)
            )
    return store


def run_campaign(
    spec: CampaignSpec,
    results_root: Path,
    make_target: Callable[[CampaignSpec], Target],
    display: Display | None = None,
    stop: threading.Event | None = None,
) -> CampaignOutcome:
    display = display or Display()
    stop = stop or threading.Event()
    store = open_campaign(spec, results_root)
    target = make_target(spec)
    steps = capacity.plan(spec, store)
    removed: list[str] = []
    with store.lock(), stop_on_signals(stop):
        target.prepare(spec, store)
        if not store.exists():
            environment = snapshot(target.path, spec.fio)
            environment["tools"].update(target.tool_versions())
            settings = getattr(target, "backend_settings", None)  # a target may have none
            if settings:
                environment["backend_settings"] = settings
            store.write_campaign(redact(spec.to_dict()), environment, target.backend)
        _mark_stale_runs(store, steps)
        todo = [s for s in steps if not store.read_status(s.id).settled]
        display.campaign_started(store, steps, len(todo))
        for line in getattr(target, "announcements", ()):  # a target may have none
            display.announce(line)
        ended = sweep_end.ended_sweeps(store, steps)
        try:
            if spec.search is not None:
                todo = []  # the search chooses its steps as it goes
                _search(spec, store, target, display, stop)
            for position, step in enumerate(todo, start=1):
                if stop.is_set():
                    break
                if step.workload.name in ended:
                    sweep_end.skip(store, step, *ended[step.workload.name])
                    continue
                outcome = _run_step(store, target, step, display, position, len(todo), stop)
                results = {r.summary["step"]: r for r in _rebuild(store)}
                _scrub_views(store)
                if outcome.state == "interrupted":
                    break
                reason = sweep_end.reason_to_end(spec, steps, step, results)
                if reason is not None:
                    sweep_end.end_sweep(store, step, reason)
                    ended[step.workload.name] = (step, reason)
                    later = [s for s in todo[position:] if s.workload.name == step.workload.name]
                    display.sweep_ended(step, reason, len(later))
        finally:
            removed = target.cleanup(store) + remove_created(store)
        results = _rebuild(store)
        _scrub_views(store)
    return CampaignOutcome(store, results, stop.is_set(), removed)


def _search(
    spec: CampaignSpec,
    store: CampaignStore,
    target: Target,
    display: Display,
    stop: threading.Event,
) -> None:
    """Each workload's capacity search, one step at a time: first any step a run before
    left unsettled, then the counts the search chooses, until its search is over."""
    position = 0
    for workload in spec.workloads:
        while not stop.is_set():
            left = [
                s
                for s in capacity.plan(spec, store)
                if s.workload.name == workload.name and not store.read_status(s.id).settled
            ]
            summaries = {r.summary["step"]: r.summary for r in _rebuild(store)}
            step = left[0] if left else capacity.next_step(spec, store, workload.name, summaries)
            if step is None:
                (found,) = [
                    f for f in _answers(spec, store, summaries) if f.workload == workload.name
                ]
                display.searched(found, None)
                break
            position += 1
            outcome = _run_step(store, target, step, display, position, 0, stop)
            summaries = {r.summary["step"]: r.summary for r in _rebuild(store)}
            _scrub_views(store)
            if outcome.state == "interrupted":
                return
            (found,) = [f for f in _answers(spec, store, summaries) if f.workload == workload.name]
            display.searched(found, next((t for t in found.trials if t.step == step.id), None))


def _answers(
    spec: CampaignSpec, store: CampaignStore, summaries: dict[str, dict]
) -> list[Capacity]:
    steps = capacity.plan(spec, store)
    unsettled = {s.id for s in steps if not store.read_status(s.id).settled}
    return capacity.answers(spec, steps, summaries, unsettled)


def _rebuild(store: CampaignStore) -> list[StepResult]:
    """The campaign's records and views rebuilt from its steps' raw files. Their modules
    are imported here, once a step has run: they were a fifth of the time before a
    campaign's first step started."""
    from harness.campaign.rebuild import rebuild

    return rebuild(store)


def _scrub_views(store: CampaignStore) -> None:
    """Known secrets out of the campaign's files (created.json excepted: it names what
    cleanup must remove, and is emptied as it does)."""
    secrets.scrub_files(p for p in store.root.iterdir() if p.name != "created.json")


def _mark_stale_runs(store: CampaignStore, steps: list[Step]) -> None:
    """A step left 'running' by a run that died (we hold the lock now) was interrupted."""
    for step in steps:
        status = store.read_status(step.id)
        if status.state == "running":
            status.state = "interrupted"
            status.error = status.error or "the run that started this step ended abruptly"
            store.write_status(status)


def _run_step(
    store: CampaignStore,
    target: Target,
    step: Step,
    display: Display,
    position: int,
    total: int,
    stop: threading.Event,
) -> StepOutcome:
    status = store.begin_attempt(step.id)
    atomic_write_json(store.step_dir(step.id) / "step.json", step.to_dict())
    tick = display.step_started(step, position, total)
    raised: TargetError | None = None
    meter = CostMeter().start()
    try:
        outcome = target.run_step(step, store, stop, tick)
    except TargetError as exc:  # the target refuses: no later step can do better
        outcome, raised = StepOutcome("failed", str(exc)), exc
    except Exception as exc:  # an OS error or a bug: record it, keep the campaign going
        outcome = StepOutcome("failed", f"{type(exc).__name__}: {exc}")
    finally:
        from harness.campaign.results import COST_FILE  # see _rebuild

        secrets.scrub_tree(store.step_dir(step.id))  # raw output: what the tools said
        atomic_write_json(store.step_dir(step.id) / COST_FILE, asdict(meter.finish()))
    status.state, status.error, status.notes = outcome.state, outcome.error, outcome.notes
    status.finished = time.time()
    store.write_status(status)
    display.step_finished(step, outcome)
    if raised is not None:
        raise raised
    return outcome
