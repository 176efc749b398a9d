"""The campaign directory on disk: results/<name>/.

    campaign.yaml            resolved spec + environment snapshot (secrets removed)
    created.json             every file volperf created, so cleanup finds them after a crash
    steps/<step>/step.json   the step's plan: workload, consumers and their fio job names
    steps/<step>/status.json pending | running | done | failed | interrupted | skipped,
                             times, error, why the sweep ended there (ended_sweep)
    steps/<step>/raw/        tool output exactly as the tools wrote it
    fio.csv, summary.json    views rebuilt from raw/ by `volperf reparse`

A raw file may be kept gzipped (NAME.gz, as the large ones of the campaigns kept in the
repository are): its readers open it through read_raw_text, which takes either.

Every write is atomic (temporary file + rename), so a crash never leaves half a file.
"""

from __future__ import annotations

import fcntl
import gzip
import json
import os
import tempfile
import threading
import time
import zlib
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import yaml

from harness.core.redact import redact

# created.json is read, changed and written whole: one change at a time in this process
_CREATED_LOCK = threading.Lock()

# skipped: not run, as an open-ended sweep ended at an earlier step (its error says why)
STATES = ("pending", "running", "done", "failed", "interrupted", "skipped")


class CampaignError(RuntimeError):
    """A campaign that cannot be opened or run as asked."""


def read_raw_text(path: Path) -> str:
    """A raw file's text, kept as PATH or gzipped as PATH.gz (PATH first where both are);
    FileNotFoundError names PATH when neither is there. Bytes not UTF-8 raise
    UnicodeDecodeError (a ValueError), as read_text does; a broken or cut gzip stream an
    OSError naming PATH.gz, so readers that take (OSError, ValueError) take both."""
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        packed = path.with_name(path.name + ".gz")
        if not packed.is_file():
            raise
    try:
        data = gzip.decompress(packed.read_bytes())
    except (EOFError, zlib.error, gzip.BadGzipFile) as exc:  # cut short, corrupt, not gzip
        raise OSError(f"{packed}: not a whole gzip stream ({exc})") from exc
    return data.decode("utf-8")


def atomic_write_text(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def atomic_write_json(path: Path, data: Any) -> None:
    atomic_write_text(path, json.dumps(data, indent=2, sort_keys=False) + "\n")


def settled(state: str, ended_sweep: str | None) -> bool:
    """A step run as the campaign meant: done, skipped, or failed where its sweep was to
    end."""
    return state in ("done", "skipped") or (state == "failed" and bool(ended_sweep))


@dataclass
class StepStatus:
    step: str
    state: str = "pending"
    attempts: int = 0
    started: float | None = None
    finished: float | None = None
    error: str = ""
    notes: list[str] = field(default_factory=list)
    ended_sweep: str = ""  # the stop rule that held after this step: why its sweep ended

    @property
    def settled(self) -> bool:
        return settled(self.state, self.ended_sweep)


@dataclass(frozen=True)
class CampaignStore:
    root: Path

    @property
    def name(self) -> str:
        return self.root.name

    @property
    def campaign_file(self) -> Path:
        return self.root / "campaign.yaml"

    def exists(self) -> bool:
        return self.campaign_file.exists()

    def step_dir(self, step_id: str) -> Path:
        return self.root / "steps" / step_id

    def raw_dir(self, step_id: str) -> Path:
        return self.step_dir(step_id) / "raw"

    def step_ids(self) -> list[str]:
        steps = self.root / "steps"
        return sorted(p.name for p in steps.iterdir() if p.is_dir()) if steps.exists() else []

    # campaign.yaml
    def write_campaign(
        self, spec: dict[str, Any], environment: dict[str, Any], backend: str
    ) -> None:
        document = {"spec": spec, "backend": backend, "environment": environment}
        atomic_write_text(self.campaign_file, yaml.safe_dump(document, sort_keys=False))

    def read_campaign(self) -> dict[str, Any]:
        if not self.exists():
            raise CampaignError(f"{self.root}: not a campaign (no campaign.yaml)")
        return yaml.safe_load(self.campaign_file.read_text(encoding="utf-8"))

    # step status
    def read_status(self, step_id: str) -> StepStatus:
        path = self.step_dir(step_id) / "status.json"
        if not path.exists():
            return StepStatus(step_id)
        return StepStatus(**json.loads(path.read_text(encoding="utf-8")))

    def write_status(self, status: StepStatus) -> None:
        if status.state not in STATES:
            raise ValueError(f"unknown step state {status.state!r}")
        atomic_write_json(self.step_dir(status.step) / "status.json", redact(asdict(status)))

    def begin_attempt(self, step_id: str) -> StepStatus:
        """Mark a step running; an earlier attempt's raw output is kept aside, not lost."""
        status = self.read_status(step_id)
        raw = self.raw_dir(step_id)
        if raw.exists() and any(raw.iterdir()):
            raw.rename(self.step_dir(step_id) / f"raw.attempt-{status.attempts}")
        raw.mkdir(parents=True, exist_ok=True)
        status.state, status.attempts = "running", status.attempts + 1
        status.started, status.finished, status.error = time.time(), None, ""
        status.notes, status.ended_sweep = [], ""
        self.write_status(status)
        return status

    # created.json
    def created(self) -> dict[str, dict[str, Any]]:
        path = self.root / "created.json"
        return json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}

    def record_created(self, resource: str, **details: Any) -> None:
        """Note a resource before it is made, so a crash mid-creation still finds it."""
        self.record_all_created({resource: details})

    def record_all_created(self, notes: Mapping[str, Mapping[str, Any]]) -> None:
        """Note several resources in one write (a step's hundreds of namespaces: one
        rewrite of the file each would be quadratic)."""
        with _CREATED_LOCK:  # a plane's threads note and forget at once
            created = self.created()
            for resource, details in notes.items():
                created[resource] = {**created.get(resource, {}), **details}
            atomic_write_json(self.root / "created.json", created)

    def forget_created(self, *resources: str) -> None:
        with _CREATED_LOCK:
            created = self.created()
            for resource in resources:
                created.pop(resource, None)
            atomic_write_json(self.root / "created.json", created)

    @contextmanager
    def lock(self) -> Iterator[None]:
        """One run per campaign at a time; the kernel drops the lock if the run dies."""
        self.root.mkdir(parents=True, exist_ok=True)
        with (self.root / ".lock").open("w") as handle:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                raise CampaignError(
                    f"{self.root}: another volperf run holds this campaign"
                ) from None
            yield
