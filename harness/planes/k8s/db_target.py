"""Database workloads on a Kubernetes target (sysbench fileio and OLTP, pgbench,
io-pause, migration): each consumer of a step is one pod of a StatefulSet
(harness/planes/k8s/databases.py) with its own PVC of the class under test, its server in
one container and the client beside it (fileio: sysbench on its files in the one
container, in a folder of the PVC).

The StatefulSet of an engine and consumer count is made when a step first needs it and
kept for the next steps (the thread sweep), its data loaded once per dataset; a step of
another count or engine deletes it with its PVCs first. All of it lives in one namespace
of the campaign's (noted in created.json before it is made; the campaign's cleanup
deletes it when the campaign ends, also after a failure or Ctrl-C). Raw output keeps
the local database target's layout (load.json, process.json, kills.json,
<consumer>.out/.err) and its outcome helpers, so db.csv and events.csv come from the
same code and `volperf reparse` rebuilds them.

io-pause: each server pod gets a client pod of its own, connected to the server by the
pod's name; each cycle deletes every server pod at once (grace period 0, as a node loss
does), the StatefulSet makes the replacement on the same PVC, and volperf points the
client's name at the new pod's address once it is ready, and at the client's loopback
from just before the deletion until then (/etc/hosts: the testbed has no cluster DNS; a
headless Service's record would do this in a cluster). Events: server-recovery
(deletion to the new pod Ready), pod-replaced (deletion to the new pod Running) and
io-pause from the client's 1-second reports.

Storage or memory: before the clients run, each server's dataset on disk is measured in
its own container (raw/dataset.json, as the local target writes it) beside the memory
it may keep it in (its buffer pool; the page cache within the container's memory limit
``db_memory_limit``, or the node's memory without one); its container's own cgroup block
I/O counters are read just before and after the run (raw/<consumer>.blkio-before.out,
.blkio-after.out), so db.csv's step records what the device did for each server.
"""

from __future__ import annotations

import math
import shlex
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from functools import cached_property
from pathlib import Path
from typing import Any

from harness.core.plan import Step
from harness.core.redact import redact_text
from harness.core.secrets import new_password
from harness.core.spec import (
    CampaignSpec,
    FileioWorkload,
    IoPauseWorkload,
    K8sTarget,
    MigrationWorkload,
    OltpWorkload,
    PgbenchWorkload,
)
from harness.core.store import CampaignStore, atomic_write_json
from harness.core.units import size_bytes
from harness.host.databases.memory import DatabaseMemory, PageCache, database_memory
from harness.host.process import Command, ProcessResult, read_output
from harness.planes.base import StepOutcome, TargetError, Tick
from harness.planes.k8s import databases as objects
from harness.planes.k8s.cluster import (
    LABEL,
    NotOurs,
    absent,
    k8s_name,
    last_events,
    make_namespace,
    namespace_key,
    waiting_reason,
)
from harness.planes.k8s.node_failure import NodeFailure, NodeFailureError, home_node
from harness.planes.k8s.pod_waiting import WaitingWatch
from harness.planes.k8s.podexec import exec_in_pod
from harness.planes.local.db_target import (
    LOAD_TIMEOUT_S,
    RUN_MARGIN_S,
    by_consumer,
    dataset_entry,
    quote_failures,
    step_outcome,
)
from harness.planes.resumption import reports_now, wait_resumed
from harness.tools.blkio.command import counters_line
from harness.tools.db_clients import client_of
from harness.tools.sysbench import command as sysbench_command

DELETE_TIMEOUT_S = 300
POLL_S = 0.25
STOPPED = (0, 143, -15)  # exit statuses of a client volperf stopped with SIGTERM
NOWHERE = "127.0.0.1"  # a deleted server's name, until its replacement is ready
DbWorkload = FileioWorkload | OltpWorkload | PgbenchWorkload | IoPauseWorkload | MigrationWorkload
UnderLoad = IoPauseWorkload | MigrationWorkload
# the scheduler's words for a pod whose volume is bound to a node it may not run on
NODE_BOUND = "volume node affinity conflict"


class K8sDatabaseTarget:
    def __init__(self, spec: CampaignSpec, core: Any, apps: Any, kubeconfig: str):
        assert isinstance(spec.target, K8sTarget)
        self.spec = spec
        self.options: K8sTarget = spec.target
        self.core = core
        self.apps = apps
        self.kubeconfig = kubeconfig
        self.images = {
            "mariadb": self.options.mariadb_image,
            "postgresql": self.options.postgresql_image,
            "fileio": self.options.mariadb_image,  # it has sysbench
        }
        self.namespace = k8s_name(f"volperf-{spec.name}-db")
        self.labels = {LABEL: k8s_name(spec.name)}
        self.current: str | None = None  # the StatefulSet standing
        self.datasets: dict[str, Any] = {}  # its loaded dataset, by name

    # the namespace and the StatefulSet
    def _key(self) -> str:
        return namespace_key(self.kubeconfig, self.namespace)

    def _namespace(self, store: CampaignStore) -> None:
        if self._key() in store.created():
            return
        try:
            make_namespace(
                self.core, store, self.kubeconfig, self.namespace, self.spec.name, self.labels
            )
        except NotOurs as exc:  # every step would need it
            raise TargetError(str(exc)) from None
        password = new_password()
        self.core.create_namespaced_secret(
            self.namespace,
            {
                "metadata": {"name": objects.SECRET, "labels": self.labels},
                "stringData": {"password": password},
            },
        )
        lua = sysbench_command.reconnect_script().read_text()
        self.core.create_namespaced_config_map(
            self.namespace,
            {
                "metadata": {"name": objects.LUA_CONFIGMAP, "labels": self.labels},
                "data": {sysbench_command.RECONNECT_SCRIPT: lua},
            },
        )

    def _set_name(self, engine: str, count: int) -> str:
        return f"{engine}-c{count:03d}"

    def _ensure_set(
        self, step: Step, engine: str, workload: DbWorkload, home: str | None = None
    ) -> str:
        """``home``: a set made anew whose pods start on that node (a migration's)."""
        name = self._set_name(engine, step.concurrency) + ("-m" if home else "")
        if self.current == name and home is None:
            return name
        if self.current is not None:
            self._delete_set(self.current)
        request = f"{self._request_mib(workload)}Mi"
        self.apps.create_namespaced_stateful_set(
            self.namespace,
            objects.statefulset(
                name,
                engine,
                step.concurrency,
                self.images[engine],
                self.options.image_pull_policy,
                self.options.storage_class,
                request,
                self._options(engine),
                self.labels,
                self.options.db_memory_limit,
                home,
            ),
        )
        self.current, self.datasets = name, {}
        return name

    def _request_mib(self, workload: DbWorkload) -> int:
        """Room for the server's own files and the dataset, generously."""
        return 512 + math.ceil(client_of(workload).room_bytes(workload) / 2**20)

    def _options(self, engine: str) -> dict[str, str | int]:
        """The campaign's options of the engine's server (fileio has no server)."""
        if engine == "fileio":
            return {}
        return dict(getattr(self.spec.databases, engine).options)

    # memory
    def _memory(self, engine: str, workload: DbWorkload) -> DatabaseMemory:
        flags = client_of(workload).cache_flags(workload)
        server = None if engine == "fileio" else engine
        return database_memory(server, self._options(engine), self.page_cache, flags)

    @cached_property
    def page_cache(self) -> PageCache:
        """The page cache a server's reads can come from: its container's memory limit
        (the cache is charged to it), or without one its node's memory (the largest
        node's: the pods' nodes are not known before they are scheduled)."""
        limit = self.options.db_memory_limit
        if limit is not None:
            what = f"the page cache within the container's memory limit ({limit})"
            return PageCache(size_bytes(limit), what, holds_buffers=True)
        from kubernetes.utils import parse_quantity

        try:
            nodes = self.core.list_node().items
            largest = max(int(parse_quantity(n.status.capacity["memory"])) for n in nodes)
        except Exception as exc:  # a namespaced user may not read nodes
            reason = f"{type(exc).__name__}: {getattr(exc, 'reason', exc)}"
            return PageCache(0, f"no page cache counted (nodes unreadable: {reason})")
        what = f"the page cache of its node's {largest / 2**20:,.0f} MiB (no memory limit)"
        return PageCache(largest, what)

    def _delete_set(self, name: str) -> None:
        absent(
            self.apps.delete_namespaced_stateful_set,
            name,
            self.namespace,
            propagation_policy="Foreground",
        )
        deadline = time.monotonic() + DELETE_TIMEOUT_S
        while time.monotonic() < deadline and self._pods(name):
            time.sleep(1)
        self.core.delete_collection_namespaced_persistent_volume_claim(
            self.namespace, label_selector=f"volperf-set={name}"
        )
        self.current = None

    def _pods(self, name: str) -> list[Any]:
        pods = self.core.list_namespaced_pod(self.namespace, label_selector=f"volperf-set={name}")
        return sorted(pods.items, key=lambda p: int(p.metadata.name.rsplit("-", 1)[1]))

    def _wait_ready(
        self, name: str, count: int, stop: threading.Event, tick: Tick, timeout: float
    ) -> tuple[list[Any], str]:
        """The set's pods once all are Ready; or why not (a pod's name, state and events)."""
        started = time.monotonic()
        waiting = WaitingWatch()
        while True:
            pods = self._pods(name)
            ready = [p for p in pods if _ready(p) and p.metadata.deletion_timestamp is None]
            if len(ready) == count:
                return ready, ""
            tick(time.monotonic() - started, None)
            if stop.is_set():
                return [], "stopped on request"
            waited = time.monotonic() - started
            for pod in pods:
                reason = waiting_reason(pod)
                if waiting.hopeless(pod.metadata.name, reason) or (
                    waited > timeout and not _ready(pod)
                ):
                    return [], self._stuck(pod, reason, waited)
            if waited > timeout:
                return (
                    [],
                    f"StatefulSet {name}: {len(pods)} of {count} pods made after {waited:.0f} s",
                )
            time.sleep(POLL_S)

    def _stuck(self, pod: Any, reason: str, waited: float) -> str:
        name = pod.metadata.name
        claim = f"data-{name}"
        return (
            f"pod {self.namespace}/{name} not ready after {waited:.0f} s: "
            f"{pod.status.phase}{f' ({reason})' if reason else ''}; pod events: "
            f"{last_events(self.core, self.namespace, 'Pod', name)}; PVC {claim} events: "
            f"{last_events(self.core, self.namespace, 'PersistentVolumeClaim', claim)}"
            + self._server_log(name)
        )

    def _server_log(self, pod: str) -> str:
        """The server's last words: its error lines if it said any, else its last lines
        (of the container that ended, when there is one)."""
        log = ""
        for previous in (True, False):
            try:
                log = self.core.read_namespaced_pod_log(
                    pod, self.namespace, container="db", previous=previous, tail_lines=60
                )
                log = log or ""  # the client gives None for an empty log (fileio's)
                break
            except Exception:
                continue
        lines = [line.strip() for line in log.splitlines() if line.strip()]
        errors = [line for line in lines if "ERROR" in line or "FATAL" in line]
        quoted = (errors or lines)[-3:]
        return f"; its server said: {redact_text(' / '.join(quoted))}" if quoted else ""

    # one step
    def run_step(
        self, step: Step, store: CampaignStore, stop: threading.Event, tick: Tick
    ) -> StepOutcome:
        """The engine's StatefulSet at the step's size (its pods each a server on its own
        PVC with a client beside it), the data loaded once, then the clients run (or the
        pods killed, for io-pause) through the API's exec; output kept in raw/."""
        client = client_of(step.workload)
        engine = client.engine(step.workload) or "fileio"
        memory = self._memory(engine, step.workload)
        workload = client.sized(step.workload, memory.bytes)
        raw = store.raw_dir(step.id)
        home = None
        if "node" in type(workload).model_fields:  # migration: the node its pods start on
            try:
                home = home_node(self.core, workload.node)
            except NodeFailureError as exc:
                return StepOutcome("failed", str(exc))
        self._namespace(store)
        name = self._ensure_set(step, engine, workload, home)
        pods, problem = self._wait_ready(
            name, step.concurrency, stop, tick, self.options.pod_timeout
        )
        if problem:
            state = "interrupted" if stop.is_set() else "failed"
            return StepOutcome(state, problem)
        pod_of = {c.name: p.metadata.name for c, p in zip(step.consumers, pods, strict=True)}
        self._keep_pods(raw, name, pod_of)
        failure = self._load(workload, pod_of, raw, stop)
        if failure is not None:
            return failure
        self._record_datasets(workload, engine, memory, pod_of, raw, stop)
        if home is not None:
            return self._migration(step, workload, name, home, pod_of, store, stop, tick)
        if workload.endless:  # io-pause: the server pods deleted under the clients
            return self._io_pause(step, workload, name, pod_of, raw, stop, tick)
        threads = step.threads or 1
        lines = {c: self._run_line(workload, threads) for c in pod_of}
        self._read_counters(pod_of, raw, "before", stop)
        commands, results = self._exec_all(
            pod_of,
            lines,
            raw,
            "",
            workload.runtime + RUN_MARGIN_S,
            stop,
            tick,
            container=_benchmark_container(workload),
        )
        self._read_counters(pod_of, raw, "after", stop)
        atomic_write_json(raw / "process.json", by_consumer(commands, results))
        return step_outcome(commands, results, "run")

    def _record_datasets(
        self,
        workload: DbWorkload,
        engine: str,
        memory: DatabaseMemory,
        pod_of: dict[str, str],
        raw: Path,
        stop: threading.Event,
    ) -> None:
        """Each server's dataset on disk, measured in its container, beside the memory
        it may keep it in: raw/dataset.json (the local target's layout)."""
        lines = {c: objects.DATASET_LINE[engine] for c in pod_of}
        commands, _ = self._exec_all(
            pod_of, lines, raw, ".dataset", 120, stop, lambda *_: None, container="db"
        )
        datasets = {}
        for consumer, command in zip(pod_of, commands, strict=True):
            sizes = objects.dataset_sizes(read_output(command.stdout))
            said = redact_text(read_output(command.stderr).strip())[-300:]
            error = "" if sizes["data"] is not None else said or "no size printed"
            datasets[consumer] = dataset_entry(
                workload, sizes["data"], error, sizes["datadir"], memory
            )
        atomic_write_json(raw / "dataset.json", datasets)

    def _read_counters(
        self, pod_of: dict[str, str], raw: Path, when: str, stop: threading.Event
    ) -> None:
        """Each server container's own block I/O counters for its data disk, as printed
        (raw/<consumer>.blkio-<when>.out); records/device_check reads them."""
        lines = {c: counters_line(objects.DATA) for c in pod_of}
        self._exec_all(
            pod_of, lines, raw, f".blkio-{when}", 60, stop, lambda *_: None, container="db"
        )

    def _keep_pods(self, raw: Path, statefulset: str, pod_of: dict[str, str]) -> None:
        """raw/pods.json: which pod each consumer is."""
        record = {
            "namespace": self.namespace,
            "statefulset": statefulset,
            "storage_class": self.options.storage_class,
            "pods": pod_of,
        }
        atomic_write_json(raw / "pods.json", record)

    def _run_line(self, workload: DbWorkload, threads: int) -> str:
        client = client_of(workload)
        argv = client.run(workload, objects.PodConnection(), threads)
        line = objects.command_line(argv, client.engine(workload))
        return f"cd {objects.FILEIO_DIR} && exec {line}" if client.in_data_folder else line

    def _load_line(self, workload: DbWorkload) -> str:
        client = client_of(workload)
        load = client.load(workload, objects.PodConnection(), 4)
        engine = client.engine(workload)
        if load.cleanup_first:  # sysbench cannot prepare over an older dataset
            command = objects.command_line(load.argv[:-1], engine)
            line = f"{command} cleanup >/dev/null 2>&1; exec {command} prepare"
        else:
            line = "exec " + objects.command_line(load.argv, engine)
        if load.database:
            line = f"{objects.create_database_line(load.database)}; {line}"
        if client.in_data_folder:  # its own folder of the PVC
            line = f"mkdir -p {objects.FILEIO_DIR} && cd {objects.FILEIO_DIR} && {{ {line}; }}"
        return line

    def _exec_all(
        self,
        pod_of: dict[str, str],
        lines: dict[str, str],
        raw: Path,
        suffix: str,
        timeout: float,
        stop: threading.Event,
        tick: Tick,
        container: str = "client",
    ) -> tuple[list[Command], list[ProcessResult]]:
        """Each consumer's shell line in its pod's ``container``, all at once; the
        commands (their output files, as the local target's) and their results."""
        commands = [
            Command(
                ["/bin/sh", "-c", line],
                raw / f"{consumer}{suffix}.out",
                raw / f"{consumer}{suffix}.err",
            )
            for consumer, line in lines.items()
        ]
        started = time.monotonic()

        def one(consumer: str, command: Command) -> ProcessResult:
            return exec_in_pod(
                self.core,
                self.namespace,
                pod_of[consumer],
                container,
                list(command.argv),
                command.stdout,
                command.stderr,
                timeout,
                stop,
            )

        with ThreadPoolExecutor(max_workers=max(1, len(lines))) as pool:
            futures = [pool.submit(one, c, cmd) for c, cmd in zip(lines, commands, strict=True)]
            while not all(f.done() for f in futures):
                tick(time.monotonic() - started, None)
                time.sleep(0.5)
            return commands, [f.result() for f in futures]

    def _load(
        self, workload: DbWorkload, pod_of: dict[str, str], raw: Path, stop: threading.Event
    ) -> StepOutcome | None:
        name, dataset = client_of(workload).dataset(workload)
        if self.datasets.get(name) == dataset:
            return None
        lines = {c: self._load_line(workload) for c in pod_of}
        commands, results = self._exec_all(
            pod_of,
            lines,
            raw,
            ".load",
            LOAD_TIMEOUT_S,
            stop,
            lambda *_: None,
            container=_benchmark_container(workload),
        )
        atomic_write_json(raw / "load.json", by_consumer(commands, results))
        # sysbench's prepare can exit 0 after a thread died with FATAL: trust its words
        failure = step_outcome(commands, results, "load", fatal_fails=True)
        if failure.state != "done":
            return failure
        self.datasets[name] = dataset
        return None

    # io-pause and migration: sysbench from client pods of their own while servers go
    def _clients(self, pod_of: dict[str, str], avoid: str | None = None) -> dict[str, str]:
        """A client pod for each server pod (off node ``avoid``); by consumer."""
        clients = {c: f"client-{pod}" for c, pod in pod_of.items()}
        for client in clients.values():
            pod = objects.client_pod(
                client, self.images["mariadb"], self.options.image_pull_policy, self.labels, avoid
            )
            self.core.create_namespaced_pod(self.namespace, pod)
        return clients

    def _delete_clients(self, clients: dict[str, str]) -> None:
        for client in clients.values():
            self.core.delete_namespaced_pod(client, self.namespace, grace_period_seconds=0)

    def _io_pause(
        self,
        step: Step,
        workload: IoPauseWorkload,
        name: str,
        pod_of: dict[str, str],
        raw: Path,
        stop: threading.Event,
        tick: Tick,
    ) -> StepOutcome:
        clients = self._clients(pod_of)
        try:
            not_ready = self._clients_pointed(pod_of, clients, stop)
            if not_ready is not None:
                return not_ready

            def kill(cycle: int, kills: list[dict[str, Any]]) -> str:
                return self._replace(workload, name, pod_of, clients, cycle, kills, stop)

            outcome = self._under_load(step, workload, pod_of, clients, raw, stop, tick, kill)
        finally:
            self._delete_clients(clients)
        if outcome is not None:
            return outcome
        return StepOutcome(
            "done",
            notes=[
                f"{len(pod_of)} server pods deleted {workload.kills} "
                "times and replaced by their StatefulSet"
            ],
        )

    def _clients_pointed(
        self, pod_of: dict[str, str], clients: dict[str, str], stop: threading.Event
    ) -> StepOutcome | None:
        """The clients ready, each pointed at its server; else the step's outcome."""
        problem = self._clients_ready(list(clients.values()), stop)
        if problem:
            return StepOutcome("interrupted" if stop.is_set() else "failed", problem)
        for consumer, pod in pod_of.items():
            self._point(clients[consumer], pod)
        return None

    def _clients_ready(self, names: list[str], stop: threading.Event) -> str:
        deadline = time.monotonic() + self.options.pod_timeout
        waiting = WaitingWatch()
        while time.monotonic() < deadline and not stop.is_set():
            pods = [self.core.read_namespaced_pod(n, self.namespace) for n in names]
            if all(_ready(p) for p in pods):
                return ""
            for pod in pods:
                if waiting.hopeless(pod.metadata.name, waiting_reason(pod)):
                    return self._stuck(pod, waiting_reason(pod), 0)
            time.sleep(POLL_S)
        return "stopped on request" if stop.is_set() else f"client pods not ready: {names}"

    def _point(self, client: str, server_pod: str, gone: bool = False) -> None:
        """The client's name for its server is the server pod's current address (as a
        headless Service's DNS record would be). ``gone``: the client's own loopback,
        where nothing listens, so that a reconnect fails at once (refused) until the
        replacement is ready, as it would once the record vanished. A client that tried
        the deleted pod's address instead could wait in connect() on a neighbour entry
        still naming the old pod's interface, long after the replacement was ready."""
        ip = NOWHERE
        if not gone:
            ip = self.core.read_namespaced_pod(server_pod, self.namespace).status.pod_ip
        hosts = f"127.0.0.1 localhost\n{ip} {server_pod}\n"
        line = f"printf %s {shlex.quote(hosts)} > /etc/hosts"
        result = self._quiet_exec(client, line)
        if result.returncode != 0:
            raise RuntimeError(f"could not point {client} at {server_pod} ({ip})")

    def _quiet_exec(self, client: str, line: str) -> ProcessResult:
        return exec_in_pod(
            self.core,
            self.namespace,
            client,
            "client",
            ["/bin/sh", "-c", line],
            Path("/dev/null"),
            Path("/dev/null"),
            30,
            threading.Event(),
        )

    def _under_load(
        self,
        step: Step,
        workload: UnderLoad,
        pod_of: dict[str, str],
        clients: dict[str, str],
        raw: Path,
        stop: threading.Event,
        tick: Tick,
        disrupt: Callable[[int, list[dict[str, Any]]], str],
    ) -> StepOutcome | None:
        """sysbench with 1-second reports from each client through the reconnect script,
        ``disrupt`` once a cycle (``before`` s of load before it, ``after`` s after the
        clients' transactions resumed, harness.planes.resumption);
        raw/kills.json gets what each disruption recorded. None when all went well."""
        threads = step.threads or 1
        env = (
            f"VOLPERF_SYSBENCH_TEST=oltp_{workload.test} "
            f"VOLPERF_RECONNECT_S={workload.recovery_timeout} "
        )
        lines = {}
        for consumer, pod in pod_of.items():
            argv = client_of(workload).run(workload, objects.PodConnection(pod), threads)
            argv[1] = f"{objects.LUA_DIR}/{sysbench_command.RECONNECT_SCRIPT}"
            lines[consumer] = env + objects.with_password(argv)
        cycles = getattr(workload, "kills", 1)  # migration: one failure
        longest = cycles * (workload.before + workload.recovery_timeout + workload.after)
        ran: list[tuple[list[Command], list[ProcessResult]]] = []
        clients_done = threading.Event()

        def run_clients() -> None:
            ran.append(
                self._exec_all(
                    clients, lines, raw, "", longest + RUN_MARGIN_S, clients_done, lambda *_: None
                )
            )

        runner = threading.Thread(target=run_clients, name="io-pause-clients")
        runner.start()
        kills: list[dict[str, Any]] = []
        error = ""
        started = time.time()
        outs = {consumer: raw / f"{consumer}.out" for consumer in pod_of}
        try:
            for cycle in range(1, cycles + 1):
                if not _wait(stop, workload.before, tick, started):
                    break
                deadline = time.monotonic() + workload.recovery_timeout
                error = disrupt(cycle, kills)
                if error:
                    break
                before = reports_now(outs)  # the servers back (wait_resumed says why)
                wait_resumed(outs, before, deadline, lambda s: _wait(stop, s, tick, started))
                _wait(stop, workload.after, tick, started)
        finally:
            for client in clients.values():  # SIGTERM: sysbench's output so far is kept
                self._quiet_exec(client, "pkill -TERM -x sysbench; true")
            runner.join(timeout=60)
            clients_done.set()
            runner.join()
            atomic_write_json(raw / "kills.json", kills)
            commands, results = ran[0] if ran else ([], [])
            atomic_write_json(raw / "process.json", by_consumer(commands, results))
        if stop.is_set():
            return StepOutcome("interrupted", "stopped on request while the servers went")
        if error:
            return StepOutcome("failed", error)
        crashed = [
            (c, r) for c, r in zip(commands, results, strict=True) if r.returncode not in STOPPED
        ]
        if crashed:
            return StepOutcome("failed", "sysbench ended early: " + quote_failures(crashed))
        return None

    def _replace(
        self,
        workload: IoPauseWorkload,
        name: str,
        pod_of: dict[str, str],
        clients: dict[str, str],
        cycle: int,
        kills: list[dict[str, Any]],
        stop: threading.Event,
    ) -> str:
        """Delete every server pod at once; wait for each replacement to run and be ready,
        point its client at it."""
        records = self._going(name, pod_of, clients, cycle)
        for pod in pod_of.values():
            self.core.delete_namespaced_pod(pod, self.namespace, grace_period_seconds=0)
        error = self._await_back(pod_of, clients, records, workload.recovery_timeout, stop)
        kills.extend(records.values())
        return f"a deleted server pod did not come back (cycle {cycle}): {error}" if error else ""

    def _going(
        self, name: str, pod_of: dict[str, str], clients: dict[str, str], cycle: int
    ) -> dict[str, dict[str, Any]]:
        """Each server pod's record as it goes (its uid, address and node); the clients
        pointed nowhere (open connections stay; new ones fail fast)."""
        pods = {p.metadata.name: p for p in self._pods(name)}
        for consumer, pod in pod_of.items():
            self._point(clients[consumer], pod, gone=True)
        killed_at = time.time()
        return {
            c: {
                "consumer": c,
                "cycle": cycle,
                "killed_at": killed_at,
                "old_ip": pods[p].status.pod_ip if p in pods else None,
                "old_uid": pods[p].metadata.uid if p in pods else None,
                "old_node": pods[p].spec.node_name if p in pods else None,
            }
            for c, p in pod_of.items()
        }

    def _await_back(
        self,
        pod_of: dict[str, str],
        clients: dict[str, str],
        records: dict[str, dict[str, Any]],
        timeout: float,
        stop: threading.Event,
        node_bound: bool = False,
    ) -> str:
        """Wait for each server pod's replacement to run and be ready (its record gets
        the times, address and node), point its client at it; '' or the first error.
        ``node_bound``: a replacement the scheduler cannot place because its volume is
        bound to another node fails at once, with the scheduler's words."""
        deadline = time.monotonic() + timeout
        waiting = dict(pod_of)
        while waiting and time.monotonic() < deadline and not stop.is_set():
            for consumer, pod_name in list(waiting.items()):
                record = records[consumer]
                try:
                    pod = self.core.read_namespaced_pod(pod_name, self.namespace)
                except Exception:
                    continue
                if pod.metadata.uid == record["old_uid"]:
                    continue
                if pod.status.phase == "Running" and "running_at" not in record:
                    record["running_at"] = time.time()
                    record["new_node"] = pod.spec.node_name
                if _ready(pod):
                    record["ready_at"] = time.time()
                    record["new_ip"] = pod.status.pod_ip  # the client is pointed there
                    self._point(clients[consumer], pod_name)
                    del waiting[consumer]
                elif node_bound and NODE_BOUND in _unschedulable(pod):
                    record["error"] = f"pod {pod_name} Pending: {_unschedulable(pod)}"
                    del waiting[consumer]
            time.sleep(POLL_S)
        for consumer in waiting:
            records[consumer]["error"] = (
                f"pod {pod_of[consumer]} not ready {timeout} s after it went; pod events: "
                f"{last_events(self.core, self.namespace, 'Pod', pod_of[consumer])}"
            )
        for record in records.values():
            record.setdefault("ready_at", None)
        errors = [r["error"] for r in records.values() if r.get("error")]
        return errors[0] if errors else ""

    # migration
    def _migration(
        self,
        step: Step,
        workload: MigrationWorkload,
        name: str,
        home: str,
        pod_of: dict[str, str],
        store: CampaignStore,
        stop: threading.Event,
        tick: Tick,
    ) -> StepOutcome:
        """The set's pods on ``home`` under load from clients on other nodes; ``home``
        fails, the pods come back elsewhere (or say why not); the node is brought back,
        the rows counted before and after (raw/rows.json)."""
        raw = store.raw_dir(step.id)
        failure = NodeFailure(
            self.core,
            home,
            workload.failure,
            store,
            self.kubeconfig,
            workload.crash_command,
            workload.restore_command,
        )
        clients = self._clients(pod_of, avoid=home)
        rows: dict[str, dict[str, Any]] = {}
        try:
            not_ready = self._clients_pointed(pod_of, clients, stop)
            if not_ready is not None:
                return not_ready
            self.apps.patch_namespaced_stateful_set(name, self.namespace, objects.UNPINNED)
            self._count_rows(workload, pod_of, raw, rows, "before")

            def fail_node(cycle: int, kills: list[dict[str, Any]]) -> str:
                records = self._going(name, pod_of, clients, cycle)
                error = failure.fail(self.namespace, list(pod_of.values()))
                if not error:
                    timeout = workload.recovery_timeout
                    error = self._await_back(pod_of, clients, records, timeout, stop, True)
                kills.extend({**r, "failure": workload.failure} for r in records.values())
                return f"node {home} {workload.failure}: {error}" if error else ""

            outcome = self._under_load(step, workload, pod_of, clients, raw, stop, tick, fail_node)
        finally:
            self._delete_clients(clients)
            back = failure.bring_back(self.options.pod_timeout)
        if back:
            outcome = StepOutcome("failed", f"node {home} not brought back: {back}")
        elif outcome is not None and not stop.is_set():  # the pods go home, data intact?
            _, problem = self._wait_ready(name, len(pod_of), stop, tick, self.options.pod_timeout)
            if problem:
                outcome.error += f"; after node {home} came back: {problem}"
        if not stop.is_set():
            self._count_rows(workload, pod_of, raw, rows, "after")
        atomic_write_json(raw / "rows.json", rows)
        changed = [c for c, r in rows.items() if r.get("before") != r.get("after")]
        if outcome is None and changed:
            outcome = StepOutcome("failed", f"rows changed by the move: {rows}")
        if outcome is not None:
            return outcome
        return StepOutcome(
            "done",
            notes=[
                f"node {home} failed ({workload.failure}); {len(pod_of)} server pods came "
                f"back on {', '.join(sorted({self._node_of(p) for p in pod_of.values()}))}; "
                f"node {home} brought back"
            ],
        )

    def _node_of(self, pod: str) -> str:
        return self.core.read_namespaced_pod(pod, self.namespace).spec.node_name or "?"

    def _count_rows(
        self,
        workload: MigrationWorkload,
        pod_of: dict[str, str],
        raw: Path,
        rows: dict[str, dict[str, Any]],
        when: str,
    ) -> None:
        """Each server's rows in sysbench's tables, counted in its container
        (raw/<consumer>.rows-<when>.out); None where the count failed."""
        line = objects.count_rows_line(workload.tables)
        for consumer, pod in pod_of.items():
            out, err = raw / f"{consumer}.rows-{when}.out", raw / f"{consumer}.rows-{when}.err"
            argv = ["/bin/sh", "-c", line]
            exec_in_pod(self.core, self.namespace, pod, "db", argv, out, err, 60, threading.Event())
            counted = read_output(out).strip()
            rows.setdefault(consumer, {})[when] = int(counted) if counted.isdigit() else None


def _ready(pod: Any) -> bool:
    return any(c.type == "Ready" and c.status == "True" for c in (pod.status.conditions or []))


def _wait(stop: threading.Event, seconds: float, tick: Tick, started: float) -> bool:
    deadline = time.time() + seconds
    while time.time() < deadline:
        if stop.wait(0.25):
            return False
        tick(time.time() - started, None)
    return True


def _unschedulable(pod: Any) -> str:
    """The scheduler's message for a pod it cannot place, else ''."""
    for condition in pod.status.conditions or []:
        if condition.type == "PodScheduled" and condition.reason == "Unschedulable":
            return str(condition.message or "")
    return ""


def _benchmark_container(workload: DbWorkload) -> str:
    """Where the benchmark runs: beside the server, or in fileio's one container."""
    return "db" if client_of(workload).in_data_folder else "client"
