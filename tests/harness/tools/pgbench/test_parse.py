"""The pgbench parser against real pgbench 15 output (fixtures/db/capture.sh)."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.tools.pgbench.parse import PgbenchParseError, parse_init, parse_progress, parse_run

DB = Path(__file__).parents[1] / "fixtures" / "db"


def test_init_load_time_and_phases():
    init = parse_init((DB / "pgbench-init.err").read_text())
    assert init.load_time_s == 0.2
    assert init.phases_s["client-side generate"] == 0.11
    assert set(init.phases_s) == {
        "drop tables",
        "create tables",
        "client-side generate",
        "vacuum",
        "primary keys",
    }


def test_run_summary():
    run = parse_run((DB / "pgbench-run.out").read_text(), (DB / "pgbench-run.err").read_text())
    assert (run.version, run.scale, run.clients, run.threads) == ("15.18", 2, 2, 2)
    assert run.query_mode == "prepared"
    assert run.tps == 2583.900961
    assert (run.latency_avg_ms, run.latency_stddev_ms) == (0.773, 0.307)
    assert (run.transactions, run.failed) == (7753, 0)
    assert [p.time_s for p in run.progress] == [1.0, 2.0, 3.0]


def test_progress_lines():
    progress = parse_progress((DB / "pgbench-run.err").read_text())
    assert progress[0].tps == 2851.8 and progress[0].latency_stddev_ms == 0.142


def test_a_failed_run_quotes_pgbench():
    with pytest.raises(PgbenchParseError, match='database "nosuchdb" does not exist'):
        parse_run(
            (DB / "pgbench-no-database.out").read_text(),
            (DB / "pgbench-no-database.err").read_text(),
        )
    with pytest.raises(PgbenchParseError, match="the load did not finish"):
        parse_init("creating tables...\n")


def test_a_run_with_no_transaction_says_so_not_that_it_did_not_finish():
    """pgbench ended its 1 s run with no transaction done (as the CI's pods did whose eight
    clients took the whole 2 s run to connect): no figure, and words that say why."""
    with pytest.raises(PgbenchParseError, match="no transaction in its 1 s run") as raised:
        parse_run(
            (DB / "pgbench-no-transaction.out").read_text(),
            (DB / "pgbench-no-transaction.err").read_text(),
        )
    assert "did not finish" not in str(raised.value)
