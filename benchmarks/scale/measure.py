"""What the scale benchmarks share: a process run with its own cost read from the kernel
(wait4's rusage, the same way for volperf and for the tool it is compared with), volperf's
CLI, large raw files kept gzipped, and figure files stamped with the code that measured
them (the Scale page warns when that code has changed since)."""

from __future__ import annotations

import gzip
import json
import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.core.code_stamp import current_stamp
from harness.report.scale_provenance import STAMP_KEY

ROOT = Path(__file__).resolve().parents[2]
TIMEOUT_S = 1800


@dataclass(frozen=True)
class Cost:
    """A process's own cost, from the kernel's rusage of it and of the children it waited
    for (wait4): CPU is theirs summed, peak RSS the largest of them."""

    wall_s: float
    cpu_s: float
    peak_rss_mib: float


def run_measured(
    argv: list[str],
    cwd: Path,
    log: Path,
    env: dict[str, str] | None = None,
    exit_codes: Collection[int] = (0,),
) -> tuple[Cost, int]:
    """Run ``argv`` to its end, its output in ``log``; its cost and exit code (one outside
    ``exit_codes`` fails the benchmark, naming the log)."""
    started = time.monotonic()
    with log.open("w") as out:
        process = subprocess.Popen(
            argv, cwd=cwd, stdout=out, stderr=subprocess.STDOUT, env={**os.environ, **(env or {})}
        )
        _, status, usage = os.wait4(process.pid, 0)
    returncode = os.waitstatus_to_exitcode(status)
    wall = time.monotonic() - started
    assert returncode in exit_codes, f"{argv[0]} exited {returncode}: see {log}"
    cpu = usage.ru_utime + usage.ru_stime
    return Cost(round(wall, 1), round(cpu, 2), round(usage.ru_maxrss / 1024, 1)), returncode


def volperf(
    *args: str, timeout: float = TIMEOUT_S, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """The volperf CLI of this checkout; its failure fails the benchmark."""
    done = subprocess.run(
        [sys.executable, "-m", "harness.cli", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
        env={**os.environ, **(env or {})},
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done


def gzipped(path: Path, above_bytes: int = 50_000) -> Path:
    """``path`` replaced by its gzip when larger than ``above_bytes``."""
    if path.stat().st_size <= above_bytes:
        return path
    kept = path.with_name(f"{path.name}.gz")
    with path.open("rb") as raw, gzip.open(kept, "wb") as out:
        shutil.copyfileobj(raw, out)
    path.unlink()
    return kept


def keep_gzipped(path: Path, target: Path, above_bytes: int = 50_000) -> Path:
    """``path`` copied into the folder ``target``, gzipped when larger than ``above_bytes``."""
    target.mkdir(parents=True, exist_ok=True)
    return gzipped(Path(shutil.copy(path, target / path.name)), above_bytes)


# the folder each stand-in agent ran fio in, inside its guest's temporary folder under the
# testbed's state (already <testbed>): a path of one run, kept as <agent-dir>
AGENT_DIR = re.compile(r"<testbed>/guests/[0-9a-f-]+/tmp/volperf-agent\.[A-Za-z0-9]+")


def keep_heat_campaign(campaign: Path, kept: Path, testbed: Path) -> None:
    """A Heat campaign copied to ``kept`` without the VMs' per-second fio logs (tens of MB
    at 40 VMs), Heat's events gzipped (0.5 MB a stack); in what Heat and the VMs' fio
    said (raw/heat/), the paths of this checkout, of this run's temporary testbed and of
    each agent's folder kept as <checkout>, <testbed> and <agent-dir>, the only change."""
    shutil.rmtree(kept, ignore_errors=True)
    shutil.copytree(campaign, kept, ignore=shutil.ignore_patterns("*.log", ".lock", "created.json"))
    for said in kept.glob("steps/*/raw/heat/*/*.json"):
        text = said.read_text().replace(str(ROOT), "<checkout>").replace(str(testbed), "<testbed>")
        said.write_text(AGENT_DIR.sub("<agent-dir>", text))
    for events in kept.glob("steps/*/raw/heat/*/events.json"):
        gzipped(events)


def keep_campaign(campaign: Path, kept: Path, testbed: Path) -> None:
    """A campaign as run copied to ``kept``, its lock and notes of what it made left out;
    in every file of text, the paths of the run's campaign folder, its testbed and this
    checkout written <campaign>, <testbed> and <checkout>, the only change."""
    ignored = shutil.ignore_patterns(".lock", "created.json")
    shutil.copytree(campaign, kept, ignore=ignored)
    for path in kept.rglob("*"):
        if not path.is_file():
            continue
        try:
            text = path.read_text()
        except UnicodeDecodeError:
            continue  # a plot's binary
        said = text.replace(str(campaign), "<campaign>").replace(str(testbed), "<testbed>")
        said = said.replace(str(ROOT), "<checkout>")
        if said != text:
            path.write_text(said)


def write_figures(path: Path, figures: dict[str, Any]) -> None:
    """A figure file of the Scale page, with the stamp of the code that measured it."""
    stamped = {**figures, STAMP_KEY: current_stamp(ROOT).to_json()}
    path.write_text(json.dumps(stamped, indent=2) + "\n")
