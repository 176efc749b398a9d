"""One builder per cache entry: volperf's builds (the Kubernetes binaries, the testbed's
images, the OpenStack services' venv, the Go tools) go into ~/.cache/volperf, and two
processes that need the same entry at once (two campaigns, the test suite's prebuild and
a test) must not build it twice into the same folder. The second waits for the first,
saying so, then finds the entry complete."""

from __future__ import annotations

import fcntl
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

POLL_S = 1.0
SAY_EVERY_S = 60.0


@contextmanager
def build_lock(entry: Path, say: Callable[[str], None]) -> Iterator[None]:
    """Held while this process builds ENTRY (its lock is ENTRY.lock beside it); the kernel
    drops it if the builder dies, so a killed build never blocks the next one."""
    entry.parent.mkdir(parents=True, exist_ok=True)
    with entry.with_name(f"{entry.name}.lock").open("a") as handle:
        started = next_say = time.monotonic()
        while True:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                now = time.monotonic()
                if now >= next_say:
                    minutes = (now - started) / 60
                    say(
                        f"waiting for another process that is building {entry}"
                        + (f" ({minutes:.0f} min so far)" if minutes >= 1 else "")
                    )
                    next_say = now + SAY_EVERY_S
                time.sleep(POLL_S)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
