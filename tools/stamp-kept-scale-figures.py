"""Stamp the scale figures kept before the benchmarks stamped their own (2026-11-24) with
the code of the commit that kept each measurement, read from git, so the Scale page can
say which code measured them and that it has changed since. Run once, from the checkout:

    .venv/bin/python tools/stamp-kept-scale-figures.py

A file that already carries a stamp is left as it is. The commits, from `git log` of
each file: the one whose run wrote its figures (6cb2dda only filled one more column of
the k8s files from their raw data, measuring nothing)."""

from __future__ import annotations

import json
from pathlib import Path

from harness.core.code_stamp import stamp_of_commit
from harness.report.scale_provenance import STAMP_KEY

ROOT = Path(__file__).resolve().parents[1]
KEPT_BY = {
    "k8s-namespaces/comparison-*.json": "9156c6c",
    "hosts-fleet-64.json": "9156c6c",
    "rally-sweep/comparison-c*.json": "91c9988",
    "rally-sweep/c120-again/comparison-c*.json": "26e0a47",
    "heat-vms/heat-vms-*.json": "2c9cace",
}
NOTE = (
    "stamped afterwards (tools/stamp-kept-scale-figures.py): the code of the commit that "
    "kept these figures; the run itself recorded none"
)


def main() -> None:
    scale = ROOT / "results" / "scale"
    for pattern, commit in KEPT_BY.items():
        stamp = stamp_of_commit(ROOT, commit, NOTE).to_json()
        for path in sorted(scale.glob(pattern)):
            figures = json.loads(path.read_text())
            if STAMP_KEY in figures:
                continue
            path.write_text(json.dumps({**figures, STAMP_KEY: stamp}, indent=2) + "\n")
            print(f"{path.relative_to(ROOT)}: {commit}")


if __name__ == "__main__":
    main()
