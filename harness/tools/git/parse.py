"""workload.sh's output: the repository it generated and every timed phase.

volperf-git repo files=2000 size=8192 commits=20 pack_kib=13197
volperf-git iteration=1 phase=clone start=12456.42 end=12457.16 seconds=0.74 status=ok
volperf-git error iteration=2 phase=untar: tar: short read
volperf-git done iterations=3
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

PHASES = ("clone", "tar", "untar", "rm")
_FIELDS = re.compile(r"(\w+)=(\S+)")


class GitOutputError(ValueError):
    """Output that is not workload.sh's: the message quotes the line."""


@dataclass(frozen=True)
class GitPhase:
    iteration: int
    phase: str
    seconds: float
    ok: bool


@dataclass(frozen=True)
class GitRun:
    repo: dict[str, int] = field(default_factory=dict)  # files, size, commits, pack_kib
    phases: tuple[GitPhase, ...] = ()
    errors: tuple[str, ...] = ()  # each failed phase's last output line
    finished: bool = False  # the "done" line: every iteration was tried

    @property
    def failed(self) -> int:
        return sum(not p.ok for p in self.phases)


def parse(text: str) -> GitRun:
    repo: dict[str, int] = {}
    phases: list[GitPhase] = []
    errors: list[str] = []
    finished = False
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.startswith("volperf-git "):
            continue
        rest = line[len("volperf-git ") :]
        try:
            if rest.startswith("error "):
                errors.append(rest[len("error ") :])
            elif rest.startswith("repo "):
                repo = {k: int(v) for k, v in _FIELDS.findall(rest)}
            elif rest.startswith("done "):
                finished = True
            else:
                values = dict(_FIELDS.findall(rest))
                if values["phase"] not in PHASES or values["status"] not in ("ok", "failed"):
                    raise KeyError(values["phase"])
                phases.append(
                    GitPhase(
                        int(values["iteration"]),
                        values["phase"],
                        float(values["seconds"]),
                        values["status"] == "ok",
                    )
                )
        except (KeyError, ValueError):
            raise GitOutputError(f"line {number} is not workload.sh's: {line!r}") from None
    return GitRun(repo, tuple(phases), tuple(errors), finished)
