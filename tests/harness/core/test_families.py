"""The families the shared layers and the planes compare a workload's with are the
families the registry declares (a misspelt one matches no workload, and the code behind
it never runs: "db" for "database" once skipped every check of the local database
target)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import get_args

from harness.core.workloads.base import Family
from harness.core.workloads.registry import TOOLS

HARNESS = Path(__file__).parents[3] / "harness"
NAMED = re.compile(r"""family_of\([^)]*\) [!=]= "([^"]+)"|"([^"]+)" in families\(""")


def test_every_family_the_code_names_is_declared_and_has_a_tool():
    declared = set(get_args(Family))
    assert {t.family for t in TOOLS} == declared
    named = {
        (path.relative_to(HARNESS.parent), a or b)
        for path in HARNESS.rglob("*.py")
        for a, b in NAMED.findall(path.read_text(encoding="utf-8"))
    }
    assert named, "no family comparison found: the pattern no longer matches the code"
    assert {(path, family) for path, family in named if family not in declared} == set()
