"""Shared helpers for tests that run real fio campaigns."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from harness.core.spec import CampaignSpec, validate


def tiny_spec(directory: Path, name: str = "tiny", **overrides: Any) -> CampaignSpec:
    """A real but short campaign: 1 s steps on 8 MiB prefilled files."""
    workload = {
        "name": "randrw-4k",
        "rw": ["randread", "randwrite"],
        "bs": "4k",
        "iodepth": 8,
        "size": "8M",
        "runtime": 1,
        "prefill": True,
        **overrides.pop("workload", {}),
    }
    data = {
        "name": name,
        "target": {"type": "local", "dir": str(directory)},
        "workloads": [workload],
        "sweep": [1, 2],
        **overrides,
    }
    return validate(data)


def raw_files(raw: Path) -> dict[str, bytes]:
    """Every file under a step's raw/ (fio's logs are in raw/logs/), by relative path."""
    return {str(p.relative_to(raw)): p.read_bytes() for p in raw.rglob("*") if p.is_file()}


def fio_json(path: Path) -> dict[str, Any]:
    """fio's own output read with nothing but the json module (no volperf parsing)."""
    text = path.read_text()
    return json.loads(text[text.index("\n{") + 1 :] if not text.startswith("{") else text)


def doc_source_copy(tmp_path: Path) -> Path:
    """A copy of the documentation sources without any generated page."""
    repo = Path(__file__).parents[2]
    source = tmp_path / "doc" / "source"
    shutil.copytree(repo / "doc" / "source", source, ignore=shutil.ignore_patterns("test_results"))
    (source / "test_results").mkdir()
    shutil.copy(repo / "doc" / "source" / "test_results" / "index.rst", source / "test_results")
    return source


def volperf(*args: str, cwd: Path, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """The volperf command as a user runs it."""
    return subprocess.run(
        [sys.executable, "-m", "harness.cli", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
