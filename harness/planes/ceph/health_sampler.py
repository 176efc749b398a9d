"""Sample the cluster's health every few seconds during a step, into raw/ceph-health.jsonl.

One librados connection on a thread of its own, asking the monitors for `status` (what
`ceph -s -f json` prints) and every OSD for its perf counters (`ceph tell osd.N perf dump
osd`, kept as osd_perf.py says) without starting a `ceph` process each time (~0.3 CPU-s
each), and once more when the step ends if the cluster answers. Each line is written as
taken, with what taking it cost (wall time, and the CPU time volperf's process used
meanwhile: an upper bound, since librados works on threads of its own). An unreachable
cluster gives {t, error} lines and the step goes on.
"""

from __future__ import annotations

import contextlib
import json
import time
from pathlib import Path
from typing import Any

from harness.host.sampler import SamplerThread
from harness.planes.ceph.access import CephAccess, CephError, mon_command, osd_perf_dump
from harness.planes.ceph.health import sample_of
from harness.planes.ceph.osd_perf import counters_of

CONNECT_TIMEOUT_S = 5


def _osd_perf(cluster: Any) -> dict[str, Any]:
    """Each OSD's perf counters (osd_perf.counters_of), or why it did not answer (a user
    without the caps to ask: {"error": ...})."""
    found: dict[str, Any] = {}
    try:
        osds = mon_command(cluster, "osd ls")
    except (CephError, ValueError) as exc:
        return {"error": str(exc)}
    for osd in osds:
        try:
            found[str(osd)] = counters_of(osd_perf_dump(cluster, int(osd), CONNECT_TIMEOUT_S))
        except (CephError, ValueError, KeyError) as exc:
            found[str(osd)] = {"error": str(exc)}
    return found


class CephHealthSampler(SamplerThread):
    join_timeout_s = CONNECT_TIMEOUT_S + 15  # a sample under way may be a connect attempt

    def __init__(self, output: Path, access: CephAccess, interval_s: float = 2.0):
        super().__init__(output, interval_s, "ceph-health")
        self.access = access

    def _run(self) -> None:
        with self.output.open("a", encoding="utf-8") as out, contextlib.ExitStack() as stack:
            cluster: Any = None

            def take() -> float:
                """One sample into the file, as it is taken; when it began (monotonic)."""
                nonlocal cluster
                t, wall, cpu = time.time(), time.monotonic(), time.process_time()
                try:
                    if cluster is None:
                        cluster = stack.enter_context(self.access.cluster(CONNECT_TIMEOUT_S))
                    sample = sample_of(mon_command(cluster, "status"), t)
                    sample["osd_perf"] = _osd_perf(cluster)  # never fails the sample
                except (CephError, OSError, ValueError) as exc:
                    sample = {"t": t, "error": str(exc)}
                except Exception as exc:  # librados' own errors: keep sampling regardless
                    sample = {"t": t, "error": f"{type(exc).__name__}: {exc}"}
                sample["wall_ms"] = round((time.monotonic() - wall) * 1000, 3)
                sample["cpu_ms"] = round((time.process_time() - cpu) * 1000, 3)
                out.write(json.dumps(sample) + "\n")
                out.flush()
                return wall

            while True:
                wall = take()
                if self._stop.wait(max(0.0, self.interval_s - (time.monotonic() - wall))):
                    if cluster is not None:  # the step's end: its last seconds between two samples
                        take()
                    return
