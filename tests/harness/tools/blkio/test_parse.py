from __future__ import annotations

from pathlib import Path

import pytest

from harness.tools.blkio.command import counters_line
from harness.tools.blkio.parse import BlockCounters, CountersUnavailable, parse_counters

FIXTURES = Path(__file__).parents[1] / "fixtures" / "blkio"  # capture.py made them


def _fixture(name: str) -> str:
    return (FIXTURES / name).read_text()


def test_cgroup_v1_counts_of_the_data_disk():
    after = parse_counters(_fixture("v1-after.txt"))
    assert after == BlockCounters(
        "254:0", "vda", "cgroup v1 blkio.throttle", 322, 40, 21037056, 20971520
    )
    assert after.seen


def test_a_fresh_cgroup_and_a_kernel_not_counting_are_zero_and_not_seen():
    for name in ("v1-before.txt", "v1-inactive.txt"):
        before = parse_counters(_fixture(name))
        assert (before.read_ios, before.write_bytes, before.seen) == (0, 0, False)


def test_what_was_counted_between_two_readings():
    before = parse_counters(_fixture("v1-before.txt"))
    done = parse_counters(_fixture("v1-after.txt")).minus(before)
    assert (done.read_ios, done.write_ios, done.read_bytes) == (322, 40, 21037056)
    assert done.seen


# io.stat's format as Documentation/admin-guide/cgroup-v2.rst shows it (this machine
# runs cgroup v1: no v2 output could be captured here)
IO_STAT = """== disk 8:16
MAJOR=8
MINOR=16
DEVNAME=sdb
== io.stat
8:16 rbytes=1459200 wbytes=314773504 rios=192 wios=353 dbytes=0 dios=0
8:0 rbytes=90430464 wbytes=299008000 rios=8950 wios=1252 dbytes=50331648 dios=3021
"""


def test_cgroup_v2_io_stat_of_the_data_disk_only():
    counters = parse_counters(IO_STAT)
    assert counters == BlockCounters(
        "8:16", "sdb", "cgroup v2 io.stat", 192, 353, 1459200, 314773504
    )
    idle = parse_counters(IO_STAT.replace("8:16 rbytes", "8:32 rbytes"))
    assert (idle.read_ios, idle.write_ios, idle.seen) == (0, 0, True)  # v2 always counts


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("== disk \n", "disk under the data directory"),
        (_fixture("v1-fuse-after.txt"), "device 0:39, not a block device"),
        ("== disk 254:0\n", "no cgroup block I/O counters"),
        ("== disk 8:16\n== io.stat\n8:16 rbytes=x wbytes=1 rios=1 wios=1\n", "unreadable"),
        (
            "== disk 254:0\n== blkio.throttle.io_serviced\n254:0 Read many\n"
            "== blkio.throttle.io_service_bytes\nTotal 0\n",
            "unreadable line",
        ),
    ],
)
def test_output_without_usable_counters_says_why(text, says):
    with pytest.raises(CountersUnavailable, match=says):
        parse_counters(text)


def test_the_line_names_the_directory_and_every_counter_file():
    line = counters_line("/data")
    assert '$5 == "/data"' in line
    assert all(name in line for name in ("io.stat", "io_service_bytes", "io_serviced"))
