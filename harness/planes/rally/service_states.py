"""Cinder's state through a Rally step given service faults, as Cinder itself says it:
once a second, every Cinder service's state and status (``GET /os-services``) and the
backends' pools the scheduler has heard of (``GET /scheduler-stats/get_pools``), one JSON
line each in raw/openstack-services.jsonl (written as taken: an interrupted step keeps
what was sampled). The state in each sample (``state_of``) gives the workload's phases
(records/phases.py):

- degraded: an enabled service is down;
- recovering: every enabled service up, but a cinder-volume backend not yet reported to
  the scheduler (it has no pool there: a volume create fails with "No valid backend");
- healthy: every enabled service up and every cinder-volume backend's pools reported.

Cinder says a service is down only once its last report is older than its
service_down_time (60 s by default): its phases start then, not at the fault (which the
page marks apart)."""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from harness.host.sampler import SamplerThread, read_samples
from harness.records.phases import DEGRADED, HEALTHY, RECOVERING

STATES_FILE = "openstack-services.jsonl"
INTERVAL_S = 1.0
VOLUME = "cinder-volume"
# how Cinder says its states, for the page
WORDS = (
    "Cinder, from its services' states and its scheduler's pools, sampled once a second: "
    "degraded, an enabled service down (Cinder says so once the service's last report is "
    "older than its service_down_time, 60 s by default); recovering, every service up and "
    "a cinder-volume backend not yet reported to the scheduler"
)


def state_of(sample: dict[str, Any]) -> str | None:
    """Cinder's state in one sample (None: the sample has no answer)."""
    services = sample.get("services")
    if not services:
        return None
    enabled = [s for s in services if s.get("status") != "disabled"]
    if any(s["state"] != "up" for s in enabled):
        return DEGRADED
    pools = {str(p).partition("#")[0] for p in sample.get("pools") or []}
    volumes = [s for s in enabled if s["binary"] == VOLUME]
    return RECOVERING if any(s["host"] not in pools for s in volumes) else HEALTHY


def states(samples: Sequence[dict[str, Any]]) -> list[tuple[float, str | None]]:
    return [(float(s["t"]), state_of(s)) for s in samples]


def sampled_states(raw: Path) -> list[tuple[float, str | None]]:
    """Cinder's state in each of the step's samples (none: the step kept none)."""
    return states(read_samples(raw / STATES_FILE))


class ServiceStateSampler(SamplerThread):
    """Samples Cinder's services and pools through ``connection`` (openstacksdk's) until
    its block ends."""

    def __init__(self, raw: Path, connection: Any):
        super().__init__(raw / STATES_FILE, INTERVAL_S, "openstack-services")
        self.connection = connection

    def take(self) -> dict[str, Any]:
        """One sample, stamped ``t`` when Cinder's answers came (Cinder judged the state
        between ``asked_t`` and ``t``: on a busy host that can be seconds, and a phase
        begins at a sample that already says so, never before)."""
        asked = time.time()
        storage = self.connection.block_storage
        try:
            services = list(storage.services())
            pools = [pool.name for pool in storage.backend_pools()]
        except Exception as exc:  # the API down or slow: the sample says so, None
            return {
                "t": time.time(),
                "asked_t": asked,
                "error": f"{type(exc).__name__}: {exc}"[:300],
            }
        sample: dict[str, Any] = {"t": time.time(), "asked_t": asked}
        sample["services"] = [
            {
                "binary": s.binary,
                "host": s.host,
                "state": s.state,
                "status": s.status,
                "updated_at": s.updated_at,
            }
            for s in services
        ]
        sample["pools"] = pools
        return sample

    def _run(self) -> None:
        self._take_until_stopped(self.take)
