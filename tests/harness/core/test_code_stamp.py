"""The code stamp's hash is the same from a working tree and from the git commit holding
the same files, ignores what Python caches, and changes with any file of the measured
folders; a stamp names the checkout's commit and counts the measured files left
uncommitted, and one made afterwards from a commit reads that commit's version."""

from __future__ import annotations

import subprocess
from pathlib import Path

from harness.core.code_stamp import (
    MEASURED_CODE,
    CodeStamp,
    blob_id,
    code_hash,
    code_hash_at,
    current_stamp,
    stamp_of_commit,
)


def _git(repo: Path, *argv: str) -> str:
    return subprocess.run(
        ["git", "-C", str(repo), *argv], capture_output=True, text=True, check=True
    ).stdout


def _checkout(tmp_path: Path) -> Path:
    repo = tmp_path / "checkout"
    for folder in MEASURED_CODE:
        (repo / folder).mkdir(parents=True)
        (repo / folder / "module.py").write_text(f"# {folder}\n")
    (repo / "harness" / "__init__.py").write_text('__version__ = "9.8.7"\n')
    (repo / "harness" / "report").mkdir()
    (repo / "harness" / "report" / "page.py").write_text("# not measured code\n")
    _git(repo, "init", "-q")
    _git(repo, "add", "-A")
    _git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "first")
    return repo


def test_blob_id_is_gits():
    assert blob_id(b"hello\n") == "ce013625030ba8dba906f756967f9e9ca394464a"


def test_the_working_tree_and_its_commit_hash_the_same(tmp_path):
    repo = _checkout(tmp_path)
    assert code_hash(repo) == code_hash_at(repo, "HEAD")
    cache = repo / "harness" / "planes" / "__pycache__"
    cache.mkdir()
    (cache / "module.cpython-311.pyc").write_bytes(b"\0" * 16)
    assert code_hash(repo) == code_hash_at(repo, "HEAD")


def test_only_a_change_to_the_measured_folders_changes_the_hash(tmp_path):
    repo = _checkout(tmp_path)
    before = code_hash(repo)
    (repo / "harness" / "report" / "page.py").write_text("# changed, not measured\n")
    assert code_hash(repo) == before
    (repo / "harness" / "records" / "module.py").write_text("# changed\n")
    assert code_hash(repo) != before
    (repo / "harness" / "records" / "module.py").write_text("# harness/records\n")
    (repo / "harness" / "host" / "new.py").write_text("# a new file\n")
    assert code_hash(repo) != before


def test_a_stamp_names_the_commit_and_what_was_left_uncommitted(tmp_path):
    repo = _checkout(tmp_path)
    head = _git(repo, "rev-parse", "HEAD").strip()
    stamp = current_stamp(repo)
    assert (stamp.commit, stamp.uncommitted, stamp.note) == (head, 0, "")
    assert stamp.code_hash == code_hash_at(repo, head) and stamp.commit_date
    (repo / "harness" / "planes" / "module.py").write_text("# edited\n")
    (repo / "harness" / "report" / "page.py").write_text("# edited, not measured\n")
    edited = current_stamp(repo)
    assert edited.uncommitted == 1 and edited.code_hash != stamp.code_hash
    assert CodeStamp.from_json(edited.to_json()) == edited


def test_outside_a_checkout_the_hash_alone_says_which_code(tmp_path):
    """An installed copy: not in a repository, or inside another one (a virtualenv kept in
    a checkout), has no commit of its own."""
    repo = _checkout(tmp_path)
    for copy in (tmp_path / "installed", repo / ".venv" / "site-packages"):
        for folder in MEASURED_CODE:
            (copy / folder).mkdir(parents=True)
            (copy / folder / "module.py").write_text(f"# {folder}\n")
        stamp = current_stamp(copy)
        assert (stamp.commit, stamp.commit_date, stamp.uncommitted) == ("", "", 0)
        assert stamp.code_hash == code_hash_at(repo, "HEAD")


def test_a_stamp_made_afterwards_reads_the_commits_own_version_and_code(tmp_path):
    repo = _checkout(tmp_path)
    first = _git(repo, "rev-parse", "HEAD").strip()
    (repo / "harness" / "planes" / "module.py").write_text("# later\n")
    (repo / "harness" / "__init__.py").write_text('__version__ = "9.9.0"\n')
    _git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qam", "later")
    stamp = stamp_of_commit(repo, first[:7], "stamped afterwards")
    assert (stamp.version, stamp.commit, stamp.note) == ("9.8.7", first, "stamped afterwards")
    assert stamp.code_hash == code_hash_at(repo, first) != code_hash(repo)
