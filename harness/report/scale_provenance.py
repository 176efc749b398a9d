"""Whether the Scale page's figures still describe volperf: each kept figure file of the
scale benchmarks (results/scale/) carries the stamp of the code that measured it
(``measured_with``, harness/core/code_stamp.py); the documentation build writes, for each
section of the page, which version and commit measured its figures and, when the code of
the planes, the records or the host layer has changed since (or a file carries no stamp),
a warning on the page and on the build's console."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from harness.core.code_stamp import MEASURED_CODE, CodeStamp, code_hash

STAMP_KEY = "measured_with"

# each section of the Scale page -> the figure files (under results/scale/) it shows
SCALE_SECTIONS = {
    "k8s-namespaces": "k8s-namespaces/comparison-*.json",
    "hosts-fleet": "hosts-fleet-*.json",
    "rally-sweep": "rally-sweep/**/comparison-c*.json",
    "heat-vms": "heat-vms/heat-vms-*.json",
    "heat-capacity": "heat-capacity/heat-capacity.json",
}


@dataclass(frozen=True)
class Provenance:
    """What a section's figure files say of the code that measured them."""

    files: tuple[str, ...]  # relative to results/scale/
    stamps: dict[str, CodeStamp]  # file -> its stamp (files without one are missing here)
    now: str  # code_hash() of the code building the page

    @property
    def unstamped(self) -> list[str]:
        return [f for f in self.files if f not in self.stamps]

    @property
    def changed(self) -> dict[str, CodeStamp]:
        return {f: s for f, s in self.stamps.items() if s.code_hash != self.now}

    @property
    def current(self) -> bool:
        return bool(self.files) and not self.unstamped and not self.changed


def provenance(kept: Path, pattern: str, now: str) -> Provenance:
    files = sorted(p for p in kept.glob(pattern) if p.is_file())
    stamps = {}
    for file in files:
        stamp = json.loads(file.read_text()).get(STAMP_KEY)
        if stamp:
            stamps[file.relative_to(kept).as_posix()] = CodeStamp.from_json(stamp)
    names = tuple(f.relative_to(kept).as_posix() for f in files)
    return Provenance(names, stamps, now)


def _commit(stamp: CodeStamp) -> str:
    when = f" ({stamp.commit_date[:10]})" if stamp.commit_date else ""
    commit = f"commit ``{stamp.commit[:12]}``{when}" if stamp.commit else "no git commit"
    dirty = f", {stamp.uncommitted} of its files uncommitted" if stamp.uncommitted else ""
    return f"volperf {stamp.version} at {commit}{dirty}"


def _measured_by(found: Provenance) -> list[str]:
    """One line per distinct code that measured the section's files."""
    by_code: dict[tuple[str, str], list[str]] = {}
    for file, stamp in found.stamps.items():
        by_code.setdefault((_commit(stamp), stamp.note), []).append(file)
    lines = []
    for (commit, note), files in sorted(by_code.items()):
        said = f"{commit}: {', '.join(f'``{f}``' for f in files)}"
        lines.append(said + (f" ({note})" if note else ""))
    return lines


def section_note(found: Provenance) -> tuple[str, list[str]]:
    """The RST the section's page shows, and the warnings for the build's console."""
    if not found.files:
        return "The figure files are not beside these sources.\n", []
    folders = ", ".join(f"``{folder}``" for folder in MEASURED_CODE)
    lines = _measured_by(found)
    if found.current:
        text = (
            f"**Measured with** the code of this build ({folders} unchanged, hash "
            f"``{found.now[:12]}``):\n\n" + "".join(f"- {line}\n" for line in lines)
        )
        return text + "\n", []
    problems = []
    if found.changed:
        then = sorted({s.code_hash[:12] for s in found.changed.values()})
        share = len(found.changed), len(found.files)
        which = f"all {share[1]}" if share[0] == share[1] else f"{share[0]} of the {share[1]}"
        problems.append(
            f"the code of {folders} has changed since {which} of its figure files were "
            f"measured (hash then {', '.join(f'``{h}``' for h in then)}, now "
            f"``{found.now[:12]}``)"
        )
    if found.unstamped:
        problems.append(
            f"{len(found.unstamped)} figure files carry no record of the code that "
            f"measured them ({', '.join(f'``{f}``' for f in found.unstamped)})"
        )
    said = "; ".join(problems)
    text = (
        f".. warning::\n\n   These figures may no longer describe volperf: {said}. Run "
        "the benchmark below again to measure them on this code.\n\n"
    )
    if lines:
        text += "   Measured with:\n\n" + "".join(f"   - {line}\n" for line in lines) + "\n"
    return text, [said.replace("``", "")]


def write_scale_provenance(
    kept: Path, directory: Path, warn: Callable[[str], None] = print
) -> dict[str, bool]:
    """Each section's note into ``directory``/measured-SECTION.rst (the Scale page includes
    them); each warning also through ``warn``. Returns, per section, whether its figures
    were measured with the code of this build."""
    now = code_hash()
    current = {}
    for section, pattern in SCALE_SECTIONS.items():
        found = provenance(kept, pattern, now)
        text, warnings = section_note(found)
        (directory / f"measured-{section}.rst").write_text(text)
        for warning in warnings:
            warn(f"Scale page, {section}: {warning}")
        current[section] = found.current
    return current
