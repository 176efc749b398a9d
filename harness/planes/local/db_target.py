"""Local database target: sysbench fileio on files in the directory under test, and
sysbench OLTP, pgbench and io-pause against volperf's own MariaDB and PostgreSQL servers
whose data lives there, one server per consumer (the multi-tenant model: N databases,
one client each).

Servers start when a step first needs them and keep running between steps, their data
loaded once per dataset; they are stopped and their data removed when the campaign
ends, also after a failure or Ctrl-C. Everything is recorded in created.json before it
is made, so `volperf cleanup` finds it after a crash.
"""

from __future__ import annotations

import os
import shutil
import signal
import stat
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from harness.core.plan import ConsumerPlan, Step
from harness.core.redact import redact_text
from harness.core.spec import (
    CampaignSpec,
    FileioWorkload,
    IoPauseWorkload,
    OltpWorkload,
    PgbenchWorkload,
)
from harness.core.store import CampaignStore, atomic_write_json
from harness.core.workloads.registry import family_of
from harness.host.databases.mariadb import MariaDBServer
from harness.host.databases.memory import DatabaseMemory, database_memory, host_page_cache
from harness.host.databases.postgresql import PostgreSQLServer
from harness.host.databases.server import SYSBENCH_DATABASE, DatabaseServer, ServerError
from harness.host.hoststats import device_for_path
from harness.host.machine import directory_bytes, memory_kib, tool_version
from harness.host.process import (
    Command,
    ProcessResult,
    error_lines,
    log_tail,
    run_processes,
    what_it_said,
)
from harness.host.sampler import HostSampler
from harness.planes.base import StepOutcome, TargetError, Tick, require_space
from harness.planes.local.fio_target import describe_directory
from harness.planes.resumption import reports_now, wait_resumed
from harness.tools.db_clients import Connection, client_of

RUN_MARGIN_S = 120
LOAD_TIMEOUT_S = 3600
SERVERS: dict[str, type[DatabaseServer]] = {
    "mariadb": MariaDBServer,
    "postgresql": PostgreSQLServer,
}
DbWorkload = FileioWorkload | OltpWorkload | PgbenchWorkload | IoPauseWorkload


def memory_of(workload: DbWorkload, options: dict[str, str | int]) -> DatabaseMemory:
    """The memory a consumer's data can be served from on this host."""
    client = client_of(workload)
    cache = host_page_cache((memory_kib() or 0) * 1024)
    return database_memory(client.engine(workload), options, cache, client.cache_flags(workload))


@dataclass
class _StepRun:
    step: Step
    store: CampaignStore
    raw: Path
    stop: threading.Event
    tick: Tick

    def on_tick(self, elapsed: float) -> None:
        self.tick(elapsed, None)


class LocalDatabaseTarget:
    def __init__(self, spec: CampaignSpec):
        if spec.target.dir is None:
            raise TargetError("local target needs a directory: give --dir DIR (target.dir)")
        self.spec = spec
        self.path = Path(spec.target.dir)
        self.backend = spec.labels.get("backend", "local")
        self.servers: dict[str, DatabaseServer] = {}
        self.socket_root: Path | None = None

    @property
    def workloads(self) -> list[DbWorkload]:
        return [w for w in self.spec.workloads if family_of(w) == "database"]

    def engines(self) -> list[str]:
        return sorted({e for w in self.workloads if (e := client_of(w).engine(w)) is not None})

    def _programs(self) -> set[str]:
        return {client_of(w).program for w in self.workloads}

    # preparation
    def prepare(self, spec: CampaignSpec, store: CampaignStore) -> None:
        try:
            mode = os.stat(self.path).st_mode
        except FileNotFoundError:
            raise TargetError(f"{self.path}: no such directory") from None
        if not stat.S_ISDIR(mode):
            raise TargetError(
                f"{self.path}: database workloads need a directory on a file system "
                "(their files and servers' data go there)"
            )
        if not os.access(self.path, os.W_OK):
            raise TargetError(f"{self.path}: directory is not writable")
        if "sysbench" in self._programs() and shutil.which("sysbench") is None:
            raise TargetError("sysbench is not installed (tools/setup.sh installs it)")
        for engine in self.engines():
            try:
                SERVERS[engine].server_program()
                SERVERS[engine].check_reachable(self.path)
            except ServerError as exc:
                raise TargetError(str(exc)) from None
        self._check_space()
        if "backend" not in spec.labels:
            self.backend = describe_directory(self.path)

    def _check_space(self) -> None:
        files = [w for w in self.workloads if client_of(w).in_data_folder]
        if not files:
            return
        largest = max(client_of(w).data_bytes(w) for w in files)
        needed = largest * self.spec.space_count
        st = os.statvfs(self.path)
        available = st.f_bavail * st.f_frsize
        require_space(
            f"{self.path}: not enough free space for the fileio workloads",
            needed,
            f"largest file_total_size x {self.spec.space_count} consumers",
            available,
        )

    def tool_versions(self) -> dict[str, str]:
        versions = {}
        if "sysbench" in self._programs():
            versions["sysbench"] = tool_version(["sysbench", "--version"])
        for engine in self.engines():
            versions[engine] = tool_version([SERVERS[engine].server_program(), "--version"])
        return versions

    # servers
    def _socket_root(self, store: CampaignStore) -> Path:
        if self.socket_root is None:
            # short and private: a Unix socket path must stay under 108 bytes
            self.socket_root = Path(tempfile.mkdtemp(prefix="volperf-"))
            self.socket_root.chmod(0o755)  # the service users make their sockets inside
            store.record_created(str(self.socket_root), kind="directory", ours=True)
        return self.socket_root

    def _server(self, engine: str, consumer: str, store: CampaignStore) -> DatabaseServer:
        key = f"{engine}-{consumer}"
        server = self.servers.get(key)
        if server is not None and server.running:
            return server
        if server is not None:  # it died (a full disk, a kill): start it again below
            store.forget_created(f"process:{server.pid}")
        settings = getattr(self.spec.databases, engine)
        datadir = self.path / f"volperf-{self.spec.name}-{key}"
        server = SERVERS[engine](
            consumer,
            datadir,
            self._socket_root(store) / key,
            dict(settings.options),
            settings.start_timeout,
        )
        if str(datadir) not in store.created():
            if datadir.exists():
                raise TargetError(f"{datadir} exists and volperf did not create it")
            store.record_created(str(datadir), kind="directory", ours=True)
        store.record_created(str(server.log), kind="file", ours=True)
        server.initialize()
        self.servers[key] = server
        self._start(server, store)
        server.create_databases()
        return server

    def _start(self, server: DatabaseServer, store: CampaignStore) -> float:
        try:
            seconds = server.start()
        finally:
            if server.pid is not None:
                store.record_created(
                    f"process:{server.pid}",
                    kind="process",
                    pid=server.pid,
                    marker=str(server.datadir),
                )
        return seconds

    def _kill(self, server: DatabaseServer, store: CampaignStore) -> None:
        pid = server.pid
        server.kill()
        store.forget_created(f"process:{pid}")

    def stop_servers(self, store: CampaignStore) -> None:
        for key in list(self.servers):
            server = self.servers.pop(key)
            pid = server.pid
            server.stop()
            store.forget_created(f"process:{pid}")

    # one step
    def run_step(
        self, step: Step, store: CampaignStore, stop: threading.Event, tick: Tick
    ) -> StepOutcome:
        """Per consumer a server of its own (its data in the directory) or, for fileio, a
        folder of files; the data loaded once; then the clients run at once (or the
        servers killed, for io-pause); the servers' logs kept in raw/."""
        client = client_of(step.workload)
        engine = client.engine(step.workload)
        options = dict(getattr(self.spec.databases, engine).options) if engine else {}
        memory = memory_of(step.workload, options)
        workload = client.sized(step.workload, memory.bytes)
        run = _StepRun(step, store, store.raw_dir(step.id), stop, tick)
        servers: list[DatabaseServer] = []
        offsets: dict[str, int] = {}
        try:
            if engine is None:
                places = [self._fileio_dir(c, store) for c in step.consumers]
            else:
                servers += [self._server(engine, c.name, store) for c in step.consumers]
                offsets = {s.name: _size(s.log) for s in servers}
                places = [s.datadir for s in servers]
            failure = self._load(run, workload, places, servers)
            if failure is not None:
                return failure
            _record_datasets(run, workload, places, servers, memory)
            with HostSampler(run.raw / "host.jsonl", device_for_path(self.path)):
                if workload.endless:  # io-pause: the servers killed under the clients
                    return self._io_pause(run, workload, servers)
                return self._run_clients(run, workload, places, servers)
        except ServerError as exc:
            return StepOutcome("failed", str(exc))
        finally:
            for server in servers:
                _copy_from(
                    server.log, offsets.get(server.name, 0), run.raw / f"{server.name}.server.log"
                )

    def _run_clients(
        self,
        run: _StepRun,
        workload: DbWorkload,
        places: list[Path],
        servers: list[DatabaseServer],
    ) -> StepOutcome:
        """One client per consumer at once, for the workload's runtime."""
        commands = [
            self._client_command(run, workload, consumer, place, servers)
            for consumer, place in zip(run.step.consumers, places, strict=True)
        ]
        results = run_processes(
            commands, workload.runtime + RUN_MARGIN_S, run.stop, run.on_tick, signal.SIGTERM
        )
        atomic_write_json(run.raw / "process.json", by_consumer(commands, results))
        outcome = step_outcome(commands, results, "run")
        if outcome.state == "failed":
            outcome.error += _dead_servers(servers)
        return outcome

    def _client_command(
        self,
        run: _StepRun,
        workload: DbWorkload,
        consumer: ConsumerPlan,
        place: Path,
        servers: list[DatabaseServer],
    ) -> Command:
        client = client_of(workload)
        out, err = run.raw / f"{consumer.name}.out", run.raw / f"{consumer.name}.err"
        argv = client.run(workload, _server_at(place, servers), run.step.threads or 1)
        return Command(argv, out, err, cwd=place if client.in_data_folder else None)

    def _fileio_dir(self, consumer: ConsumerPlan, store: CampaignStore) -> Path:
        directory = self.path / f"volperf-{self.spec.name}-fileio-{consumer.name}"
        if str(directory) not in store.created():
            if directory.exists():
                raise TargetError(f"{directory} exists and volperf did not create it")
            store.record_created(str(directory), kind="directory", ours=True)
        directory.mkdir(exist_ok=True)
        return directory

    def _load(
        self,
        run: _StepRun,
        workload: DbWorkload,
        places: list[Path],
        servers: list[DatabaseServer],
    ) -> StepOutcome | None:
        """Load every consumer's data that is missing or of another size, all at once."""
        name, dataset = client_of(workload).dataset(workload)
        created = run.store.created()
        commands, loaded = [], []
        for consumer, place in zip(run.step.consumers, places, strict=True):
            if created.get(str(place), {}).get("datasets", {}).get(name) == dataset:
                continue
            out = run.raw / f"{consumer.name}.load.out"
            err = run.raw / f"{consumer.name}.load.err"
            argv = self._load_argv(workload, place, servers)
            cwd = place if client_of(workload).in_data_folder else None
            commands.append(Command(argv, out, err, cwd))
            loaded.append(place)
        if not commands:
            return None
        results = run_processes(commands, LOAD_TIMEOUT_S, run.stop, run.on_tick, signal.SIGTERM)
        atomic_write_json(run.raw / "load.json", by_consumer(commands, results))
        # sysbench's prepare can exit 0 after a thread died with FATAL: trust its words
        failure = step_outcome(commands, results, "load", fatal_fails=True)
        if failure.state != "done":
            failure.error += _dead_servers(servers)
            return failure
        for place in loaded:
            datasets = run.store.created().get(str(place), {}).get("datasets", {})
            run.store.record_created(str(place), datasets={**datasets, name: dataset})
        return None

    def _load_argv(
        self, workload: DbWorkload, place: Path, servers: list[DatabaseServer]
    ) -> list[str]:
        # the servers made their databases when they started (create_databases)
        load = client_of(workload).load(workload, _server_at(place, servers), os.cpu_count() or 1)
        return _after_cleanup(load.argv) if load.cleanup_first else load.argv

    # io-pause
    def _io_pause(
        self, run: _StepRun, workload: IoPauseWorkload, servers: list[DatabaseServer]
    ) -> StepOutcome:
        """sysbench runs against every server; every ``before``+``after`` seconds all
        servers are SIGKILLed at once and restarted on the same data."""
        threads = run.step.threads or 1
        commands = []
        for consumer, server in zip(run.step.consumers, servers, strict=True):
            argv = client_of(workload).run(workload, _connection(server), threads)
            env = {
                **os.environ,
                "VOLPERF_SYSBENCH_TEST": f"oltp_{workload.test}",
                "VOLPERF_RECONNECT_S": str(workload.recovery_timeout),
            }
            out, err = run.raw / f"{consumer.name}.out", run.raw / f"{consumer.name}.err"
            commands.append(Command(argv, out, err, env=env))
        longest = workload.kills * (workload.before + workload.recovery_timeout + workload.after)
        clients_done = threading.Event()
        results: list[ProcessResult] = []

        def clients() -> None:
            results.extend(
                run_processes(commands, longest + RUN_MARGIN_S, clients_done, None, signal.SIGTERM)
            )

        client_thread = threading.Thread(target=clients, name="io-pause-clients")
        client_thread.start()
        kills: list[dict[str, Any]] = []
        error = ""
        started = time.time()
        outs = {c.name: run.raw / f"{c.name}.out" for c in run.step.consumers}
        try:
            for cycle in range(1, workload.kills + 1):
                if not _wait(run, workload.before, started):
                    break
                deadline = time.monotonic() + workload.recovery_timeout
                error = self._kill_and_restart(run, workload, servers, cycle, kills)
                if error:
                    break
                before = reports_now(outs)  # the servers back (wait_resumed says why)
                wait_resumed(outs, before, deadline, lambda s: _wait(run, s, started))
                _wait(run, workload.after, started)
        finally:
            clients_done.set()
            client_thread.join()
            atomic_write_json(run.raw / "kills.json", kills)
            atomic_write_json(run.raw / "process.json", by_consumer(commands, results))
        if run.stop.is_set():
            return StepOutcome("interrupted", "stopped on request during the io-pause cycles")
        if error:
            return StepOutcome("failed", error)
        crashed = [
            (c, r)
            for c, r in zip(commands, results, strict=True)
            if r.returncode not in (0, -signal.SIGTERM)
        ]
        if crashed:
            return StepOutcome("failed", "sysbench ended early: " + quote_failures(crashed))
        return StepOutcome("done", notes=[f"{len(servers)} servers killed {workload.kills} times"])

    def _kill_and_restart(
        self,
        run: _StepRun,
        workload: IoPauseWorkload,
        servers: list[DatabaseServer],
        cycle: int,
        kills: list[dict[str, Any]],
    ) -> str:
        killed_at = time.time()
        for server in servers:
            self._kill(server, run.store)
        time.sleep(workload.restart_delay)

        def restart(server: DatabaseServer) -> dict[str, Any]:
            record: dict[str, Any] = {"consumer": server.name, "cycle": cycle}
            record["killed_at"] = killed_at
            try:
                self._start(server, run.store)
                record["ready_at"] = time.time()
            except ServerError as exc:
                record["ready_at"], record["error"] = None, str(exc)
            return record

        with ThreadPoolExecutor(max_workers=min(16, len(servers))) as pool:
            records = list(pool.map(restart, servers))
        kills.extend(records)
        errors = [r["error"] for r in records if r.get("error")]
        return f"a killed server did not come back (cycle {cycle}): {errors[0]}" if errors else ""

    def cleanup(self, store: CampaignStore) -> list[str]:
        self.stop_servers(store)
        return []


def dataset_entry(
    workload: DbWorkload,
    data: int | None,
    error: str,
    datadir: int | None,
    memory: DatabaseMemory,
) -> dict[str, Any]:
    """One consumer's line of raw/dataset.json (both targets write it; records read it):
    its data on disk (or why not), its server's whole data directory, the memory that
    can hold the data, and what sized it."""
    size = {
        k: getattr(workload, k) for k in ("tables", "table_size", "scale") if hasattr(workload, k)
    }
    return {
        "data_bytes": data,
        "data_error": error,
        "datadir_bytes": datadir,
        "memory_bytes": memory.bytes,
        "memory": memory.what,
        "dataset": getattr(workload, "dataset", None),
        **size,
    }


def _record_datasets(
    run: _StepRun,
    workload: DbWorkload,
    places: list[Path],
    servers: list[DatabaseServer],
    memory: DatabaseMemory,
) -> None:
    """Each consumer's data as loaded, on disk, beside the memory that can hold it:
    raw/dataset.json. The data is the benchmark's database (sysbench fileio: its files);
    the server's whole data directory, logs included, is there too."""
    database = client_of(workload).database or SYSBENCH_DATABASE  # fileio: no server
    datasets = {}
    for consumer, place in zip(run.step.consumers, places, strict=True):
        server = next((s for s in servers if s.datadir == place), None)
        on_disk = directory_bytes(place)
        data: int | None = on_disk  # fileio: its files are the data
        error = ""
        if server is not None:
            try:
                data = server.database_bytes(database)
            except ServerError as exc:  # the step still runs: only this figure is missing
                data, error = None, str(exc)
        datasets[consumer.name] = dataset_entry(workload, data, error, on_disk, memory)
    atomic_write_json(run.raw / "dataset.json", datasets)


def _connection(server: DatabaseServer) -> Connection:
    assert isinstance(server, MariaDBServer | PostgreSQLServer)
    return server


def _server_at(place: Path, servers: list[DatabaseServer]) -> Connection | None:
    """The consumer's server, whose data is at ``place`` (fileio: none, its files)."""
    server = next((s for s in servers if s.datadir == place), None)
    return _connection(server) if server is not None else None


def _after_cleanup(prepare: list[str]) -> list[str]:
    """sysbench cannot prepare over an older dataset: clean it up first (same options)."""
    script = '"$@" cleanup >/dev/null 2>&1; exec "$@" prepare'
    return ["sh", "-c", script, "sh", *prepare[:-1]]


def _wait(run: _StepRun, seconds: float, started: float) -> bool:
    deadline = time.time() + seconds
    while time.time() < deadline:
        if run.stop.wait(0.25):
            return False
        run.on_tick(time.time() - started)
    return True


def by_consumer(commands: list[Command], results: list[ProcessResult]) -> dict[str, Any]:
    return {c.stdout.name.split(".")[0]: asdict(r) for c, r in zip(commands, results, strict=True)}


def _dead_servers(servers: list[DatabaseServer]) -> str:
    """A server that died under the load says why in its log (a full disk, say)."""
    dead = [s for s in servers if not s.running]
    return "".join(
        f"; {s.engine} {s.name} is no longer running, its log says: {log_tail(s.log)}" for s in dead
    )


def step_outcome(
    commands: list[Command], results: list[ProcessResult], what: str, fatal_fails: bool = False
) -> StepOutcome:
    if any(r.interrupted for r in results):
        return StepOutcome("interrupted", f"stopped on request during the {what}")
    if any(r.timed_out for r in results):
        return StepOutcome("failed", f"the {what} did not finish within its timeout")
    failed = [
        (c, r)
        for c, r in zip(commands, results, strict=True)
        if r.returncode != 0 or (fatal_fails and error_lines(c.stdout, c.stderr))
    ]
    if failed:
        return StepOutcome("failed", f"{what} failed: " + quote_failures(failed))
    return StepOutcome("done")


def quote_failures(failed: list[tuple[Command, ProcessResult]]) -> str:
    """Each failed client with what it said, so the step's error quotes the tool."""
    parts = [
        f"{c.stdout.name.split('.')[0]} (exit {r.returncode}): {what_it_said(c.stdout, c.stderr)}"
        for c, r in failed
    ]
    return redact_text("; ".join(parts))


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def _copy_from(source: Path, offset: int, target: Path) -> None:
    """The part of a server's log written during the step goes into the step's raw/."""
    try:
        with source.open("rb") as log:
            log.seek(offset)
            target.write_bytes(log.read())
    except OSError:
        pass
