"""How long volperf's command line takes to start, beside the floors it cannot go under:
the interpreter itself and `fio --version`. Each command runs ROUNDS times, alternating,
and the medians go side by side into the benchmark's extra_info (target: `volperf --help`
at most 0.2 s). And how long `volperf run local --profile quick` takes from its launch to
its first step's start (the step's own status.json: `started`), ROUNDS launches, each
interrupted once the step runs (target: at most 0.5 s)."""

from __future__ import annotations

import json
import signal
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


def _first_step_started(work: Path, index: int) -> float:
    """Seconds from the launch of a quick local campaign to its first step's start, the
    run then interrupted (SIGINT: volperf stops its fio and notes the step interrupted)."""
    results = work / "results"
    argv = [*VOLPERF, "run", "local", "--dir", str(work / "dir"), "--results", str(results)]
    (work / "dir").mkdir(parents=True)
    launched = time.time()
    process = subprocess.Popen(
        [*argv, "--name", f"start-{index}"], stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    started = None
    deadline = time.monotonic() + 60
    while started is None and time.monotonic() < deadline and process.poll() is None:
        for status in results.glob(f"start-{index}/steps/*/status.json"):
            try:
                started = json.loads(status.read_text()).get("started")
            except ValueError:  # being written
                continue
        time.sleep(0.01)
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=60)
    assert started is not None, err.decode()[-2000:]
    return started - launched


def test_first_step_of_a_quick_local_run_starts_within_half_a_second(benchmark, tmp_path):
    seconds: list[float] = []

    def rounds() -> None:
        for index in range(ROUNDS):
            seconds.append(_first_step_started(tmp_path / str(index), index))

    benchmark.pedantic(rounds, rounds=1, iterations=1)
    median = statistics.median(seconds)
    benchmark.extra_info["first_step_started_s"] = [round(s, 3) for s in seconds]
    benchmark.extra_info["median_s"] = round(median, 3)
    print(f"volperf run local --profile quick: first step started after {median:.3f} s")
    assert median <= 0.5, seconds
