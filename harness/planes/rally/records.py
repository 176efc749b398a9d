"""rally.csv: one row per atomic action per Rally workload, the table Rally's HTML report
shows (min, median, 90%ile, 95%ile, max, avg, success, count), read from the statistics
Rally stores with each workload (its MainStatsTable), so the figures are Rally's own.

Input is Rally's JSON export (format 1.x: tasks -> subtasks -> workloads). Nested atomic
actions keep Rally's indented names (" -> nova.boot_server"); ``total`` closes each
workload, with its ``duration`` and ``idle_duration`` children.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any

from harness.core.store import read_raw_text
from harness.records.fio import csv_cell

CSV_FILE = "rally.csv"  # a Rally step's rows, the campaign's table of them


class RallyResultError(ValueError):
    """A Rally JSON export that cannot be read (the message names the file and why)."""


class RallyReportMissing(RallyResultError):
    """No Rally JSON export at all (neither NAME nor NAME.gz)."""


@dataclass(frozen=True)
class RallyActionRecord:
    action: str  # Rally's display name; children indented as " -> name"
    min_s: float | None
    median_s: float | None
    p90_s: float | None
    p95_s: float | None
    max_s: float | None
    avg_s: float | None
    success_pct: float | None
    count: int
    step: str
    scenario: str  # CinderVolumes.create_and_attach_volume …
    concurrency: int | None
    times: int | None
    depth: int  # 0 for top-level actions and total
    task: str  # Rally's task uuid
    pass_sla: bool


RALLY_COLUMNS = [f.name for f in fields(RallyActionRecord)]
TABLE_HEADER = [
    "Action",
    "Min (sec)",
    "Median (sec)",
    "90%ile (sec)",
    "95%ile (sec)",
    "Max (sec)",
    "Avg (sec)",
    "Success",
    "Count",
]


def load_export(path: Path) -> dict[str, Any]:
    """Rally's JSON export, kept as PATH or gzipped as PATH.gz."""
    try:
        document = json.loads(read_raw_text(path))
    except FileNotFoundError as exc:
        raise RallyReportMissing(f"{path}: no Rally JSON export ({exc})") from exc
    except (OSError, ValueError) as exc:
        raise RallyResultError(f"{path}: not a readable Rally JSON export ({exc})") from exc
    if not isinstance(document, dict) or not isinstance(document.get("tasks"), list):
        raise RallyResultError(f"{path}: no 'tasks' list; expected `rally task export --type json`")
    return document


def workloads(document: dict[str, Any]) -> Iterator[tuple[dict[str, Any], dict[str, Any]]]:
    """(task, workload) pairs in the export's order."""
    for task in document["tasks"]:
        for subtask in task.get("subtasks", []):
            for workload in subtask.get("workloads", []):
                yield task, workload


def scenario_of(workload: dict[str, Any]) -> str:
    return next(iter(workload.get("scenario") or {"?": None}))


def runner_of(workload: dict[str, Any]) -> dict[str, Any]:
    return next(iter((workload.get("runner") or {}).values()), {})


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) else None


def _percent(value: Any) -> float | None:
    if isinstance(value, str) and value.endswith("%"):
        return float(value[:-1])
    return _number(value)


def records_of(document: dict[str, Any], step: str = "") -> list[RallyActionRecord]:
    """Every workload's rows, in Rally's order; ``step`` labels them (else the task)."""
    rows: list[RallyActionRecord] = []
    for task, workload in workloads(document):
        durations = (workload.get("statistics") or {}).get("durations") or {}
        runner = runner_of(workload)
        context = {
            "step": step or task.get("uuid", ""),
            "scenario": scenario_of(workload),
            "concurrency": runner.get("concurrency"),
            "times": runner.get("times"),
            "task": task.get("uuid", ""),
            "pass_sla": bool(workload.get("pass_sla")),
        }
        for element in [*durations.get("atomics", []), durations.get("total")]:
            if element:
                rows += _rows(element, 0, context)
    return rows


def _rows(element: dict[str, Any], depth: int, context: dict[str, Any]) -> list[RallyActionRecord]:
    data = element.get("data", {})
    name = element.get("display_name") or element.get("name", "?")
    row = RallyActionRecord(
        action=f" {'-' * depth}> {name}" if depth else name,
        min_s=_number(data.get("min")),
        median_s=_number(data.get("median")),
        p90_s=_number(data.get("90%ile")),
        p95_s=_number(data.get("95%ile")),
        max_s=_number(data.get("max")),
        avg_s=_number(data.get("avg")),
        success_pct=_percent(data.get("success")),
        count=int(data.get("iteration_count") or 0),
        depth=depth,
        **context,
    )
    children = element.get("children", [])
    return [row, *(r for child in children for r in _rows(child, depth + 1, context))]


def rally_csv(records: Iterable[RallyActionRecord]) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(RALLY_COLUMNS)
    for record in records:
        writer.writerow([csv_cell(v) for v in asdict(record).values()])
    return buffer.getvalue()


def read_rally_csv(path: Path) -> list[dict[str, str]]:
    """Rows of a rally.csv as written (strings), e.g. a baseline campaign's."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise RallyResultError(f"{path}: cannot read ({exc})") from exc
    return rally_csv_rows(text, str(path))


def rally_csv_rows(text: str, where: str = "rally.csv") -> list[dict[str, str]]:
    """Rows of a rally.csv's text (strings); ``where`` names it in the error."""
    rows = list(csv.DictReader(io.StringIO(text, newline="")))
    if rows and "action" not in rows[0]:
        raise RallyResultError(f"{where}: not a volperf rally.csv (no 'action' column)")
    return rows
