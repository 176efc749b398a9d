"""Every target a campaign can be given (each plane's, and `volperf collect heat`'s)
declares what the Target protocol says a campaign reads of it: its folder under test
(None where its storage is no folder here) and its tools' versions. (`volperf collect
heat` once reached a target without ``path`` only in a suite run's OpenStack group.)"""

from __future__ import annotations

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
