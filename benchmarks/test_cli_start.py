"""How long volperf's command line takes to start, beside the floors it cannot go under:
the interpreter itself and `fio --version`. Each command runs ROUNDS times, alternating,
and the medians go side by side into the benchmark's extra_info (target: `volperf --help`
at most 0.2 s)."""

from __future__ import annotations

import statistics
import subprocess
import sys
import time
from pathlib import Path

ROUNDS = 5
VOLPERF = [sys.executable, "-m", "harness.cli"]


def _commands(state: Path) -> dict[str, list[str]]:
    return {
        "python -c pass": [sys.executable, "-c", "pass"],
        "fio --version": ["fio", "--version"],
        "volperf --help": [*VOLPERF, "--help"],
        "volperf profiles": [*VOLPERF, "profiles"],
        "volperf testbed status k8s": [
            *VOLPERF,
            *("testbed", "status", "k8s", "--json", "--state", str(state)),
        ],
    }


def _seconds(argv: list[str], exits: int) -> float:
    started = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, text=True)
    seconds = time.perf_counter() - started
    assert done.returncode == exits, f"{argv}: {done.stderr[-1000:]}"
    return seconds


def test_cli_start_beside_python_and_fio(benchmark, tmp_path):
    commands = _commands(tmp_path / "no-testbed")
    times: dict[str, list[float]] = {name: [] for name in commands}

    def rounds() -> None:
        for _ in range(ROUNDS):
            for name, argv in commands.items():
                # status exits 1: there is no testbed in that state directory
                times[name].append(_seconds(argv, 1 if "status" in name else 0))

    benchmark.pedantic(rounds, rounds=1, iterations=1)
    medians = {name: statistics.median(values) for name, values in times.items()}
    benchmark.extra_info["median_s"] = {name: round(s, 3) for name, s in medians.items()}
    for name, seconds in medians.items():
        print(f"{name:<28} {seconds:.3f} s")
    assert medians["volperf --help"] <= 0.2, medians
