"""The application workloads' commands: their script (git.sh, build.sh, redis.sh,
broker.sh) under sh, with phases.sh and tree.awk beside it, locally or in a pod that has
the files."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from harness.core.spec import (
    AppWorkload,
    BrokerWorkload,
    BuildWorkload,
    GitWorkload,
    RedisWorkload,
)
from harness.core.units import size_bytes
from harness.tools.ycsb.build import NAME as YCSB  # on PATH in the image

FILES = ("phases.sh", "tree.awk", "git.sh", "build.sh", "redis.sh", "broker.sh")
NATS_DIR = "/usr/local/bin"  # nats-server and nats (harness/tools/nats) in the image
PORTS = {"redis": 6379, "broker": 4222}  # a server in a pod of its own
ServedWorkload = RedisWorkload | BrokerWorkload  # an application server and its clients


def scripts() -> dict[str, str]:
    """The workloads' files by name, as a ConfigMap or a directory takes them."""
    folder = resources.files("harness.tools.apps")
    return {name: folder.joinpath(name).read_text(encoding="utf-8") for name in FILES}


def source_key(workload: AppWorkload) -> str:
    """What the generated source depends on: its folder's (redis: its file's) name."""
    if isinstance(workload, RedisWorkload):
        w = workload
        return f"redis-{w.workload}-{w.records}-{w.operations}-{w.field_length}.properties"
    if isinstance(workload, BrokerWorkload):
        return f"broker-{workload.messages}-{workload.message_size}.params"
    if isinstance(workload, GitWorkload):
        repo = workload.repo
        return f"git-{repo.files}-{size_bytes(repo.file_size)}-{repo.commits}"
    return f"build-{workload.source.files}-{size_bytes(workload.source.file_size)}"


def generate(folder: Path | str, workload: AppWorkload, source: Path | str) -> list[str]:
    """Make the workload's source (a repository, a tarred tree, YCSB's properties, the
    broker's parameters) at ``source``, untimed."""
    script = f"{folder}/{workload.tool}.sh"
    if isinstance(workload, RedisWorkload):
        w = workload
        sizes = [w.workload, str(w.records), str(w.operations), str(w.field_length)]
    elif isinstance(workload, BrokerWorkload):
        sizes = [str(workload.messages), str(workload.message_size)]
    elif isinstance(workload, GitWorkload):
        repo = workload.repo
        sizes = [str(repo.files), str(size_bytes(repo.file_size)), str(repo.commits)]
    else:
        sizes = [str(workload.source.files), str(size_bytes(workload.source.file_size))]
    return ["sh", script, "generate", str(source), *sizes]


def run(
    folder: Path | str,
    workload: AppWorkload,
    source: Path | str,
    work: Path | str,
    client: Path | str | None = None,
    server: str | None = None,
) -> list[str]:
    """Every iteration's phases in ``work``, timed; redis and broker against a server of
    their own, or the one at ``server`` (host:port). ``client``: redis's YCSB client,
    the broker's folder of nats-server and nats (else the image's)."""
    argv = ["sh", f"{folder}/{workload.tool}.sh", "run", str(source), str(work)]
    argv.append(str(workload.iterations))
    if isinstance(workload, BuildWorkload):
        argv.append(str(workload.jobs))
    if isinstance(workload, RedisWorkload):
        argv += [str(client or YCSB), workload.appendfsync, str(workload.client_threads)]
    if isinstance(workload, BrokerWorkload):
        argv += [str(client or NATS_DIR), workload.sync, str(workload.clients)]
    if isinstance(workload, ServedWorkload):
        argv += [server] if server else []
    return argv


def serve(folder: Path | str, workload: ServedWorkload, data: Path | str) -> list[str]:
    """The workload's server with its data in ``data``, on its TCP port (PORTS)."""
    sync = workload.appendfsync if isinstance(workload, RedisWorkload) else workload.sync
    port = str(PORTS[workload.tool])
    return ["sh", f"{folder}/{workload.tool}.sh", "serve", str(data), sync, port]


def server_ready(workload: ServedWorkload) -> str:
    """A shell test that succeeds once the workload's server answers on its port: Redis's
    PING, or JetStream's account information."""
    port = PORTS[workload.tool]
    if isinstance(workload, RedisWorkload):
        return f'[ "$(redis-cli -p {port} ping)" = PONG ]'
    return f"nats --server nats://127.0.0.1:{port} account info >/dev/null"


def record_bytes(workload: RedisWorkload) -> int:
    """A YCSB record as Redis keeps it: its 10 fields, their names and its key."""
    return 10 * (workload.field_length + 8) + 24


def tree_bytes(workload: AppWorkload) -> int:
    """The size of the checked-out or unpacked tree, of the records loaded, of the
    messages published."""
    if isinstance(workload, RedisWorkload):
        return workload.records * record_bytes(workload)
    if isinstance(workload, BrokerWorkload):
        return workload.messages * workload.message_size
    tree = workload.repo if isinstance(workload, GitWorkload) else workload.source
    return tree.files * size_bytes(tree.file_size)


def peak_bytes(workload: AppWorkload) -> int:
    """What a consumer holds at once: git a clone, its tar and the copy; build the tree
    and about as much again of objects and archives; redis its append-only file, every
    iteration's load and updates (a field each), twice while Redis rewrites it; broker
    its stream (each message with about 100 bytes of subject, headers and index)."""
    if isinstance(workload, BrokerWorkload):
        return 2 * workload.messages * (workload.message_size + 100)
    if isinstance(workload, RedisWorkload):
        updates = workload.operations * (workload.field_length + 64)
        return 2 * workload.iterations * (tree_bytes(workload) + updates)
    return tree_bytes(workload) * (3 if isinstance(workload, GitWorkload) else 2)


def timeout_s(workload: AppWorkload) -> float:
    """How long a consumer's run may take: a minute per iteration, and 10 s per MiB of
    its tree (slow storage); redis a minute and 10 ms an operation or record; broker a
    minute and 10 ms a message."""
    if isinstance(workload, BrokerWorkload):
        return workload.iterations * (60 + workload.messages / 100)
    if isinstance(workload, RedisWorkload):
        return workload.iterations * (60 + (workload.records + workload.operations) / 100)
    return workload.iterations * (60 + 10 * tree_bytes(workload) / 2**20)
