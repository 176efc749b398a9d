"""The words the method sections and the terminal share, for the tools' own sentences."""

from __future__ import annotations

from typing import Any


def join(parts: list[str]) -> str:
    return "; ".join(p for p in parts if p) + "."


def thread_counts(w: dict[str, Any], what: str = "threads") -> str:
    return f"{what} {', '.join(str(t) for t in w.get('threads', [1]))}"


def per_minute(pace: dict[str, Any], key: str, what: str) -> str:
    rate = pace.get(key)
    return f"{what} at most {rate:g} a minute" if rate else f"{what} all at once"


def paced(pace: dict[str, Any], what: str) -> str:
    """How fast namespaces came and went, where the workload paced them."""
    if not pace.get("create_per_min") and not pace.get("delete_per_min"):
        return ""
    return (
        f"{per_minute(pace, 'create_per_min', f'{what} created')}, "
        f"{per_minute(pace, 'delete_per_min', 'deleted')}"
    )


def runtime_seconds(w: dict[str, Any]) -> float | None:
    """A database workload's measured part: its runtime."""
    return float(w.get("runtime") or 0)


def open_ended(w: dict[str, Any]) -> float | None:
    """As long as the cloud, the cluster or the storage takes."""
    return None


def db_step_line(w: dict[str, Any], threads: int | None, seconds: float | None) -> str:
    """The terminal's short form of a database step."""
    return f"{w.get('tool', 'fio')} {w.get('test', '')}".strip() + (
        f", {threads} threads, ~{seconds:.0f} s"
    )
