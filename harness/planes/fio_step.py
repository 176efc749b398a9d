"""What every fio-driven target does in a step: an optional prefill pass, the measured
job under a timeout, and one verdict from fio's exit, JSON and stderr."""

from __future__ import annotations

import threading
from collections.abc import Mapping
from dataclasses import asdict
from pathlib import Path

from harness.core.spec import CampaignSpec, FioWorkload
from harness.core.store import atomic_write_json
from harness.host.process import ProcessResult
from harness.host.sampler import HostSampler
from harness.planes.base import StepOutcome, Tick
from harness.tools.fio.parse import FioParseError, parse_file
from harness.tools.fio.run import run_fio

DEFAULT_TIMEOUT_MARGIN_S = 120
SIZE_MODE_TIMEOUT_S = 3600
LOG_DIR = "logs"


def step_timeout(spec: CampaignSpec, workload: FioWorkload, consumers: int = 1) -> float:
    if spec.step_timeout is not None:
        return spec.step_timeout
    stagger = workload.start_stagger * (consumers - 1)
    if workload.mode == "time" and workload.runtime is not None:
        return workload.runtime + workload.ramp_time + stagger + DEFAULT_TIMEOUT_MARGIN_S
    return SIZE_MODE_TIMEOUT_S + stagger


def log_dir(raw: Path) -> str:
    """raw/logs, made: where fio writes its consumers' per-second logs on this host."""
    (raw / LOG_DIR).mkdir(exist_ok=True)
    return str(raw / LOG_DIR)


def run_prefill(
    spec: CampaignSpec,
    raw: Path,
    job: str,
    stop: threading.Event,
    tick: Tick,
    env: Mapping[str, str] | None = None,
) -> tuple[StepOutcome | None, float]:
    """Write every block once (raw/prefill.*); a failure outcome or None, and seconds."""
    (raw / "prefill.job").write_text(job)
    timeout = spec.step_timeout if spec.step_timeout is not None else SIZE_MODE_TIMEOUT_S
    result = run_fio(
        raw / "prefill.job",
        raw / "prefill.out",
        raw / "prefill.err",
        timeout,
        stop,
        fio=spec.fio,
        on_tick=lambda elapsed: tick(elapsed, None),
        env=env,
    )
    return fio_failure(
        result, raw / "prefill.out", raw / "prefill.err", "prefill"
    ), result.duration_s


def run_measured(
    spec: CampaignSpec,
    workload: FioWorkload,
    raw: Path,
    job: str,
    stop: threading.Event,
    tick: Tick,
    env: Mapping[str, str] | None = None,
    sampler: HostSampler | None = None,
    consumers: int = 1,
) -> StepOutcome | None:
    """The measured job (raw/fio.*, process.json); a failure outcome or None. The host
    sampler, if any, gives the live IOPS shown while it runs."""
    (raw / "fio.job").write_text(job)

    def on_tick(elapsed: float) -> None:
        tick(elapsed, sampler.live_iops if sampler is not None else None)

    result = run_fio(
        raw / "fio.job",
        raw / "fio.out",
        raw / "fio.err",
        step_timeout(spec, workload, consumers),
        stop,
        fio=spec.fio,
        on_tick=on_tick,
        env=env,
    )
    atomic_write_json(raw / "process.json", asdict(result))
    return fio_failure(result, raw / "fio.out", raw / "fio.err", "fio")


def fio_failure(result: ProcessResult, out: Path, err: Path, what: str) -> StepOutcome | None:
    if result.interrupted:
        return StepOutcome(
            "interrupted",
            f"{what} stopped on request after "
            f"{result.duration_s:.1f} s; its partial output is in raw/",
        )
    if result.timed_out:
        return StepOutcome(
            "failed",
            f"{what} did not finish within its timeout ({result.duration_s:.0f} s) and was stopped",
        )
    try:
        output = parse_file(out)
    except FioParseError as exc:
        stderr = _tail(err)
        return StepOutcome(
            "failed",
            f"{what} exited {result.returncode}: {exc}"
            + (f"; fio said: {stderr}" if stderr else ""),
        )
    failed = [j for j in output.jobs if j.error]
    if failed:
        names = ", ".join(f"{j.jobname} ({j.error_message})" for j in failed)
        return StepOutcome(
            "failed",
            f"{len(failed)} of {len(output.jobs)} {what} jobs "
            f"failed: {names}; fio said: {_tail(err)}",
        )
    if result.returncode != 0:
        return StepOutcome("failed", f"{what} exited {result.returncode}: {_tail(err)}")
    return None


def _tail(path: Path, lines: int = 3) -> str:
    try:
        text = path.read_text(encoding="utf-8", errors="replace").strip()
    except OSError:
        return ""
    return " / ".join(text.splitlines()[-lines:])


def finished(failure: StepOutcome | None, notes: list[str]) -> StepOutcome:
    """The step's outcome: the failure, if any, with the notes taken before it."""
    if failure is not None:
        failure.notes[:0] = notes
        return failure
    return StepOutcome("done", notes=notes)


def prefill_note(count: int, size: str, seconds: float) -> str:
    return f"prefilled {count} x {size} in {seconds:.1f} s"
