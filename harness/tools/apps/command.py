"""The application workloads' commands: their script (each tool's declaration names it:
git.sh, build.sh, redis.sh, broker.sh here, or a script of a tool of the user's own)
under sh, with phases.sh and tree.awk beside it, locally or in a pod that has the files."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from harness.core.spec import TOOLS, AppWorkload, BrokerWorkload, RedisWorkload, tool

SHARED = ("phases.sh", "tree.awk")  # what every application's script sources or reads
ServedWorkload = RedisWorkload | BrokerWorkload  # an application server and its clients


def scripts() -> dict[str, str]:
    """The shared files and every application's script by name, as a ConfigMap or a
    directory takes them."""
    folder = resources.files("harness.tools.apps")
    files = {name: folder.joinpath(name).read_text(encoding="utf-8") for name in SHARED}
    for declared in TOOLS:
        if declared.script:
            package, name = declared.script
            files[name] = resources.files(package).joinpath(name).read_text(encoding="utf-8")
    return files


def _script(folder: Path | str, workload: AppWorkload) -> str:
    script = tool(workload.tool).script
    assert script is not None, f"{workload.tool} is no application"
    return f"{folder}/{script[1]}"


def is_served(workload: AppWorkload) -> bool:
    """Whether the workload runs a server (a pod of its own on Kubernetes) and clients."""
    return workload.served


def source_key(workload: AppWorkload) -> str:
    """What the generated source depends on: its folder's (redis: its file's) name."""
    return "-".join([workload.tool, *workload.source_sizes()]) + workload.source_suffix


def generate(folder: Path | str, workload: AppWorkload, source: Path | str) -> list[str]:
    """Make the workload's source (a repository, a tarred tree, YCSB's properties, the
    broker's parameters) at ``source``, untimed."""
    return ["sh", _script(folder, workload), "generate", str(source), *workload.source_sizes()]


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
    argv = ["sh", _script(folder, workload), "run", str(source), str(work)]
    given = str(client) if client else None
    return [*argv, str(workload.iterations), *workload.run_args(given, server)]


def serve(folder: Path | str, workload: ServedWorkload, data: Path | str) -> list[str]:
    """The workload's server with its data in ``data``, on its TCP port."""
    port = str(workload.port)
    return ["sh", _script(folder, workload), "serve", str(data), workload.sync, port]


def server_ready(workload: ServedWorkload) -> str:
    """A shell test that succeeds once the workload's server answers on its port."""
    return workload.ready_check()


def tree_bytes(workload: AppWorkload) -> int:
    """The size of the checked-out or unpacked tree, of the records loaded, of the
    messages published."""
    return workload.tree_bytes()


def peak_bytes(workload: AppWorkload) -> int:
    """What a consumer holds at once (each tool's ``peak_bytes``)."""
    return workload.peak_bytes()


def timeout_s(workload: AppWorkload) -> float:
    """How long a consumer's run may take (each tool's ``timeout_s``)."""
    return workload.timeout_s()
