"""Local target of the application workloads that time their own phases (git, build,
redis, broker: harness/tools/apps) in the directory under test.

A folder of the campaign's own there, ``volperf-<campaign>-apps`` (noted in created.json
before it is made, removed at the campaign's end or by `volperf cleanup`), holds each
generated source (a repository, a tarred tree), made once per shape (untimed), and one
work folder per consumer. A step runs every consumer's script at once; their outputs go
to raw/app/, untouched, with the source's line (source.out) and the host's load sampled
once a second. redis runs a redis-server of each consumer's own in its work folder, on a
Unix socket in the consumer's temporary folder, and volperf's YCSB client
(harness/tools/ycsb, built once per machine); broker a nats-server of each consumer's own
with its stream in its work folder, on a loopback port, and `nats bench`
(harness/tools/nats, built once per machine)."""

from __future__ import annotations

import shutil
import signal
import sys
import tempfile
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from harness.core.plan import Step
from harness.core.spec import AppWorkload, CampaignSpec
from harness.core.store import CampaignStore, atomic_write_json
from harness.core.workloads.registry import TOOLS, family_of, tool
from harness.host.hoststats import device_for_path
from harness.host.machine import tool_version
from harness.host.process import Command, run_processes, what_it_said
from harness.host.sampler import HostSampler
from harness.planes.base import StepOutcome, TargetError, Tick, require_space
from harness.planes.local.db_target import by_consumer
from harness.planes.local.fio_target import describe_directory
from harness.records.app_step import APP_DIR, SOURCE_OUT, read_runs
from harness.tools.apps import command
from harness.tools.gobuilt import GoProgramError
from harness.tools.nats.build import VERSIONS as NATS_VERSIONS
from harness.tools.nats.build import ensure_nats
from harness.tools.ycsb.build import GO_YCSB, ensure_ycsb

GENERATE_TIMEOUT_S = 1800


@dataclass(frozen=True)
class BuiltClient:
    """A client volperf builds once per machine for a tool that runs it."""

    what: str  # in a build failure's message
    ensure: Callable[[Callable[[str], None]], Path]  # builds it if need be: its path
    name: str  # its name and version in the campaign's environment
    version: str


BUILT_CLIENTS = {
    "redis": BuiltClient("YCSB client", ensure_ycsb, "ycsb", f"volperf-ycsb ({GO_YCSB})"),
    "broker": BuiltClient("NATS", ensure_nats, "nats", NATS_VERSIONS),
}


class LocalAppTarget:
    def __init__(self, spec: CampaignSpec):
        assert spec.target.dir is not None
        self.spec = spec
        self.path = Path(spec.target.dir)
        self.folder = self.path / f"volperf-{spec.name}-apps"
        self.workloads = [w for w in spec.workloads if family_of(w) == "app"]
        self.backend = spec.labels.get("backend", "local")
        self.clients: dict[str, Path] = {}  # redis's YCSB, the broker's NATS, once built

    def prepare(self, spec: CampaignSpec, store: CampaignStore) -> None:
        for workload in self.workloads:
            for program in tool(workload.tool).programs:
                if shutil.which(program) is None:
                    raise TargetError(
                        f"workload {workload.name}: {workload.tool} needs {program} "
                        "(tools/debian-packages.txt)"
                    )
        for tag in sorted({w.tool for w in self.workloads} & set(BUILT_CLIENTS)):
            client = BUILT_CLIENTS[tag]
            try:
                self.clients[tag] = client.ensure(
                    lambda line: print(f"volperf: {line}", file=sys.stderr)
                )
            except GoProgramError as exc:
                raise TargetError(f"the {tag} workload's {client.what}: {exc}") from None
        if self.folder.exists() and str(self.folder) not in store.created():
            raise TargetError(f"{self.folder} exists and volperf did not create it")
        if "backend" not in spec.labels:
            self.backend = describe_directory(self.path)
        needed = max(
            command.tree_bytes(w) + command.peak_bytes(w) * spec.space_count for w in self.workloads
        )
        require_space(
            f"{self.path}: not enough free space for the application workloads",
            needed,
            f"the largest source and what a consumer holds at once x {spec.space_count} consumers",
            shutil.disk_usage(self.path).free,
        )

    def tool_versions(self) -> dict[str, str]:
        tools = {w.tool for w in self.workloads}
        versions = {  # in the registry's order
            name: tool_version(list(argv))
            for declared in TOOLS
            if declared.tag in tools
            for name, argv in declared.versions
        }
        versions.update({c.name: c.version for tag, c in BUILT_CLIENTS.items() if tag in tools})
        return versions

    def run_step(
        self, step: Step, store: CampaignStore, stop: threading.Event, tick: Tick
    ) -> StepOutcome:
        workload = step.workload
        assert family_of(workload) == "app"
        raw = store.raw_dir(step.id) / APP_DIR
        shutil.rmtree(raw, ignore_errors=True)
        raw.mkdir(parents=True)
        if str(self.folder) not in store.created():
            store.record_created(str(self.folder), kind="directory", ours=True)
        self.folder.mkdir(exist_ok=True)
        with tempfile.TemporaryDirectory(prefix="volperf-apps-") as scripts:
            for name, text in command.scripts().items():
                (Path(scripts) / name).write_text(text, encoding="utf-8")
            source = self._source(workload, Path(scripts), raw, stop)
            if isinstance(source, StepOutcome):
                return source
            commands = [
                Command(
                    command.run(
                        scripts,
                        workload,
                        source,
                        self.folder / c.name,
                        self.clients.get(workload.tool),
                    ),
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
            return StepOutcome("interrupted", f"stopped on request during the {workload.tool}")
        if any(r.timed_out for r in results):
            return StepOutcome(
                "failed", f"the {workload.tool} workload did not finish within {timeout:.0f} s"
            )
        failed = [
            f"{name}: {'; '.join(run.errors) or what_it_said(raw / f'{name}.err')}"
            for name, run in read_runs(raw).items()
            if run.failed_iterations()
        ]
        if failed:
            return StepOutcome("failed", f"{workload.tool} phases failed: " + " | ".join(failed))
        return StepOutcome("done")

    def _source(
        self, workload: AppWorkload, scripts: Path, raw: Path, stop: threading.Event
    ) -> Path | StepOutcome:
        """The workload's generated source, made on first use; its line (files, size …)
        in raw/app/source.out."""
        source = self.folder / command.source_key(workload)
        said = self.folder / f"{source.name}.out"
        if not said.exists():
            out, err = raw / SOURCE_OUT, raw / "source.err"
            argv = command.generate(scripts, workload, source)
            (result,) = run_processes([Command(argv, out, err)], GENERATE_TIMEOUT_S, stop)
            if result.returncode != 0:
                return StepOutcome(
                    "interrupted" if result.interrupted else "failed",
                    f"the {workload.tool} source could not be generated: {what_it_said(out, err)}",
                )
            shutil.copyfile(out, said)
        shutil.copyfile(said, raw / SOURCE_OUT)
        return source

    def cleanup(self, store: CampaignStore) -> list[str]:
        return []  # its folder is noted in created.json: the campaign removes it
