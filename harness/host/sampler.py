"""Sample host CPU, memory and the device under test once a second during a step.

Each sample is one JSON line in raw/host.jsonl, written as it is taken so an
interrupted step keeps what was sampled. The latest device rate feeds the live display.
The same tick writes the host's whole load (every disk, every interface) to
raw/nodes/host.log in the node-sample format (node_snapshot.py).
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from pathlib import Path
from types import TracebackType
from typing import Any, Self

from harness.host.hoststats import (
    BlockDevice,
    DiskCounters,
    parse_cpu,
    parse_diskstats,
    parse_meminfo,
    rates_between,
)
from harness.host.node_snapshot import HOST_NODE, NODES_DIR, snapshot_lines

INTERVAL_S = 1.0


def read_sample(device: BlockDevice | None) -> dict[str, object]:
    sample: dict[str, object] = {"t": time.time()}
    busy, total = parse_cpu(Path("/proc/stat").read_text())
    sample["cpu"] = {"busy": busy, "total": total}
    sample["mem_kib"] = parse_meminfo(Path("/proc/meminfo").read_text())
    if device is not None:
        counters = parse_diskstats(Path("/proc/diskstats").read_text(), device)
        if counters is not None:
            sample["disk"] = {"device": device.name, **counters.__dict__}
    return sample


def disk_counters(sample: dict[str, object]) -> DiskCounters | None:
    disk = sample.get("disk")
    if not isinstance(disk, dict):
        return None
    return DiskCounters(disk["reads"], disk["read_sectors"], disk["writes"], disk["write_sectors"])


def read_samples(path: Path) -> list[dict[str, Any]]:
    """The samples a sampler wrote; a line cut short by a crash is skipped."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError:
        return []
    samples = []
    for line in lines:
        try:
            samples.append(json.loads(line))
        except json.JSONDecodeError:
            continue  # the rest still count
    return samples


class SamplerThread:
    """A daemon thread that writes samples to a JSON-lines file until its block ends."""

    join_timeout_s = 5.0

    def __init__(self, output: Path, interval_s: float, name: str):
        self.output = output
        self.interval_s = interval_s
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)

    def __enter__(self) -> Self:
        self._thread.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._stop.set()
        self._thread.join(timeout=self.join_timeout_s)

    def _run(self) -> None:
        raise NotImplementedError

    def _take_until_stopped(self, take: Callable[[], dict[str, Any]]) -> None:
        """``take()``'s sample written as a JSON line every interval until the block ends
        (each line flushed as taken: an interrupted run keeps what was sampled)."""
        with self.output.open("a", encoding="utf-8") as out:
            while True:
                out.write(json.dumps(take()) + "\n")
                out.flush()
                if self._stop.wait(self.interval_s):
                    return


class HostSampler(SamplerThread):
    def __init__(self, output: Path, device: BlockDevice | None, interval_s: float = INTERVAL_S):
        super().__init__(output, interval_s, "host-sampler")
        self.device = device
        self.live_iops: float | None = None

    def _run(self) -> None:
        previous: dict[str, object] | None = None
        node_log = self.output.parent / NODES_DIR / f"{HOST_NODE}.log"
        node_log.parent.mkdir(exist_ok=True)
        with (
            self.output.open("a", encoding="utf-8") as out,
            node_log.open("a", encoding="utf-8") as node,
        ):

            def take() -> dict[str, object]:
                """One sample into both files, as it is taken."""
                sample = read_sample(self.device)
                out.write(json.dumps(sample) + "\n")
                out.flush()
                node.write(snapshot_lines(float(sample["t"])))  # type: ignore[arg-type]
                node.flush()
                return sample

            while True:
                sample = take()
                self._update_live(previous, sample)
                previous = sample
                if self._stop.wait(self.interval_s):
                    take()
                    return

    def _update_live(self, previous: dict[str, object] | None, sample: dict[str, object]) -> None:
        if previous is None:
            return
        a, b = disk_counters(previous), disk_counters(sample)
        seconds = float(sample["t"]) - float(previous["t"])  # type: ignore[arg-type]
        if a is not None and b is not None and seconds > 0:
            self.live_iops = rates_between(a, b, seconds).iops
