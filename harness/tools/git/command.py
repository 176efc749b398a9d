"""The git workload's commands: workload.sh (with repo.awk beside it) under sh, locally
or in a pod that has the two files."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from harness.core.spec import GitWorkload
from harness.core.units import size_bytes

FILES = ("workload.sh", "repo.awk")


def scripts() -> dict[str, str]:
    """The workload's files by name, as a ConfigMap or a directory takes them."""
    folder = resources.files("harness.tools.git")
    return {name: folder.joinpath(name).read_text(encoding="utf-8") for name in FILES}


def generate(folder: Path | str, workload: GitWorkload, origin: Path | str) -> list[str]:
    repo = workload.repo
    return [
        "sh",
        f"{folder}/workload.sh",
        "generate",
        str(origin),
        str(repo.files),
        str(size_bytes(repo.file_size)),
        str(repo.commits),
    ]


def tree_bytes(workload: GitWorkload) -> int:
    """The size of the repository's checked-out tree."""
    return workload.repo.files * size_bytes(workload.repo.file_size)


def timeout_s(workload: GitWorkload) -> float:
    """How long a consumer's run may take: a minute per iteration, and 10 s per MiB of
    its tree (slow storage)."""
    return workload.iterations * (60 + 10 * tree_bytes(workload) / 2**20)


def run(
    folder: Path | str, workload: GitWorkload, origin: Path | str, work: Path | str
) -> list[str]:
    return ["sh", f"{folder}/workload.sh", "run", str(origin), str(work), str(workload.iterations)]
