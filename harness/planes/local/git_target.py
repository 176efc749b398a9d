"""Local git target: the git workload (harness/tools/git) in the directory under test.

A folder of the campaign's own there, ``volperf-<campaign>-git`` (noted in created.json
before it is made, removed at the campaign's end or by `volperf cleanup`), holds the
generated repository, made once per repository shape (untimed), and one work folder per
consumer. A step runs every consumer's workload.sh at once, each cloning from the
repository into its own folder; their outputs go to raw/git/, untouched, with the
repository's line (repo.out) and the host's load sampled once a second."""

from __future__ import annotations

import shutil
import signal
import tempfile
import threading
from pathlib import Path

from harness.core.plan import Step
from harness.core.spec import CampaignSpec, GitWorkload
from harness.core.store import CampaignStore, atomic_write_json
from harness.core.units import size_bytes
from harness.host.hoststats import device_for_path
from harness.host.machine import tool_version
from harness.host.process import Command, run_processes, what_it_said
from harness.host.sampler import HostSampler
from harness.planes.base import StepOutcome, TargetError, Tick, require_space
from harness.planes.local.db_target import by_consumer
from harness.planes.local.fio_target import describe_directory
from harness.records.git_step import GIT_DIR, REPO_OUT, read_runs
from harness.tools.git import command

GENERATE_TIMEOUT_S = 1800


class LocalGitTarget:
    def __init__(self, spec: CampaignSpec):
        assert spec.target.dir is not None
        self.spec = spec
        self.path = Path(spec.target.dir)
        self.folder = self.path / f"volperf-{spec.name}-git"
        self.workloads = [w for w in spec.workloads if isinstance(w, GitWorkload)]
        self.backend = spec.labels.get("backend", "local")

    def prepare(self, spec: CampaignSpec, store: CampaignStore) -> None:
        for program in ("git", "tar"):
            if shutil.which(program) is None:
                raise TargetError(f"the git workload needs {program} (tools/debian-packages.txt)")
        if self.folder.exists() and str(self.folder) not in store.created():
            raise TargetError(f"{self.folder} exists and volperf did not create it")
        if "backend" not in spec.labels:
            self.backend = describe_directory(self.path)
        st = shutil.disk_usage(self.path)
        # a consumer holds its clone, its tar and its untarred copy at once
        needed = max(command.tree_bytes(w) for w in self.workloads) * (1 + 3 * spec.space_count)
        require_space(
            f"{self.path}: not enough free space for the git workloads",
            needed,
            f"the largest repository, and its clone, tar and copy x {spec.space_count} consumers",
            st.free,
        )

    def tool_versions(self) -> dict[str, str]:
        return {"git": tool_version(["git", "--version"])}

    def run_step(
        self, step: Step, store: CampaignStore, stop: threading.Event, tick: Tick
    ) -> StepOutcome:
        workload = step.workload
        assert isinstance(workload, GitWorkload)
        raw = store.raw_dir(step.id) / GIT_DIR
        shutil.rmtree(raw, ignore_errors=True)
        raw.mkdir(parents=True)
        if str(self.folder) not in store.created():
            store.record_created(str(self.folder), kind="directory", ours=True)
        self.folder.mkdir(exist_ok=True)
        with tempfile.TemporaryDirectory(prefix="volperf-git-") as scripts:
            for name, text in command.scripts().items():
                (Path(scripts) / name).write_text(text, encoding="utf-8")
            origin = self._origin(workload, Path(scripts), raw, stop)
            if isinstance(origin, StepOutcome):
                return origin
            commands = [
                Command(
                    command.run(scripts, workload, origin, self.folder / c.name),
                    raw / f"{c.name}.out",
                    raw / f"{c.name}.err",
                )
                for c in step.consumers
            ]
            timeout = command.timeout_s(workload)
            with HostSampler(store.raw_dir(step.id) / "host.jsonl", device_for_path(self.path)):
                results = run_processes(
                    commands, timeout, stop, lambda t: tick(t, None), signal.SIGTERM
                )
        atomic_write_json(raw / "process.json", by_consumer(commands, results))
        if any(r.interrupted for r in results):
            return StepOutcome("interrupted", "stopped on request during the git workload")
        if any(r.timed_out for r in results):
            return StepOutcome("failed", f"the git workload did not finish within {timeout:.0f} s")
        failed = [
            f"{name}: {'; '.join(run.errors) or what_it_said(raw / f'{name}.err')}"
            for name, run in read_runs(raw).items()
            if run.failed or not run.finished
        ]
        if failed:
            return StepOutcome("failed", "git phases failed: " + " | ".join(failed))
        return StepOutcome("done")

    def _origin(
        self, workload: GitWorkload, scripts: Path, raw: Path, stop: threading.Event
    ) -> Path | StepOutcome:
        """The generated repository of the workload's shape, made on first use; its line
        (files, commits, packed size) in raw/git/repo.out."""
        repo = workload.repo
        origin = (
            self.folder / f"origin-{repo.files}-{size_bytes(repo.file_size)}-{repo.commits}.git"
        )
        said = origin / "volperf-repo.out"
        if not said.exists():
            out, err = raw / REPO_OUT, raw / "repo.err"
            argv = command.generate(scripts, workload, origin)
            (result,) = run_processes([Command(argv, out, err)], GENERATE_TIMEOUT_S, stop)
            if result.returncode != 0:
                return StepOutcome(
                    "interrupted" if result.interrupted else "failed",
                    f"the repository could not be generated: {what_it_said(out, err)}",
                )
            shutil.copyfile(out, said)
        shutil.copyfile(said, raw / REPO_OUT)
        return origin

    def cleanup(self, store: CampaignStore) -> list[str]:
        return []  # its folder is noted in created.json: the campaign removes it
