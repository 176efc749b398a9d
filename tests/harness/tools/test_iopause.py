"""io-pause from interval series (pure function, one case per shape)."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.tools.iopause import io_pause, lost_time, resumed
from harness.tools.sysbench.parse import parse_file, report_tps

DB = Path(__file__).parent / "fixtures" / "db"


def test_real_kill_gives_one_empty_interval():
    output = parse_file(DB / "sysbench-iopause.out")
    series = [(i.time_s, i.tps) for i in output.intervals]
    pause = io_pause(series, kill_s=3.95)
    assert (pause.last_ack_s, pause.resumed_s, pause.seconds) == (4.0, 5.0, 1.0)
    # median before the kill 714.53 tps; 0 + 1 + (1 - 635.27/714.53) + (1 - 669.0/714.53)
    assert pause.lost_s == pytest.approx(1.1746, abs=1e-3)


def test_pause_spans_every_empty_interval():
    series = [(1, 100), (2, 100), (3, 0), (4, 0), (5, 0), (6, 50), (7, 100)]
    pause = io_pause(series, kill_s=2.4)
    assert (pause.last_ack_s, pause.resumed_s, pause.seconds) == (2, 5, 3)
    assert pause.lost_s == pytest.approx(3.5)  # three empty intervals and half of one


def test_never_resumed_is_not_a_number():
    pause = io_pause([(1, 100), (2, 0), (3, 0)], kill_s=1.5)
    assert pause.seconds is None and pause.resumed_s is None


def test_a_sub_interval_outage_is_no_pause_but_a_dip():
    pause = io_pause([(1, 100), (2, 100), (3, 40), (4, 100)], kill_s=2.5)
    assert pause.seconds == 0
    assert pause.lost_s == pytest.approx(0.6)


def test_output_ending_with_the_kills_interval_says_nothing_of_a_resume():
    # a client stopped just after the kill (its server never came back): no interval
    # after the kill's own, so neither a pause nor a dip can be told
    pause = io_pause([(1, 100), (2, 100), (3, 40)], kill_s=2.5)
    assert pause.seconds is None and pause.resumed_s is None


def test_kill_after_the_output_ends():
    assert io_pause([(1, 100)], kill_s=5).seconds is None


def test_lost_time_needs_a_rate_before_the_kill():
    assert lost_time([(1, 0), (2, 100)], kill_s=0.5, until_s=2, interval_s=1) is None


def test_the_rate_before_a_second_kill_leaves_out_the_first_pause():
    # a first outage of 6 of the 10 s before the second kill (a pod replaced slowly)
    series = [(1, 100), (2, 100), (3, 0), (4, 0), (5, 0), (6, 0), (7, 0), (8, 0)]
    series += [(9, 100), (10, 100), (11, 0), (12, 0), (13, 100), (14, 100)]
    pause = io_pause(series, kill_s=10.5)
    assert (pause.last_ack_s, pause.resumed_s, pause.seconds) == (10, 12, 2)
    assert pause.lost_s == pytest.approx(2.0)  # against 100 tps, not the median's 0


def test_transactions_resumed_after_a_kill_only_in_a_report_wholly_after_it():
    """The captured kill came 4 s into the run, with 4 reports printed: the 5th report
    (the kill's interval) is empty, the 6th has transactions again."""
    tps = report_tps(DB / "sysbench-iopause.out")
    assert len(tps) == 12
    assert resumed(tps, 4)
    assert not resumed(tps[:5], 4)  # the output so far: only the kill's empty interval
    # the report of the kill's interval may hold the transactions before it: not a resume
    assert not resumed([800.0, 800.0, 650.0], 2)
    assert resumed([800.0, 800.0, 650.0, 0.0, 12.5], 2)


def test_a_client_without_output_yet_has_no_report(tmp_path):
    assert report_tps(tmp_path / "c01.out") == []
    assert not resumed([], 0)
