"""Every target a campaign can be given (each plane's, and `volperf collect heat`'s)
declares what the Target protocol says a campaign reads of it: its folder under test
(None where its storage is no folder here) and its tools' versions. (`volperf collect
heat` once reached a target without ``path`` only in a suite run's OpenStack group.)"""

from __future__ import annotations

import subprocess
import sys
import typing

from harness.planes.base import LazyTarget, Target
from harness.planes.heat.target import HeatCollectTarget
from harness.planes.local.fio_target import LocalFioTarget
from harness.planes.registry import planes


def _declares(cls: type, member: str) -> bool:
    return hasattr(cls, member) or any(
        member in getattr(base, "__annotations__", {}) for base in cls.__mro__
    )


def test_every_target_declares_what_the_protocol_says():
    protocol = {
        name for name in [*typing.get_type_hints(Target), *vars(Target)] if not name.startswith("_")
    }
    assert {"backend", "path", "tool_versions", "prepare", "run_step", "cleanup"} <= protocol
    made = [make for plane in planes() for make in plane.targets.values()]
    targets = [make.load() if isinstance(make, LazyTarget) else make for make in made]
    targets += [HeatCollectTarget, LocalFioTarget]  # collect heat's; the tests' own
    assert len(targets) == 7
    missing = [
        (cls.__name__, name)
        for cls in targets
        for name in sorted(protocol - {"backend"})  # a property of some, set by others
        if not _declares(cls, name)
    ]
    assert missing == []


def test_a_local_campaign_starts_without_the_records_or_other_planes(tmp_path):
    """What a local campaign loads before its first step: its own plane and target, not
    the record builders (imported once a step has run) nor another plane's modules."""
    script = f"""
import sys
from pathlib import Path
import harness.campaign.run, harness.cli.display
from harness.campaign.profiles import local_spec
from harness.planes.registry import make_target
make_target(local_spec("quick", Path({str(tmp_path)!r}), "lazy"))
print(" ".join(sorted(m for m in sys.modules if m.startswith("harness."))))
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    loaded = set(done.stdout.split())
    assert {"harness.planes.local.plane", "harness.planes.local.target"} <= loaded
    later = {"harness.campaign.results", "harness.records.step", "harness.records.db_step"}
    later |= {"harness.records.app_step", "harness.records.sweep_stop"}
    others = {m for m in loaded if m.startswith("harness.planes.") and ".local" not in m}
    assert loaded & later == set()
    assert others <= {"harness.planes.base", "harness.planes.registry", "harness.planes.fio_step"}
