"""io-pause run for real on volperf's own MariaDB: the server killed twice in each step,
restarted after 2 s, and the outage read from sysbench's 1-second reports."""

from __future__ import annotations

import json

import pytest

from harness.campaign.run import run_campaign
from harness.planes.local.target import LocalTarget
from tests.harness.db_fixtures import make_reachable
from tests.harness.planes.local.test_db_target import rows, spec

# quiet: kills, restarts and recoveries timed to the second, in runs of a few seconds
pytestmark = [pytest.mark.functional, pytest.mark.quiet]


@pytest.fixture(scope="module")
def campaign(tmp_path_factory):
    base = tmp_path_factory.mktemp("iopause")
    storage = make_reachable(base / "storage")
    # a 2 s restart delay makes the outage visible in 1-second reports
    workload = {
        "name": "pause",
        "tool": "io-pause",
        "tables": 2,
        "table_size": 2000,
        "threads": [2],
        "kills": 2,
        "before": 3,
        "after": 3,
        "restart_delay": 2,
    }
    outcome = run_campaign(spec(storage, "iopause", [workload]), base / "results", LocalTarget)
    return outcome, storage


def test_every_step_is_done_and_its_servers_are_gone(campaign):
    outcome, storage = campaign
    assert outcome.ok, [(r.summary["step"], r.summary["error"]) for r in outcome.results]
    assert list(storage.iterdir()) == []
    assert outcome.store.created() == {}


def test_io_pause_is_measured_for_every_kill(campaign):
    outcome, _ = campaign
    events = rows(outcome.store, "events.csv")
    pauses = [e for e in events if e["event"] == "io-pause"]
    recoveries = [e for e in events if e["event"] == "server-recovery"]
    # sweep 1 and 2 consumers, 2 kills each
    assert len(pauses) == len(recoveries) == (1 + 2) * 2
    for recovery in recoveries:
        # the 2 s delay, then crash recovery of a tiny database
        assert 2.0 <= float(recovery["seconds"]) < 30
    for pause in pauses:
        # the server was down for 2 s or more: one or more empty 1-second reports
        assert 1 <= float(pause["seconds"]) <= 30, pause
    summary = json.loads((outcome.store.root / "summary.json").read_text())
    step = next(s for s in summary["steps"] if s["step"].startswith("002-pause"))
    assert step["events"]["io-pause"]["count"] == 4
    assert step["events"]["io-pause"]["max_s"] >= step["events"]["io-pause"]["mean_s"] >= 1
