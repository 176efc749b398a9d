"""A Ceph cluster's state in each health sample (raw/ceph-health.jsonl, health.py), for a
faulted step's phases (records/phases.py), and what it recovered. Pure functions.

From the OSD map (the monitors': it changes the moment an OSD goes down or comes back)
and the PG states (the manager's digest, a second or two behind):

- healthy: every OSD that is in up, every PG active+clean (scrubbing or trimming
  snapshots besides);
- degraded: an OSD that is in is down, whatever the PG states show yet (on a real outage
  they still showed every PG clean 2 s after the OSD map had it down): the data it held
  has fewer copies, and nothing can be recovered to it;
- recovering: some PG not clean with every OSD that is in up: peering, waiting for
  recovery or backfill, recovering or backfilling (an OSD marked out is recovered from
  onto the others here).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from harness.records.phases import DEGRADED, HEALTHY, RECOVERING, Phase
from harness.testbeds.ceph import clean_pg_state

# how Ceph says its states, for the page
WORDS = (
    "Ceph, from its OSD map and PG states in the step's health samples: degraded, an OSD "
    "that is in is down; recovering, every OSD in is up and some PG not yet clean"
)


def state_of(sample: dict[str, Any]) -> str | None:
    """The cluster's state in one health sample; None when it did not answer."""
    pgs = sample.get("pgs")
    if "error" in sample or not pgs:
        return None
    osds = sample.get("osds") or {}
    up, in_ = osds.get("num_up_osds"), osds.get("num_in_osds")
    if up is not None and in_ is not None and up < in_:
        return DEGRADED  # whatever the PG states say yet: the manager's lag behind
    if all(clean_pg_state(state) for state, count in pgs.items() if count):
        return HEALTHY
    return RECOVERING


def states(samples: Sequence[dict[str, Any]]) -> list[tuple[float, str | None]]:
    return [(float(s["t"]), state_of(s)) for s in samples]


def bytes_recovered(samples: Sequence[dict[str, Any]], phase: Phase) -> float:
    """The bytes the manager's recovery rate adds up to over the phase: each sample's
    rate held until the next sample (or the phase's end)."""
    timed = sorted(samples, key=lambda s: s["t"])
    total = 0.0
    for sample, after in zip(timed, [*timed[1:], None], strict=True):
        start = max(float(sample["t"]), phase.start)
        end = min(phase.end, float(after["t"]) if after else phase.end)
        rate = (sample.get("recovery") or {}).get("recovering_bytes_per_sec", 0)
        if end > start:
            total += rate * (end - start)
    return total
