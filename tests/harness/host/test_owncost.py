"""volperf's own cost, read from the kernel's accounting of this process, against the
same counters read here from /proc/self."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

from harness.host import owncost

TICKS = os.sysconf("SC_CLK_TCK")


def proc_cpu_s() -> float:
    """utime + stime of this process (all threads) from /proc/self/stat."""
    fields = Path("/proc/self/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def proc_rss_bytes(field: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) * 1024
    raise AssertionError(field)


def burn(seconds: float) -> None:
    end = time.thread_time() + seconds  # this thread's own CPU time
    while time.thread_time() < end:
        sum(range(1000))


def test_cpu_of_every_thread_is_counted_as_proc_counts_it():
    meter = owncost.CostMeter().start()
    before = proc_cpu_s()
    helper = threading.Thread(target=burn, args=(0.3,))
    helper.start()
    burn(0.3)
    helper.join()
    cost = meter.finish()
    assert cost.cpu_s >= 0.55  # both threads' work
    assert abs(cost.cpu_s - (proc_cpu_s() - before)) <= 0.03


def test_the_peak_is_the_steps_own_after_a_reset():
    meter = owncost.CostMeter().start()
    block = bytearray(256 * 2**20)
    block[::4096] = b"x" * len(block[::4096])  # touch every page: resident
    high = proc_rss_bytes("VmRSS")
    del block
    first = meter.finish()
    assert first.peak_since == "step"
    # the kernel batches a thread's RSS counts: the mark may trail by a few pages
    assert first.peak_rss_bytes >= high - 2**20 and high >= 256 * 2**20
    second = owncost.CostMeter().start().finish()  # nothing allocated in this one
    assert second.peak_rss_bytes < first.peak_rss_bytes - 200 * 2**20
    assert abs(second.peak_rss_bytes - proc_rss_bytes("VmHWM")) <= 2**20


def test_api_calls_are_counted_by_service_over_the_meters_span():
    owncost.count_api_call("kubernetes")
    meter = owncost.CostMeter().start()
    for _ in range(3):
        owncost.count_api_call("kubernetes")
    owncost.count_api_call("openstack")
    assert meter.finish().api_calls == {"kubernetes": 3, "openstack": 1}
    assert owncost.CostMeter().start().finish().api_calls == {}


def test_a_part_counts_the_cpu_and_calls_of_the_threads_working_for_it():
    """Inside spent_on: this thread's CPU and API calls also go to the part; a thread it
    starts only when that thread enters spent_on itself; outside, nothing does."""
    meter = owncost.CostMeter().start()
    burn(0.1)  # the step's own
    owncost.count_api_call("kubernetes")

    def sampler_thread() -> None:
        with owncost.spent_on("sampler"):
            burn(0.2)
            owncost.count_api_call("kubernetes")

    with owncost.spent_on("sampler"):
        burn(0.3)
        owncost.count_api_call("kubernetes")
        owncost.count_api_call("kubernetes")
        other = threading.Thread(target=burn, args=(0.2,))  # not the part's
        other.start()
        other.join()
    helper = threading.Thread(target=sampler_thread)
    helper.start()
    helper.join()
    cost = meter.finish()
    assert cost.api_calls == {"kubernetes": 4}
    [(name, part)] = cost.parts.items()
    assert name == "sampler" and part["api_calls"] == {"kubernetes": 3}
    assert 0.5 - 0.02 <= part["cpu_s"] <= 0.5 + 0.05  # 0.3 here + 0.2 in its own thread
    assert cost.cpu_s >= 0.8 - 0.03
    assert owncost.CostMeter().start().finish().parts == {}
