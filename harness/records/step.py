"""What every plane's record builder reads and returns for one step: the step's raw files
with its plan, and the parts of its results they give (figures for summary.json, warnings,
rows for the campaign's CSV files). `volperf reparse` merges the parts of every builder
that recognises the raw files."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness.records.aggregate import Warning
from harness.records.db import DbRecord, EventRecord
from harness.records.fio import FioConsumerRecord
from harness.tools.fio.logs import LogPlace
from harness.tools.fio.parse import FioOutput


@dataclass(frozen=True)
class RawStep:
    """One step as its builders see it: its raw files and its plan (step.json)."""

    raw: Path
    step_id: str
    plan: dict[str, Any]
    backend: str
    started: float | None  # wall clock, from the step's status


@dataclass
class StepParts:
    """What one builder makes of a step's raw files."""

    summary: dict[str, Any] = field(default_factory=dict)
    warnings: list[Warning] = field(default_factory=list)
    events: list[EventRecord] = field(default_factory=list)
    db_records: list[DbRecord] = field(default_factory=list)
    fio_records: list[FioConsumerRecord] = field(default_factory=list)
    fio_outputs: list[FioOutput] = field(default_factory=list)  # fio steps: version, histograms
    # jobname -> where its fio's per-second logs are
    fio_log_dirs: dict[str, LogPlace] = field(default_factory=dict)
    rows: dict[str, list[Any]] = field(default_factory=dict)  # a plane's own CSV file -> rows


def read_json(path: Path) -> Any:
    """A raw JSON file a step's tool or target wrote; None when it is missing or broken
    (a builder then goes without it, as without any raw file)."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
