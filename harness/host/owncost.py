"""What volperf itself spends while a step runs, so a user can see it is not the
bottleneck: the CPU time of its own process (every thread of it; the tools it starts,
fio, the databases, Rally's runner, are other processes and not counted), its peak
resident memory, and the calls it made to a cloud's API, by service.

CPU and memory are the kernel's own accounting of this process: times(2) for the CPU,
and the resident high-water mark (VmHWM in /proc/self/status) for the peak, reset at a
step's start by writing 5 to /proc/self/clear_refs (Linux 4.0 and later); where the
reset is refused the peak is the process's since it started, and says so. API calls are
counted where volperf's clients send them (`count_api_call`).

A part of volperf's work that is not the step's own (the k8s plane's node sampler) runs
inside ``spent_on(PART)``: the CPU time of the threads doing it (each thread's own clock)
and the API calls they send are also counted apart, under the step's ``parts``. Memory
is the process's and is not split."""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections import Counter
from collections.abc import Iterator
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

_PROC_SELF = Path("/proc/self")
_calls: Counter[str] = Counter()
_part_calls: Counter[tuple[str, str]] = Counter()  # (part, service) -> requests
_part_cpu: Counter[str] = Counter()  # part -> CPU seconds of the threads doing it
_calls_lock = threading.Lock()
_part: ContextVar[str] = ContextVar("volperf_cost_part", default="")


def count_api_call(service: str) -> None:
    """One request volperf sent to a cloud's API (kubernetes, openstack, ceph)."""
    part = _part.get()
    with _calls_lock:
        _calls[service] += 1
        if part:
            _part_calls[part, service] += 1


def api_calls() -> dict[str, int]:
    """Requests sent so far by this process, by service."""
    with _calls_lock:
        return dict(_calls)


@contextlib.contextmanager
def spent_on(part: str) -> Iterator[None]:
    """What this thread does inside is also counted as ``part``: its CPU time (this
    thread's own clock) and the API calls it sends. Threads it starts are not: each one
    working for the part enters ``spent_on`` itself."""
    token = _part.set(part)
    started = time.thread_time()
    try:
        yield
    finally:
        spent = time.thread_time() - started
        _part.reset(token)
        with _calls_lock:
            _part_cpu[part] += spent


@dataclass(frozen=True)
class _PartsReading:
    cpu: dict[str, float]  # part -> CPU seconds so far
    calls: dict[tuple[str, str], int]  # (part, service) -> requests so far


def _parts_so_far() -> _PartsReading:
    with _calls_lock:
        return _PartsReading(dict(_part_cpu), dict(_part_calls))


def cpu_seconds() -> float:
    """User and system CPU time of this process, all its threads, since it started."""
    times = os.times()
    return times.user + times.system


def peak_rss_bytes(proc: Path = _PROC_SELF) -> int | None:
    """The kernel's high-water mark of this process's resident memory (VmHWM)."""
    try:
        status = (proc / "status").read_text(encoding="ascii")
    except OSError:
        return None
    for line in status.splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024  # kB
    return None


def reset_peak_rss(proc: Path = _PROC_SELF) -> bool:
    """Start the high-water mark again from the current resident size; False if refused."""
    try:
        (proc / "clear_refs").write_text("5", encoding="ascii")
    except OSError:
        return False
    return True


@dataclass(frozen=True)
class OwnCost:
    """volperf's own cost over one step."""

    wall_s: float
    cpu_s: float  # user + system, every thread of volperf's process
    peak_rss_bytes: int | None
    peak_since: str  # "step", or "process" when the kernel kept the process's peak
    api_calls: dict[str, int] = field(default_factory=dict)  # service -> requests
    # what of the above went to work that is not the step's own: part -> its cpu_s and
    # api_calls (service -> requests)
    parts: dict[str, dict[str, Any]] = field(default_factory=dict)


class CostMeter:
    """Measures volperf's own cost between ``start`` and ``finish``."""

    def start(self) -> CostMeter:
        self._reset = reset_peak_rss()
        self._calls = api_calls()
        self._parts = _parts_so_far()
        self._cpu = cpu_seconds()
        self._wall = time.monotonic()
        return self

    def finish(self) -> OwnCost:
        wall, cpu = time.monotonic() - self._wall, cpu_seconds() - self._cpu
        now = api_calls()
        calls = {k: n - self._calls.get(k, 0) for k, n in now.items() if n > self._calls.get(k, 0)}
        return OwnCost(
            wall_s=round(wall, 3),
            cpu_s=round(cpu, 3),
            peak_rss_bytes=peak_rss_bytes(),
            peak_since="step" if self._reset else "process",
            api_calls=calls,
            parts=_parts_between(self._parts, _parts_so_far()),
        )


def _parts_between(before: _PartsReading, after: _PartsReading) -> dict[str, dict[str, Any]]:
    """Each part's CPU and API calls between two readings (a part idle between: none)."""
    parts: dict[str, dict[str, Any]] = {}
    for part in sorted({*after.cpu, *(p for p, _ in after.calls)}):
        cpu = after.cpu.get(part, 0.0) - before.cpu.get(part, 0.0)
        calls = {
            service: n - before.calls.get((p, service), 0)
            for (p, service), n in after.calls.items()
            if p == part and n > before.calls.get((p, service), 0)
        }
        if calls or cpu > 0:
            parts[part] = {"cpu_s": round(cpu, 3), "api_calls": calls}
    return parts
