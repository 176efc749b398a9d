"""A tool's table, declared beside the tool: each column a label and the cell it shows
for a step (the step as summary.json keeps it). The page, the terminal and the
comparison pages read a tool's ``columns``, so a label and its figure are written once,
side by side, never as two parallel lists."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from harness.core.figures import DB

Step = dict[str, Any]


@dataclass(frozen=True)
class Column:
    label: str
    cell: Callable[[Step], str]


def cell(value: float | None, digits: int = 0, ceiling: str | None = None) -> str:
    """A number as the tables show it; a bound at a ceiling is marked, never a number."""
    if value is None:
        return "≥ ceiling" if ceiling else "–"
    return f"{value:.{digits}f}"


def figure(step: Step, section: str, name: str, digits: int = 0, scale: float = 1.0) -> str:
    """A figure of a step's section (read, write, db, app …), as the tables show it."""
    data = step.get(section)
    if not data:
        return "–"
    value = data.get(name)
    ceilings = data.get("ceilings", {})
    return cell(value * scale if value is not None else None, digits, ceilings.get(name))


def at(label: str, section: str, name: str, digits: int = 0) -> Column:
    """A column of one figure of a step's section."""
    return Column(label, lambda s: figure(s, section, name, digits))


def db(name: str, digits: int = 0) -> Column:
    """A column of a database step's figure, headed as the catalogue says
    (harness/core/figures.py)."""
    return at(DB[name].column, "db", name, digits)


def event(label: str, kind: str, name: str, digits: int = 0) -> Column:
    """A column of a statistic of the step's events of one kind (io-pause's mean_s …)."""
    return Column(
        label, lambda s: cell(((s.get("events") or {}).get(kind) or {}).get(name), digits)
    )


def count_of(label: str, kind: str, name: str) -> Column:
    """A column of a count among the step's events of one kind, "–" without any."""
    return Column(label, lambda s: str(((s.get("events") or {}).get(kind) or {}).get(name, "–")))


def consumers(label: str = "consumers") -> Column:
    return Column(label, lambda s: str(s.get("concurrency")))


def threads(label: str = "threads") -> Column:
    return Column(label, lambda s: str(s.get("threads") or ""))


def phase_columns(phases: tuple[str, ...]) -> tuple[Column, ...]:
    """An application's table: each phase's mean, a whole iteration's, failures (the
    seed study's failed builds)."""
    return (
        consumers(),
        at("iterations", "app", "iterations"),
        *(at(f"{phase} s", "app", f"{phase}_s", 2) for phase in phases),
        at("iteration s", "app", "iteration_s", 2),
        at("slowest iteration s", "app", "iteration_s_max", 2),
        at("failed iterations", "app", "failed"),
    )
