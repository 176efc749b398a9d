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


def test_one_at_a_time_each_goes_an_interval_after_the_one_before_went(monkeypatch):
    """Pace(qps, burst=1): a call whose sleep ended late pushes the next one back (on a
    virtual schedule the next would go at its own slot, less than an interval after)."""
    late = [0.012, 0.0]  # how far past its time each sleep ends

    class Clock:
        now = 100.0

        def monotonic(self) -> float:
            return self.now

        def time(self) -> float:  # Unix time, 1,000 s ahead of the monotonic clock
            return self.now + 1000.0

        def sleep(self, seconds: float) -> None:
            self.now += seconds + late.pop(0)

    clock = Clock()
    monkeypatch.setattr("harness.planes.k8s.provision_target.time", clock)
    pace, went, stamps = Pace.per_minute(120), [], []
    for _ in range(3):
        stamps.append(pace.wait())
        went.append(clock.now)
        clock.now += 0.007  # the caller runs late after it was let go: not in its stamp
    assert went[0] == 100.0  # the first at once
    assert went[1] == pytest.approx(100.512)  # 12 ms late
    assert went[2] - went[1] == pytest.approx(0.5)  # an interval after the late one
    # the stamps are the moments each was let go, as Unix milliseconds
    assert stamps == [round((t + 1000.0) * 1000) for t in went]
    assert stamps[2] - stamps[1] == 500
