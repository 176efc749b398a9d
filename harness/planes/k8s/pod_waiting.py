"""Whether a pod's waiting container will start if volperf waits longer.

Some waiting reasons never clear by themselves (an image that cannot be pulled, a crash
loop): a target gives up on the pod at once. CreateContainerConfigError does clear when
it comes from a kubelet just back up, before its caches of ConfigMaps and Secrets are
synced ("configmap ... not registered"; seen here on a node brought back after a drain):
a target gives up on it only once it has lasted a grace period.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field

# a container waiting for one of these will not start by waiting longer
WAITING_FAILURES = (
    "ErrImagePull",
    "ImagePullBackOff",
    "ErrImageNeverPull",
    "CrashLoopBackOff",
    "InvalidImageName",
)
# nor for one of these once it has lasted this long (seconds, per pod)
WAITING_FAILURES_AFTER_S = {"CreateContainerConfigError": 30.0}


@dataclass
class WaitingWatch:
    """Per pod (any key), since when it has waited for a reason of WAITING_FAILURES_AFTER_S."""

    clock: Callable[[], float] = time.monotonic
    since: dict[Hashable, tuple[str, float]] = field(default_factory=dict)

    def hopeless(self, pod: Hashable, reason: str) -> bool:
        """Whether ``pod``, waiting for ``reason`` now ('' when it is not waiting), will
        not start by waiting longer."""
        if reason in WAITING_FAILURES:
            return True
        grace = WAITING_FAILURES_AFTER_S.get(reason)
        if grace is None:
            self.since.pop(pod, None)
            return False
        now = self.clock()
        seen_reason, first = self.since.get(pod, (None, now))
        if seen_reason != reason:
            self.since[pod] = (reason, now)
            return False
        return now - first >= grace
