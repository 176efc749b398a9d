"""The `hosts` target: consumers on hosts volperf does not create, each running ``fio
--server``. A step is one fio client run with each host's job file; the client reaches
the hosts one after the other, so every job waits, once set up, for the step's shared
start time (fio's exec_prerun, on the host's clock). fio sends each job's JSON and
per-second logs back to the client, which writes them under raw/. A file that exists on
a host before volperf made it is refused (unless allowed); a host that does not answer
fails its consumers, with its address and fio's reason, and the others' results stay."""

from __future__ import annotations

import threading
import time
from dataclasses import asdict
from pathlib import Path

from harness.core.plan import Step
from harness.core.spec import CampaignSpec, HostsTarget
from harness.core.store import CampaignStore, atomic_write_json
from harness.core.units import size_bytes
from harness.planes.base import StepOutcome, TargetError, Tick
from harness.planes.fio_step import finished, fio_failure, log_dir, prefill_note, step_timeout
from harness.planes.hosts.fleet import (
    KIND,
    Placed,
    by_host,
    existing_files,
    file_stem,
    hosts_of,
    place,
    reported_name,
    server,
    unanswered,
    write_placement,
)
from harness.tools.fio.render import render_job, render_prefill, wait_until_prerun
from harness.tools.fio.run import run_fio

PREFILL_TIMEOUT_S = 3600
# the shared start, after the client has reached every host and each has set its jobs up
DEFAULT_START_DELAY_S = 2.0
START_DELAY_PER_HOST_S = 0.1


class HostsFioTarget:
    path: Path | None = None  # its storage is not a folder of this host

    def __init__(self, spec: CampaignSpec):
        self.spec = spec
        self.options: HostsTarget = spec.target
        self.backend = spec.labels.get(
            "backend",
            f"hosts:{len(self.options.hosts)}:"
            + ",".join(reported_name(h) for h in self.options.hosts),
        )

    def prepare(self, spec: CampaignSpec, store: CampaignStore) -> None:
        """Nothing to check here: the hosts are reached step by step, and one that does not
        answer fails only its own consumers."""

    def tool_versions(self) -> dict[str, str]:
        return {}

    # one step
    def run_step(
        self, step: Step, store: CampaignStore, stop: threading.Event, tick: Tick
    ) -> StepOutcome:
        raw = store.raw_dir(step.id)
        raw.mkdir(parents=True, exist_ok=True)
        placed = place(step.consumers, self.options.hosts, self.spec.name)
        write_placement(raw, placed)
        outputs = [p.prerun_output() for p in placed] if self._start_delay_s() else []
        missing = self._claim_files(placed + outputs, store, raw / "probe", stop)
        running = [p for p in placed if server(p.host) not in missing]
        notes: list[str] = []
        failure = None
        if running and step.workload.prefill:
            failure, lost = self._prefill(step, running, store, raw, stop, tick, notes)
            missing |= lost
            running = [p for p in running if server(p.host) not in missing]
        if running and failure is None:
            failure = self._measure(step, running, raw, stop, tick)
            missing |= unanswered(raw / "fio.out", [raw / "fio.err"], hosts_of(running))
        outcome = finished(failure, notes)
        if missing and outcome.state == "done":
            return StepOutcome("failed", _unanswered_error(missing, placed), notes)
        return outcome

    def _claim_files(
        self, placed: list[Placed], store: CampaignStore, scratch: Path, stop: threading.Event
    ) -> dict[str, str]:
        """Note the step's new files before fio makes them, refusing one that volperf did
        not make; the servers that did not answer, with why."""
        created = store.created()
        new = [p for p in placed if p.key not in created]
        if not new:
            return {}
        present, missing = existing_files(by_host(new), scratch, stop, self.spec.fio)
        for p in new:
            if server(p.host) in missing:
                continue
            if p.key in present and not self.options.allow_existing:
                raise TargetError(
                    f"{p.filename} exists on {reported_name(p.host)} and volperf did not "
                    "create it; set target.allow_existing to let fio overwrite it"
                )
            store.record_created(
                p.key,
                kind=KIND,
                ours=p.key not in present,
                server=server(p.host),
                filename=p.filename,
            )
        return missing

    def _prefill(
        self,
        step: Step,
        running: list[Placed],
        store: CampaignStore,
        raw: Path,
        stop: threading.Event,
        tick: Tick,
        notes: list[str],
    ) -> tuple[StepOutcome | None, dict[str, str]]:
        """Write every block of the files not written yet once; a failure and the servers
        that did not answer."""
        size = size_bytes(step.workload.size)
        created = store.created()
        unfilled = [p for p in running if created.get(p.key, {}).get("prefilled_bytes", 0) < size]
        if not unfilled:
            return None, {}
        servers = []
        for name, group in by_host(unfilled).items():
            job = raw / f"prefill-{file_stem(name)}.job"
            job.write_text(render_prefill(step.workload, [p.job_target() for p in group]))
            servers.append((name, job))
        timeout = self.spec.step_timeout or PREFILL_TIMEOUT_S
        result = run_fio(
            servers,
            raw / "prefill.out",
            raw / "prefill.err",
            timeout,
            stop,
            self.spec.fio,
            lambda elapsed: tick(elapsed, None),
        )
        failure = fio_failure(result, raw / "prefill.out", raw / "prefill.err", "prefill")
        if failure is not None:
            return failure, {}
        lost = unanswered(raw / "prefill.out", [raw / "prefill.err"], hosts_of(unfilled))
        filled = [p for p in unfilled if server(p.host) not in lost]
        for p in filled:
            store.record_created(p.key, prefilled_bytes=size)
        notes.append(prefill_note(len(filled), step.workload.size, result.duration_s))
        return None, lost

    def _measure(
        self, step: Step, running: list[Placed], raw: Path, stop: threading.Event, tick: Tick
    ) -> StepOutcome | None:
        """One fio client, each host its job file with its consumers' jobs (numbered in
        the step's order, so start_stagger counts across hosts), logs written under raw/."""
        logs = log_dir(raw)
        delay = self._start_delay_s()
        start_ns = time.time_ns() + int(delay * 1e9)
        servers = []
        for name, group in by_host(running).items():
            job = raw / f"fio-{file_stem(name)}.job"
            targets = [p.job_target() for p in group]
            places = [p.position for p in group]
            prerun = wait_until_prerun(start_ns, group[0].host.dir) if delay else None
            text = render_job(step.workload, targets, logs=logs, positions=places, prerun=prerun)
            job.write_text(text)
            servers.append((name, job))
        result = run_fio(
            servers,
            raw / "fio.out",
            raw / "fio.err",
            step_timeout(self.spec, step.workload, len(running)) + delay,
            stop,
            self.spec.fio,
            lambda elapsed: tick(elapsed, None),
        )
        atomic_write_json(raw / "process.json", asdict(result))
        return fio_failure(result, raw / "fio.out", raw / "fio.err", "fio")

    def _start_delay_s(self) -> float:
        """How long after a step's fio client starts every host's I/O begins together."""
        if self.options.start_delay is not None:
            return self.options.start_delay
        return DEFAULT_START_DELAY_S + START_DELAY_PER_HOST_S * len(self.options.hosts)

    def cleanup(self, store: CampaignStore) -> list[str]:
        return []  # its files are noted in created.json: the campaign removes them


def _unanswered_error(missing: dict[str, str], placed: list[Placed]) -> str:
    """'hosts did not answer: c01, c03 on ADDRESS,PORT: why; …'"""
    lines = []
    for name, why in missing.items():
        consumers = [p.consumer.name for p in placed if server(p.host) == name]
        lines.append(f"{', '.join(consumers)} on {name}: {why}")
    return "hosts did not answer: " + "; ".join(lines)
