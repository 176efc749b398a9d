"""The Sphinx documentation builds with warnings as errors (what `tox -e docs` runs), with
the user guide, the command reference (from the click commands) and the spec reference
(from the pydantic models). It builds a copy of doc/source beside a copy of results/, as
they lie in the checkout: the build writes pages and tables into its sources and rewrites
kept campaigns' tables, which tests running beside it read from the checkout."""

from __future__ import annotations

import html
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

from harness.core.code_stamp import current_stamp
from harness.report.scale_provenance import SCALE_SECTIONS, STAMP_KEY
from tests.harness.helpers import REPO, doc_source_copy


def _text(page: Path) -> str:
    """A built page's text, without its markup."""
    return _text_of(page.read_text())


def _stamped_now() -> dict:
    return {STAMP_KEY: current_stamp().to_json()}


def _the_scale_page_says_which_code_measured_it(page: Path, console: str) -> None:
    """Every section names the code that measured it; the fleet's, stamped with this code,
    has no warning; a section whose kept stamps no longer match warns on the page and on
    the build's console."""
    sections = re.split(r'<section id="', page.read_text())[2:]
    by_id = {section.split('"', 1)[0]: _text_of(section) for section in sections}
    fleet = by_id["a-fleet-of-64-hosts-through-fio-s-client-server-mode"]
    assert "Measured with the code of this build" in fleet and "Warning" not in fleet
    for name, text in by_id.items():
        if name == "a-fleet-of-64-hosts-through-fio-s-client-server-mode":
            continue
        kept = [json.loads(p.read_text())[STAMP_KEY] for p in _figure_files(name)]
        if all(s["code_hash"] == current_stamp().code_hash for s in kept):
            assert "Warning" not in text, name
            continue
        assert "These figures may no longer describe volperf" in text, name
        assert "has changed since" in text and f"Scale page, {_section_of(name)}" in console
    assert sorted(by_id) == sorted(PAGE_SECTIONS)


def _text_of(markup: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", markup))


# the Scale page's sections (their ids in the built page) -> their figure files' section
PAGE_SECTIONS = {
    "kubernetes-50-100-and-250-namespaces-against-kube-burner": "k8s-namespaces",
    "a-fleet-of-64-hosts-through-fio-s-client-server-mode": "hosts-fleet",
    "rally-s-control-plane-at-2-to-120-concurrent-users-against-plain-rally": "rally-sweep",
    "heat-at-20-and-40-vms": "heat-vms",
    "a-capacity-search-on-the-heat-plane": "heat-capacity",
}


def _section_of(page_id: str) -> str:
    return PAGE_SECTIONS[page_id]


def _figure_files(page_id: str) -> list[Path]:
    return sorted((REPO / "results" / "scale").glob(SCALE_SECTIONS[_section_of(page_id)]))


def test_docs_build_without_warnings(tmp_path):
    checkout = tmp_path / "checkout"
    source = doc_source_copy(checkout)
    shutil.copytree(REPO / "results", checkout / "results")
    # one section's figures as this code would stamp them, the others as they are kept
    fleet = checkout / "results" / "scale" / "hosts-fleet-64.json"
    fleet.write_text(json.dumps({**json.loads(fleet.read_text()), **_stamped_now()}))
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
    _the_scale_page_says_which_code_measured_it(html_dir / "scale.html", result.stdout)
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
    # issue 52's study kept in results/ceph-recovery/: an OSD's outage under two mClock
    # profiles, phase by phase, the profile a difference of method that keeps the meaning
    study = html_dir / "test_results" / "compare-high-client-ops-vs-high-recovery-ops"
    page = _text(study / "index.html")
    assert "high-recovery-ops against high-client-ops" in page
    assert "osd_mclock_profile" in page and "high_recovery_ops" in page
    assert "phase degraded" in page and "fault to healed" in page
    # and each of its campaigns' pages (results/ceph-recovery/pages.yaml), the phases as
    # bands on IOPS per second and Ceph's words for them
    for campaign in ("high-client-ops", "high-recovery-ops"):
        page = _text(html_dir / "test_results" / campaign / "index.html")
        assert "Phases of the backend" in page and "OSD map and PG states" in page
    # the node crash kept in results/k8s-node-crash/: Kubernetes' words for its phases
    page = _text(html_dir / "test_results" / "k8s-node-crash" / "index.html")
    assert "Phases of the backend" in page and "crash-node volperf-node-2" in page
    assert "Ready condition and cordon" in page
    # a command's option as typed, not made a dash
    assert "volperf testbed crash-node k8s volperf-node-2 --state <testbed>" in page
    # what is kept in results/ is current with this code: the build, which derives every
    # kept campaign's tables again, leaves each file as the checkout has it (a record that
    # gained a field and a summary kept without it would differ)
    assert _changed_files(checkout / "results", REPO / "results") == [
        str(fleet.relative_to(checkout / "results"))
    ]


def _changed_files(built: Path, kept: Path) -> list[str]:
    """The files of ``kept`` (relative to it) that ``built`` holds with other bytes, or not
    at all."""
    changed = []
    for path in sorted(p for p in kept.rglob("*") if p.is_file()):
        copy = built / path.relative_to(kept)
        if not copy.is_file() or copy.read_bytes() != path.read_bytes():
            changed.append(str(path.relative_to(kept)))
    return changed
