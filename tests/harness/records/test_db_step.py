"""A migration step's records from real captured steps (fixtures/migration, capture.sh):
per pod a server-recovery (to Ready elsewhere), pod-replaced (to Running) and io-pause
event, recomputed by hand from kills.json and the client's own reports; one all-back
event, the last pod's Ready; a failed move's Pending reason in its events; rows that
changed are a warning."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from harness.records.db import DbRecord
from harness.records.db_step import build_db_step, own_run
from harness.tools.iopause import io_pause
from harness.tools.sysbench.parse import parse_file

FIXTURES = Path(__file__).parent / "fixtures" / "migration"


def _step(name: str, raw: Path | None = None):
    folder = FIXTURES / name
    plan = json.loads((folder / "step.json").read_text())
    return build_db_step(raw or folder / "raw", plan, name, "k8s:ceph-fs")


def test_each_pod_s_times_come_from_the_failure_and_its_client_s_reports():
    result = _step("crash")
    raw = FIXTURES / "crash" / "raw"
    kills = {k["consumer"]: k for k in json.loads((raw / "kills.json").read_text())}
    processes = json.loads((raw / "process.json").read_text())
    by = {(e.consumer, e.event): e for e in result.events}
    for consumer, kill in kills.items():
        ready, running = by[(consumer, "server-recovery")], by[(consumer, "pod-replaced")]
        assert ready.seconds == pytest.approx(kill["ready_at"] - kill["killed_at"])
        assert running.seconds == pytest.approx(kill["running_at"] - kill["killed_at"])
        assert ready.detail == "node volperf-node-2 crash: pod on volperf-node"
        series = [
            (i.time_s, i.tps)
            for i in parse_file(raw / f"{consumer}.out").intervals
            if i.tps is not None
        ]
        start = processes[consumer]["start_s"]
        expected = io_pause(series, kill["killed_at"] - start)
        assert by[(consumer, "io-pause")].seconds == expected.seconds
        assert expected.seconds is not None and expected.seconds > 40  # the node's grace
    back = by[("all", "all-back")]
    assert back.seconds == pytest.approx(
        max(k["ready_at"] for k in kills.values()) - kills["c01"]["killed_at"]
    )
    assert back.detail == "node volperf-node-2 crash: 2 pods (volperf-node-2 → volperf-node)"
    summary = result.summary()["events"]
    assert summary["all-back"]["max_s"] == back.seconds
    assert summary["server-recovery"]["count"] == 2
    assert result.warnings == []  # rows equal; a migration measures pauses, not memory


def test_pods_that_stayed_pending_are_unresolved_with_the_scheduler_s_words():
    result = _step("bound")
    by = {(e.consumer, e.event): e for e in result.events}
    for consumer in ("c01", "c02"):
        recovery = by[(consumer, "server-recovery")]
        assert recovery.seconds is None
        assert "1 node(s) had volume node affinity conflict" in recovery.detail
        assert by[(consumer, "io-pause")].seconds is None  # the client never saw it resume
        assert (consumer, "pod-replaced") not in by
    back = by[("all", "all-back")]
    assert back.seconds is None and back.detail.endswith("; not all came back")
    assert result.warnings == []  # the rows were all there once the node came back


def test_rows_that_changed_or_were_not_counted_are_warnings(tmp_path):
    raw = tmp_path / "raw"
    shutil.copytree(FIXTURES / "crash" / "raw", raw)
    rows = {
        "c01": {"before": 4000, "after": 3999},
        "c02": {"before": 4000, "after": None},  # the count failed
        "c03": {"before": 4000},  # stopped before the count after: nothing to say
    }
    (raw / "rows.json").write_text(json.dumps(rows))
    result = _step("crash", raw)
    assert [(w.code, w.message) for w in result.warnings] == [
        ("rows-changed", "c01: 4000 rows before the move, 3999 after"),
        ("rows-changed", "c02: 4000 rows before the move, None after"),
    ]


EXEC = Path(__file__).parent / "fixtures" / "fileio-exec"


def test_a_pods_disk_rate_is_over_its_tools_own_run_not_the_exec_s_window():
    """fixtures/fileio-exec: sysbench fileio with O_DIRECT in a pod whose `kubectl exec`
    took 6.92 s around sysbench's own 5.35 s; the container's disk read what sysbench
    read, so its rate over sysbench's time is sysbench's rate (over the exec's, 23 % low)."""
    plan = json.loads((EXEC / "step.json").read_text())
    result = build_db_step(EXEC / "raw", plan, "001-rndrw", "k8s:local-path")
    own = parse_file(EXEC / "raw" / "c01.out").summary
    use = result.storage
    assert use is not None and own.reads_per_s and own.total_time_s
    assert use.device_read_iops == pytest.approx(own.reads_per_s, rel=0.01)
    process = json.loads((EXEC / "raw" / "process.json").read_text())["c01"]
    assert process["end_s"] - process["start_s"] > 1.25 * own.total_time_s


def test_own_run_ends_with_the_last_client_and_lasts_its_longest_own_time():
    def run(duration: float | None, error: str = "") -> DbRecord:
        return DbRecord("s", "c", "pgbench", "postgresql", "tpcb-like", "run", 1, 1,
                        duration_s=duration, error=error)  # fmt: skip

    load = DbRecord("s", "c", "pgbench", "postgresql", "tpcb-like", "load", 1, 1)
    assert own_run((100.0, 110.0), [load, run(5.0), run(7.5)]) == (102.5, 110.0)
    assert own_run((100.0, 110.0), [run(5.0), run(None, "exited 1")]) == (100.0, 110.0)
    assert own_run((100.0, 110.0), [load]) == (100.0, 110.0)
    assert own_run((100.0, 110.0), [run(12.0)]) == (100.0, 110.0)  # never before the start
