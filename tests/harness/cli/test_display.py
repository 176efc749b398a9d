"""The progress line of a running step."""

from harness.cli.display import _remaining


def test_time_left_while_the_io_lasts():
    assert _remaining(10.0, 30.0) == "20 s left"


def test_past_the_io_it_says_what_it_waits_for_not_zero_left():
    # a Heat step waits minutes for its stacks and their shared start time
    assert _remaining(271.0, 30.0) == "running (its I/O lasts 30 s; waiting on the target)"


def test_without_an_expected_length_it_is_running():
    assert _remaining(5.0, None) == "running"
