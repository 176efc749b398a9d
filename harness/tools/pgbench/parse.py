"""Parse pgbench output: the init's timing line, the run's summary, --progress lines.

pgbench prints its run summary on stdout and its progress, init timings and errors on
stderr; callers pass each text to the matching function. Figures pgbench did not print
stay None.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_NUMBER = r"([0-9]+(?:\.[0-9]+)?)"
_PROGRESS = re.compile(
    rf"^progress: {_NUMBER} s, {_NUMBER} tps, lat {_NUMBER} ms stddev (?:{_NUMBER}|NaN)"
)
_INIT_DONE = re.compile(rf"^done in {_NUMBER} s \((.*)\)\.?$", re.MULTILINE)
_INIT_PART = re.compile(rf"([a-z][a-z -]*?) {_NUMBER} s")


class PgbenchParseError(ValueError):
    """Output that holds no pgbench result; the message quotes pgbench's error."""


@dataclass(frozen=True)
class PgbenchProgress:
    time_s: float
    tps: float
    latency_avg_ms: float
    latency_stddev_ms: float | None


@dataclass
class PgbenchInit:
    load_time_s: float
    phases_s: dict[str, float]  # "client-side generate": 0.11, "primary keys": 0.05 …


@dataclass
class PgbenchRun:
    version: str | None
    scale: int | None
    clients: int | None
    threads: int | None
    query_mode: str | None
    transactions: int | None
    failed: int | None
    tps: float | None
    latency_avg_ms: float | None
    latency_stddev_ms: float | None
    connection_time_ms: float | None
    progress: list[PgbenchProgress] = field(default_factory=list)


def errors(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith("pgbench: error:")]


def _explain(source: str, what: str, stderr: str) -> PgbenchParseError:
    said = errors(stderr)
    return PgbenchParseError(
        f"{source}: {what}" + (f"; pgbench said: {' / '.join(said)}" if said else "")
    )


def parse_init(stderr: str, source: str = "<pgbench -i>") -> PgbenchInit:
    done = _INIT_DONE.search(stderr)
    if done is None:
        raise _explain(source, "no 'done in N s' line: the load did not finish", stderr)
    phases = {name.strip(): float(value) for name, value in _INIT_PART.findall(done.group(2))}
    return PgbenchInit(float(done.group(1)), phases)


def _field(pattern: str, text: str) -> str | None:
    m = re.search(pattern, text, re.MULTILINE)
    return m.group(1) if m else None


def _float(pattern: str, text: str) -> float | None:
    value = _field(pattern, text)
    return float(value) if value is not None else None


def _int(pattern: str, text: str) -> int | None:
    value = _field(pattern, text)
    return int(value) if value is not None else None


def parse_progress(stderr: str) -> list[PgbenchProgress]:
    progress = []
    for line in stderr.splitlines():
        if m := _PROGRESS.match(line):
            t, tps, lat, stddev = m.groups()
            progress.append(
                PgbenchProgress(float(t), float(tps), float(lat), float(stddev) if stddev else None)
            )
    return progress


def parse_run(stdout: str, stderr: str = "", source: str = "<pgbench>") -> PgbenchRun:
    tps = _float(rf"^tps = {_NUMBER}", stdout)
    if tps is None and _int(r"^number of transactions actually processed: (\d+)", stdout) == 0:
        # pgbench's -T counts from its threads' start: clients that connect or wait
        # longer than the run (a busy machine, a lock) end it with no transaction done,
        # and pgbench then prints no latency and no tps
        duration = _field(r"^duration: (\d+ s)", stdout)
        run = f"its {duration} run" if duration else "its run"
        said = (
            f"pgbench processed no transaction in {run} (its clients' connections or first "
            "transactions took the whole run): no figure; a longer runtime measures it"
        )
        raise _explain(source, said, stderr)
    if tps is None:
        raise _explain(source, "no 'tps = ' line: the run did not finish", stderr)
    return PgbenchRun(
        version=_field(r"^pgbench \(([^)]*?)(?: \(|\))", stdout),
        scale=_int(r"^scaling factor: (\d+)", stdout),
        clients=_int(r"^number of clients: (\d+)", stdout),
        threads=_int(r"^number of threads: (\d+)", stdout),
        query_mode=_field(r"^query mode: (\S+)", stdout),
        transactions=_int(r"^number of transactions actually processed: (\d+)", stdout),
        failed=_int(r"^number of failed transactions: (\d+)", stdout),
        tps=tps,
        latency_avg_ms=_float(rf"^latency average = {_NUMBER} ms", stdout),
        latency_stddev_ms=_float(rf"^latency stddev = {_NUMBER} ms", stdout),
        connection_time_ms=_float(rf"^initial connection time = {_NUMBER} ms", stdout),
        progress=parse_progress(stderr),
    )
