"""The Sphinx documentation builds with warnings as errors (what `tox -e docs` runs)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SOURCE = Path(__file__).parents[2] / "doc" / "source"


def test_docs_build_without_warnings(tmp_path):
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "sphinx",
            "-W",
            "--keep-going",
            "-q",
            "-b",
            "html",
            str(SOURCE),
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr
    assert "fio.csv" in (tmp_path / "campaigns.html").read_text()
