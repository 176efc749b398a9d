"""The database layer run for real: sysbench fileio and OLTP and pgbench on volperf's own
MariaDB and PostgreSQL, small and short, and its faults (io-pause: test_db_iopause.py)."""

from __future__ import annotations

import csv
import json
import os
import re
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from harness.campaign.run import run_campaign
from harness.core.spec import validate
from harness.host.process import command_line
from harness.planes.local.target import LocalTarget
from harness.records.db import DB_COLUMNS
from tests.harness.db_fixtures import make_reachable
from tests.harness.helpers import volperf

pytestmark = pytest.mark.functional

SMALL_SERVERS = {
    "mariadb": {"options": {"innodb_buffer_pool_size": "16M", "innodb_log_file_size": "8M"}},
    "postgresql": {"options": {"shared_buffers": "16MB"}},
}


def spec(directory: Path, name: str, workloads: list[dict], sweep=(1, 2), **extra):
    return validate(
        {
            "name": name,
            "target": {"type": "local", "dir": str(directory)},
            "workloads": workloads,
            "sweep": list(sweep),
            "databases": SMALL_SERVERS,
            **extra,
        }
    )


def servers_of(directory: Path) -> list[str]:
    """Processes whose command line names the directory: the servers volperf started."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
            state = Path(f"/proc/{pid}/stat").read_text().split()[2]
        except OSError:
            continue
        if str(directory) in cmdline and state != "Z":
            found.append(cmdline)
    return found


@pytest.fixture(scope="module")
def campaign(tmp_path_factory):
    base = tmp_path_factory.mktemp("db")
    storage = make_reachable(base / "storage")
    workloads = [
        {
            "name": "fileio",
            "tool": "sysbench-fileio",
            "test": "rndrw",
            "file_total_size": "16M",
            "file_num": 2,
            "runtime": 2,
            "threads": [1, 2],
        },
        {
            "name": "oltp",
            "tool": "sysbench-oltp",
            "tables": 2,
            "table_size": 2000,
            "runtime": 2,
            "threads": [2],
        },
        {"name": "pgbench", "tool": "pgbench", "scale": 1, "runtime": 2, "threads": [2]},
    ]
    outcome = run_campaign(spec(storage, "db", workloads), base / "results", LocalTarget)
    return outcome, storage


def rows(store, name="db.csv"):
    return list(csv.DictReader((store.root / name).open()))


def test_every_step_is_done_and_nothing_is_left_behind(campaign):
    outcome, storage = campaign
    assert outcome.ok, [(r.summary["step"], r.summary["error"]) for r in outcome.results]
    assert list(storage.iterdir()) == []
    assert servers_of(storage) == []
    assert outcome.store.created() == {}
    sockets = [r for r in outcome.removed if "/volperf-" in r and "storage" not in r]
    assert sockets and not any(Path(s).exists() for s in sockets)


def test_db_csv_holds_what_sysbench_and_pgbench_printed(campaign):
    outcome, _ = campaign
    store = outcome.store
    db = rows(store)
    assert list(db[0]) == DB_COLUMNS
    runs = [r for r in db if r["phase"] == "run"]
    # one run row per consumer per step: fileio 1+2 twice (threads 1, 2), oltp 1+2, pgbench 1+2
    assert len(runs) == 6 + 3 + 3
    for row in runs:
        out = (store.raw_dir(row["step"]) / f"{row['consumer']}.out").read_text()
        if row["tool"] == "pgbench":
            assert float(row["tps"]) == pytest.approx(
                float(re.search(r"^tps = ([0-9.]+)", out, re.M)[1])
            )
            assert float(row["latency_avg_ms"]) == float(
                re.search(r"latency average = ([0-9.]+)", out)[1]
            )
        elif row["tool"] == "sysbench-oltp":
            printed = re.search(r"transactions:\s+\d+\s+\(([0-9.]+) per sec", out)[1]
            assert float(row["tps"]) == float(printed)
            assert float(row["tps"]) > 0
        else:
            assert float(row["reads_per_s"]) == float(re.search(r"reads/s:\s+([0-9.]+)", out)[1])
            assert float(row["reads_per_s"]) > 0 and float(row["writes_per_s"]) > 0
    # data is loaded once per consumer and dataset, and the load is timed
    loads = [(r["step"][:3], r["consumer"], r["tool"]) for r in db if r["phase"] == "load"]
    assert sorted(loads) == sorted(
        [
            ("001", "c01", "sysbench-fileio"),
            ("003", "c02", "sysbench-fileio"),
            ("005", "c01", "sysbench-oltp"),
            ("006", "c02", "sysbench-oltp"),
            ("007", "c01", "pgbench"),
            ("008", "c02", "pgbench"),
        ]
    )
    assert all(float(r["load_time_s"]) > 0 for r in db if r["phase"] == "load")


def test_step_summary_sums_and_averages_consumers(campaign):
    outcome, _ = campaign
    db = rows(outcome.store)
    summary = json.loads((outcome.store.root / "summary.json").read_text())
    step = next(s for s in summary["steps"] if s["step"].startswith("006-oltp"))
    tps = [float(r["tps"]) for r in db if r["step"] == step["step"] and r["phase"] == "run"]
    assert step["db"]["tps_total"] == pytest.approx(sum(tps))
    assert step["db"]["tps_per_consumer"] == pytest.approx(sum(tps) / 2)
    assert step["tool"] == "sysbench-oltp" and step["threads"] == 2


def test_a_server_that_will_not_start_fails_its_step_only(tmp_path):
    storage = make_reachable(tmp_path / "storage")
    workloads = [
        {"name": "oltp", "tool": "sysbench-oltp", "tables": 1, "table_size": 100, "runtime": 1},
        {
            "name": "fileio",
            "tool": "sysbench-fileio",
            "test": "seqwr",
            "file_total_size": "8M",
            "runtime": 1,
        },
    ]
    bad = spec(storage, "bad", workloads, sweep=[1])
    bad = validate({**bad.to_dict(), "databases": {"mariadb": {"options": {"no_such_option": 1}}}})
    outcome = run_campaign(bad, tmp_path / "results", LocalTarget)
    states = {r.summary["step"]: (r.summary["state"], r.summary["error"]) for r in outcome.results}
    state, error = states["001-oltp-c001-t001-r1"]
    assert state == "failed"
    assert "mariadb c01" in error and "no-such-option" in error  # the server's own words
    assert states["002-fileio-c001-t001-r1"][0] == "done"
    assert servers_of(storage) == [] and list(storage.iterdir()) == []


def test_a_sysbench_that_loses_its_server_fails_the_step_quoting_sysbench(tmp_path):
    storage = make_reachable(tmp_path / "storage")
    workloads = [
        {
            "name": "oltp",
            "tool": "sysbench-oltp",
            "tables": 1,
            "table_size": 500,
            "runtime": 6,
            "threads": [1],
        }
    ]
    killed, ended = threading.Event(), threading.Event()

    def kill_server_mid_run() -> None:
        """Once this campaign's sysbench runs (not while it loads: its command line ends
        with `run` and names the server's socket), a second into it, the server is killed;
        however long the server's start and the load took on a busy machine."""
        while not ended.is_set():
            sockets = [
                option
                for line in servers_of(storage)
                if "mariadbd" in line
                for option in line.split()
                if option.startswith("--socket=")
            ]
            running = [
                line
                for line in (command_line(int(pid)) for pid in os.listdir("/proc") if pid.isdigit())
                if line.split()[:1]
                and line.split()[0].endswith("sysbench")
                and line.rstrip().endswith(" run")
            ]
            if any(
                s.replace("--socket=", "--mysql-socket=") in r for s in sockets for r in running
            ):
                time.sleep(1)
                subprocess.run(["pkill", "-KILL", "-f", str(storage)], check=False)
                killed.set()
                return
            time.sleep(0.2)

    killer = threading.Thread(target=kill_server_mid_run)
    killer.start()
    try:
        outcome = run_campaign(
            spec(storage, "lost", workloads, sweep=[1]), tmp_path / "r", LocalTarget
        )
    finally:
        ended.set()
        killer.join()
    summary = outcome.results[0].summary
    assert killed.is_set()
    assert summary["state"] == "failed"
    assert "Lost connection" in summary["error"] or "Can't connect" in summary["error"]
    assert "is no longer running" in summary["error"]
    assert servers_of(storage) == [] and list(storage.iterdir()) == []


@pytest.fixture
def small_tmpfs(tmp_path):
    mount_point = make_reachable(tmp_path / "small")
    subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=40m,mode=0755", "volperf-test", str(mount_point)],
        check=True,
    )
    yield mount_point
    subprocess.run(["umount", "--lazy", str(mount_point)], check=False)


def test_a_full_disk_fails_the_load_keeps_what_was_measured(small_tmpfs, tmp_path):
    workloads = [
        {"name": "small", "tool": "sysbench-oltp", "tables": 1, "table_size": 1000, "runtime": 1},
        {"name": "big", "tool": "sysbench-oltp", "tables": 2, "table_size": 200000, "runtime": 1},
    ]
    outcome = run_campaign(
        spec(small_tmpfs, "full", workloads, sweep=[1]), tmp_path / "results", LocalTarget
    )
    first, second = (r.summary for r in outcome.results)
    assert first["state"] == "done" and first["db"]["tps_total"] > 0
    assert second["state"] == "failed"
    assert "load failed" in second["error"]
    assert "is full" in second["error"] or "Out of disk space" in second["error"]
    assert [r["step"][:3] for r in rows(outcome.store) if r["phase"] == "run"] == ["001"]
    assert servers_of(small_tmpfs) == [] and list(small_tmpfs.iterdir()) == []


def test_cleanup_stops_the_servers_a_killed_run_left(tmp_path):
    storage = make_reachable(tmp_path / "storage")
    spec_file = tmp_path / "spec.yaml"
    workloads = [{"name": "pg", "tool": "pgbench", "scale": 1, "runtime": 60, "threads": [1]}]
    spec_file.write_text(json.dumps(spec(storage, "killed", workloads, sweep=[1]).to_dict()))
    process = subprocess.Popen(
        [sys.executable, "-m", "harness.cli", "run", str(spec_file)],
        cwd=tmp_path,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    raw = tmp_path / "results" / "killed" / "steps" / "001-pg-c001-t001-r1" / "raw"
    # initdb, the server's start and pgbench's load first: 64 s in CI of stop 61, on a
    # machine busy with the testbeds' groups (a few seconds alone)
    deadline = time.time() + 300
    while time.time() < deadline and not (raw / "c01.out").exists():
        time.sleep(0.2)
    assert (raw / "c01.out").exists(), "pgbench never started"
    process.kill()  # SIGKILL: volperf cannot stop anything itself
    process.wait()
    assert any("postgres" in line for line in servers_of(storage))
    result = volperf("cleanup", "results/killed", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "process:" in result.stderr
    deadline = time.time() + 10
    while servers_of(storage) and time.time() < deadline:
        time.sleep(0.2)
    assert servers_of(storage) == []
    assert list(storage.iterdir()) == []
