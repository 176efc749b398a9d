"""`volperf compare` as the guide shows it (no --no-page, no --build), run outside a
checkout: it prints the comparison and writes no page, saying so; no file is made beside
the campaigns (loading may bring a kept campaign's records up to date in place: copies)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
KEPT = ("reference/performance-docs-cinder-ceph", "samples/quick-20261127-174710")


def _files(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*") if p.is_file()}


def test_compare_outside_a_checkout_prints_the_comparison_and_writes_no_page(tmp_path):
    work = tmp_path / "elsewhere"
    work.mkdir()
    for kept in KEPT:  # copies: results/ is never written
        shutil.copytree(REPO / "results" / kept, work / Path(kept).name)
    before = _files(work)
    base, other = (Path(k).name for k in KEPT)
    done = subprocess.run(
        [sys.executable, "-m", "harness.cli", "compare", base, other],
        cwd=work,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    said = done.stderr  # volperf's console is stderr
    assert f"{other} against {base}" in said and "IOPS, sum" in said
    assert "no page written: no Sphinx source here" in said
    assert "no documentation to write the page into" not in said
    assert _files(work) == before
    assert sorted(p.name for p in work.iterdir()) == sorted([base, other])
