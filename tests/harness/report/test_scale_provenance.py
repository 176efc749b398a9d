"""Each section of the Scale page says which code measured its figure files: no warning
when every file carries the stamp of this build's code, a warning on the page and on the
build's console when a stored hash no longer matches or a file carries none."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

from harness.core.code_stamp import current_stamp
from harness.report.scale_provenance import (
    SCALE_SECTIONS,
    STAMP_KEY,
    provenance,
    write_scale_provenance,
)

KEPT = Path(__file__).parents[3] / "results" / "scale"


def _figures(path: Path, stamp: dict | None) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    figures = {"namespaces": 50} | ({STAMP_KEY: stamp} if stamp else {})
    path.write_text(json.dumps(figures))


def test_figures_of_this_code_carry_no_warning(tmp_path):
    kept, out = tmp_path / "scale", tmp_path / "out"
    out.mkdir()
    now = current_stamp()
    _figures(kept / "k8s-namespaces" / "comparison-50.json", now.to_json())
    _figures(kept / "k8s-namespaces" / "comparison-100.json", now.to_json())
    warned: list[str] = []
    current = write_scale_provenance(kept, out, warned.append)
    assert current["k8s-namespaces"] is True and warned == []
    text = (out / "measured-k8s-namespaces.rst").read_text()
    assert "warning" not in text and "**Measured with** the code of this build" in text
    assert f"volperf {now.version}" in text and now.code_hash[:12] in text
    assert "``k8s-namespaces/comparison-100.json``, ``k8s-namespaces/comparison-50.json``" in text
    if now.commit:
        assert now.commit[:12] in text


def test_a_hash_that_no_longer_matches_warns_on_the_page_and_the_console(tmp_path):
    kept, out = tmp_path / "scale", tmp_path / "out"
    out.mkdir()
    now = current_stamp()
    old = replace(now, commit="0123456789abcdef", commit_date="2026-11-24T08:00:00+00:00")
    old = replace(old, code_hash="f" * 64, note="stamped afterwards")
    _figures(kept / "rally-sweep" / "comparison-c2-volperf-first.json", old.to_json())
    _figures(kept / "rally-sweep" / "again" / "comparison-c120-rally-first.json", now.to_json())
    _figures(kept / "heat-vms" / "heat-vms-20.json", None)
    warned: list[str] = []
    current = write_scale_provenance(kept, out, warned.append)
    assert current == {s: False for s in SCALE_SECTIONS}
    rally = (out / "measured-rally-sweep.rst").read_text()
    assert rally.startswith(".. warning::")
    assert "has changed since 1 of the 2 of its figure files were measured" in rally
    assert f"hash then ``ffffffffffff``, now ``{now.code_hash[:12]}``" in rally
    assert "commit ``0123456789ab`` (2026-11-24)" in rally and "(stamped afterwards)" in rally
    heat = (out / "measured-heat-vms.rst").read_text()
    assert "1 figure files carry no record of the code" in heat and heat.startswith(".. warn")
    assert (out / "measured-k8s-namespaces.rst").read_text().startswith("The figure files are not")
    assert [w.split(":")[0] for w in warned] == ["Scale page, rally-sweep", "Scale page, heat-vms"]


def test_every_kept_figure_file_carries_a_stamp():
    """The kept figures name the code that measured them (stamped afterwards when they
    were kept before the benchmarks stamped their own)."""
    now = current_stamp().code_hash
    for pattern in SCALE_SECTIONS.values():
        found = provenance(KEPT, pattern, now)
        assert found.files and found.unstamped == [], pattern
        assert all(s.commit and s.version for s in found.stamps.values())
