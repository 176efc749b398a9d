"""The Sphinx documentation builds with warnings as errors (what `tox -e docs` runs), with
the user guide, the command reference (from the click commands) and the spec reference
(from the pydantic models). It builds a copy of doc/source beside a copy of results/, as
they lie in the checkout: the build writes pages and tables into its sources and rewrites
kept campaigns' tables, which tests running beside it read from the checkout."""

from __future__ import annotations

import html
import re
import shutil
import subprocess
import sys
from pathlib import Path

from tests.harness.helpers import REPO, doc_source_copy


def _text(page: Path) -> str:
    """A built page's text, without its markup."""
    return html.unescape(re.sub(r"<[^>]+>", "", page.read_text()))


def test_docs_build_without_warnings(tmp_path):
    checkout = tmp_path / "checkout"
    source = doc_source_copy(checkout)
    shutil.copytree(REPO / "results", checkout / "results")
    html_dir = tmp_path / "html"
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
            str(source),
            str(html_dir),
        ],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr
    assert "fio.csv" in (html_dir / "campaigns.html").read_text()
    guide = _text(html_dir / "guide.html")
    for section in ("Your own disk", "Your own Ceph", "Your own OpenStack", "Your own Kubernetes"):
        assert section in guide
    commands = _text(html_dir / "reference" / "commands.html")
    for command in ("volperf run", "volperf history", "volperf spec check", "--threshold"):
        assert command in commands
    spec = _text(html_dir / "reference" / "spec.html")
    for field in ("iodepth", "storage_class", "start_stagger", "clouds_yaml"):
        assert field in spec
    assert "seconds between consumers" in spec  # a field's description
    # the comparison kept in results/storage-types/, its page written anew by the build
    study = html_dir / "test_results" / "compare-bare-host-vs-k8s-local-static-k8s-ceph-fs"
    page = _text(study / "index.html")
    assert "The figures in short" in page and "k8s-ceph-fs against bare-host" in page
