"""Which code measured a kept figure: volperf's version, the commit it ran from, and a hash
of the folders whose code makes the figures (the planes, the records, the host layer), so a
page showing figures measured some time ago can say when that code has changed since.

The hash is of each file's git blob id under those folders (sorted by path), so the same
tree hashes the same from a working copy (an installed package too: no git needed) and
from a commit read with ``git ls-tree`` (figures stamped afterwards, from the commit that
kept them)."""

from __future__ import annotations

import hashlib
import subprocess
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import harness

# the code whose change can change a measured figure, relative to the package's parent
MEASURED_CODE = ("harness/planes", "harness/records", "harness/host")
SKIPPED = ("__pycache__",)
PACKAGE_PARENT = Path(harness.__file__).resolve().parents[1]


@dataclass(frozen=True)
class CodeStamp:
    version: str  # volperf's
    commit: str  # the checkout's HEAD ("" outside a git checkout)
    commit_date: str  # its committer date, ISO 8601 ("" without a commit)
    code_hash: str  # of MEASURED_CODE, as code_hash() makes it
    uncommitted: int  # files of MEASURED_CODE that differed from the commit
    note: str = ""  # how the stamp was made, when not by the measuring run itself

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> CodeStamp:
        return cls(**{k: v for k, v in data.items() if k in cls.__dataclass_fields__})


def blob_id(content: bytes) -> str:
    """The id git gives a file of this content (``git hash-object``)."""
    return hashlib.sha1(b"blob %d\0" % len(content) + content).hexdigest()


def _hash(entries: Iterable[tuple[str, str]]) -> str:
    digest = hashlib.sha256()
    for path, blob in sorted(entries):
        digest.update(f"{path} {blob}\n".encode())
    return digest.hexdigest()


def _kept(path: str) -> bool:
    parts = path.split("/")
    return not any(part in SKIPPED for part in parts) and not path.endswith((".pyc", ".pyo"))


def code_hash(parent: Path = PACKAGE_PARENT) -> str:
    """The hash of MEASURED_CODE as the files under ``parent`` hold it now."""
    entries = []
    for folder in MEASURED_CODE:
        for file in (parent / folder).rglob("*"):
            path = file.relative_to(parent).as_posix()
            if file.is_file() and _kept(path):
                entries.append((path, blob_id(file.read_bytes())))
    return _hash(entries)


def _git(checkout: Path, *argv: str) -> str:
    return subprocess.run(
        ["git", "-C", str(checkout), *argv], capture_output=True, text=True, check=True
    ).stdout


def code_hash_at(checkout: Path, commit: str) -> str:
    """The hash of MEASURED_CODE as ``commit`` of the git checkout holds it."""
    listed = _git(checkout, "ls-tree", "-r", commit, "--", *MEASURED_CODE)
    entries = []
    for line in listed.splitlines():
        meta, path = line.split("\t", 1)
        if _kept(path):
            entries.append((path, meta.split()[2]))
    return _hash(entries)


def current_stamp(parent: Path = PACKAGE_PARENT) -> CodeStamp:
    """The stamp of the code running now: its commit when ``parent`` is a git checkout."""
    commit = date = ""
    uncommitted = 0
    try:
        # the checkout's own root: an installed package inside some other repository
        # (a virtualenv in a checkout) is not that repository's commit
        if Path(_git(parent, "rev-parse", "--show-toplevel").strip()) == parent.resolve():
            commit = _git(parent, "rev-parse", "HEAD").strip()
            date = _git(parent, "show", "-s", "--format=%cI", commit).strip()
            changed = _git(parent, "status", "--porcelain", "--", *MEASURED_CODE)
            uncommitted = sum(1 for line in changed.splitlines() if _kept(line[3:]))
    except (OSError, subprocess.CalledProcessError):
        pass  # an installed package, or no git: the hash alone says which code
    return CodeStamp(harness.__version__, commit, date, code_hash(parent), uncommitted)


def stamp_of_commit(checkout: Path, commit: str, note: str) -> CodeStamp:
    """A stamp made afterwards from ``commit`` (figures kept before volperf stamped them)."""
    full = _git(checkout, "rev-parse", commit).strip()
    date = _git(checkout, "show", "-s", "--format=%cI", full).strip()
    version = _git(checkout, "show", f"{full}:harness/__init__.py")
    found = [line.split('"')[1] for line in version.splitlines() if "__version__" in line]
    return CodeStamp(found[0] if found else "", full, date, code_hash_at(checkout, full), 0, note)
