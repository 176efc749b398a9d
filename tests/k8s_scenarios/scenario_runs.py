"""k8s_scenarios run as a user runs them (`pytest k8s_scenarios ...`) on the suite's k8s
testbed, at small scale on both StorageClasses, in two parts (tests/conftest.py):
tests/k8s_scenarios/test_scenarios.py checks what they made.

All scenarios but fio's check their pods' own figures and cgroup counters: they start
once the testbed is up and run in the background, side by side in pytest runs of their
own on the same cluster (each writes its scenarios' pages and comparisons), as evenly as
their times on this machine allow (seconds for both classes, warm: failover 84, pgbench
49; build 72, sysbench 44, fileio 26; provision 56, broker 38, git 37, redis 33), while
the k8s group's tests that leave the cluster as they found it run too.

The fio scenario's disk figures are set against the node disk's own counters
(test_node_load_of_a_fio_step_…), a disk the whole suite writes: it runs last, alone in
its group, once the group's other tests are done (and, in a suite run, the spread
tests: at the start of the run, run beside them, the disk did 10 % more than fio)."""

from __future__ import annotations

import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.harness.helpers import doc_source_copy, k8s_scenarios_argv
from tests.suite_groups import quiet_shared

REPO = Path(__file__).parents[2]
CLASSES = ("local-path", "local-static")
ALONE = ("test_fio_pvc.py",)
SIDE_BY_SIDE = (
    ("test_failover.py", "test_pgbench.py", "test_fio_capacity.py"),
    ("test_build.py", "test_mysql_sysbench.py", "test_sysbench_fileio.py"),
    ("test_pvc_provisioning.py", "test_broker.py", "test_git.py", "test_redis.py"),
)
TIMEOUT_S = 2400


def scenario_argv(k8s_testbed: Any, work: Path, files: tuple[str, ...], index: int) -> list[str]:
    argv = k8s_scenarios_argv(
        k8s_testbed,
        work,
        *(str(REPO / "k8s_scenarios" / name) for name in files),
        "--volperf-campaign",
        "ci",
        "--benchmark-disable-gc",
        basetemp=work / f"basetemp-{index}",
    )
    for storage_class in CLASSES:
        argv += ["--volperf-storage-class", storage_class]
    return argv


@dataclass
class ScenarioRuns:
    """The runs of every scenario but migration (it needs two nodes and a class that
    follows the pods: tests/harness/planes/k8s/test_migration.py runs it): those side by
    side go on once ``start`` returns, holding the suite's quiet lock shared until they
    have ended, as a test does (tests/suite_groups.py: no quiet test runs beside them);
    fio's runs in a test's setup, later."""

    k8s_testbed: Any
    work: Path
    started: float = 0.0
    runs: list[subprocess.CompletedProcess[str]] = field(default_factory=list)
    going: list[subprocess.Popen[str]] = field(default_factory=list)
    quiet: Any = None  # the quiet lock's file while they run

    def start(self) -> None:
        """Starts the side-by-side runs."""
        doc_source_copy(self.work)
        self.quiet = quiet_shared()
        self.started = time.monotonic()
        self.going = [
            subprocess.Popen(
                scenario_argv(self.k8s_testbed, self.work, files, index),
                cwd=self.work,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            for index, files in enumerate(SIDE_BY_SIDE, start=1)
        ]

    def wait(self) -> tuple[Path, subprocess.CompletedProcess[str]]:
        """The work folder and what the runs so far printed, one after the other, with
        the first failure's exit status; once the side-by-side runs have ended."""
        for process in self.going:
            stdout, stderr = process.communicate(
                timeout=max(1, self.started + TIMEOUT_S - time.monotonic())
            )
            self.runs.append(
                subprocess.CompletedProcess(process.args, process.returncode, stdout, stderr)
            )
        if self.going:
            print(f"k8s_scenarios side by side: {time.monotonic() - self.started:.0f} s")
        self.going = []
        self._release()
        return self.work, self._printed()

    def run_alone(self) -> tuple[Path, subprocess.CompletedProcess[str]]:
        """Runs the fio scenario (the side-by-side runs ended first), then returns the
        work folder and what every run printed."""
        self.wait()
        if len(self.runs) == len(SIDE_BY_SIDE):
            started = time.monotonic()
            self.runs.append(
                subprocess.run(
                    scenario_argv(self.k8s_testbed, self.work, ALONE, 0),
                    cwd=self.work,
                    capture_output=True,
                    text=True,
                    timeout=TIMEOUT_S,
                )
            )
            print(f"k8s_scenarios' fio alone: {time.monotonic() - started:.0f} s")
        return self.work, self._printed()

    def _printed(self) -> subprocess.CompletedProcess[str]:
        runs = self.runs
        return subprocess.CompletedProcess(
            [run.args for run in runs],
            next((run.returncode for run in runs if run.returncode), 0),
            "\n".join(run.stdout for run in runs),
            "\n".join(run.stderr for run in runs),
        )

    def stop(self) -> None:
        """What still runs killed (the suite was interrupted, or a test failed before
        waiting); its pytest's own cleanup does not run, the testbed's purge removes
        the rest."""
        for process in self.going:
            if process.poll() is None:
                process.kill()
                process.communicate()
        self.going = []
        self._release()

    def _release(self) -> None:
        if self.quiet is not None:
            self.quiet.close()  # the lock goes with the file
            self.quiet = None
