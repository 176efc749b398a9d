"""The provisioning step's pace of create requests (kube-burner's qps and burst)."""

from __future__ import annotations

import threading
import time

import pytest

from harness.planes.k8s.provision_target import Pace


@pytest.mark.quiet  # a burst within 50 ms, then 10 ms apart
def test_the_creators_pace_holds_the_rate_after_a_burst():
    """Pace(qps, burst): the first ``burst`` calls go at once, the rest one every 1/qps
    seconds, whichever thread asks."""
    pace, sent = Pace(100, burst=5), []

    def send():
        for _ in range(5):
            pace.wait()
            sent.append(time.monotonic())

    started = time.monotonic()
    threads = [threading.Thread(target=send) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    sent.sort()
    assert sent[4] - started < 0.05  # the burst
    assert sent[-1] - started >= (15 - 5) * 0.01 - 0.002  # 10 more, 10 ms apart
    assert Pace(None).interval == 0  # no limit: wait returns at once
