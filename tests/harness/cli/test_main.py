"""The volperf command as a user runs it, including being killed mid-step."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from harness.core.store import CampaignStore
from tests.harness.helpers import raw_files, volperf

pytestmark = pytest.mark.functional
STEP2 = "002-randrw-4k-c004-r1"


def start(*args: str, cwd: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "harness.cli", *args],
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def quick_args(data: Path, name: str = "q") -> list[str]:
    return [
        "run",
        "local",
        "--dir",
        str(data),
        "--profile",
        "quick",
        "--name",
        name,
        "--runtime",
        "2",
        "--size",
        "8M",
    ]


def wait_for_fio_in_step(store: CampaignStore, step: str, timeout: float = 60) -> None:
    deadline = time.time() + timeout
    while time.time() < deadline:
        if (
            store.read_status(step).state == "running"
            and (store.raw_dir(step) / "fio.job").exists()
        ):
            time.sleep(0.7)  # fio is under way
            return
        time.sleep(0.05)
    raise AssertionError(f"step {step} never started")


def fio_processes_for(path: Path) -> list[str]:
    out = subprocess.run(["pgrep", "-af", "fio"], capture_output=True, text=True).stdout
    return [line for line in out.splitlines() if str(path) in line]


def test_main_job_leaves_fio_csv_and_prints_the_table(tmp_path):
    (tmp_path / "d").mkdir()
    result = volperf(*quick_args(tmp_path / "d"), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    rows = (tmp_path / "results" / "q" / "fio.csv").read_text().splitlines()
    assert len(rows) == 1 + 2 + 4  # one row per consumer per step
    assert "campaign q" in result.stderr and "IOPS avg" in result.stderr
    assert "results: results/q/ (fio.csv, nodes.csv, summary.json)" in result.stderr


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_stopped_mid_step_then_resumed(tmp_path, sig):
    data = tmp_path / "d"
    data.mkdir()
    store = CampaignStore(tmp_path / "results" / "q")
    process = start(*quick_args(data), cwd=tmp_path)
    wait_for_fio_in_step(store, STEP2)
    step1 = raw_files(store.raw_dir("001-randrw-4k-c002-r1"))
    process.send_signal(sig)
    _, err = process.communicate(timeout=60)
    assert process.returncode == 130, err
    assert "interrupted" in err and "run the same command again to resume" in err
    assert store.read_status(STEP2).state == "interrupted"
    assert not fio_processes_for(data)
    assert not list(data.iterdir())

    status = volperf("status", str(store.root), cwd=tmp_path)
    assert status.returncode == 1 and "interrupted" in status.stderr

    result = volperf(*quick_args(data), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "resuming: 1 done already" in result.stderr
    assert raw_files(store.raw_dir("001-randrw-4k-c002-r1")) == step1
    assert volperf("status", str(store.root), cwd=tmp_path).returncode == 0


def test_killed_outright_then_cleaned_and_resumed(tmp_path):
    data = tmp_path / "d"
    data.mkdir()
    store = CampaignStore(tmp_path / "results" / "q")
    process = start(*quick_args(data), cwd=tmp_path)
    wait_for_fio_in_step(store, STEP2)
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=30)
    deadline = time.time() + 10  # fio is told by the kernel that its parent died
    while fio_processes_for(data) and time.time() < deadline:
        time.sleep(0.1)
    assert not fio_processes_for(data)
    assert store.read_status(STEP2).state == "running"  # nobody could mark it
    left = sorted(p.name for p in data.iterdir())
    assert left == [f"volperf-q-c0{i}.dat" for i in range(1, 5)]

    cleaned = volperf("cleanup", str(store.root), cwd=tmp_path)
    assert cleaned.returncode == 0 and "4 resources removed" in cleaned.stderr
    assert not list(data.iterdir())

    result = volperf(*quick_args(data), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert store.read_status(STEP2).attempts == 2


def test_reparse_rebuilds_the_same_views(tmp_path):
    (tmp_path / "d").mkdir()
    assert volperf(*quick_args(tmp_path / "d"), cwd=tmp_path).returncode == 0
    root = tmp_path / "results" / "q"
    before = (root / "fio.csv").read_text()
    summary_before = json.loads((root / "summary.json").read_text())
    (root / "fio.csv").unlink()
    (root / "summary.json").unlink()
    result = volperf("reparse", str(root), "--json", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert (root / "fio.csv").read_text() == before
    summary = json.loads(result.stdout)
    assert summary["steps"] == summary_before["steps"]


def test_malformed_raw_output_is_reported_not_crashed(tmp_path):
    (tmp_path / "d").mkdir()
    assert volperf(*quick_args(tmp_path / "d"), cwd=tmp_path).returncode == 0
    root = tmp_path / "results" / "q"
    raw = root / "steps" / STEP2 / "raw" / "fio.out"
    raw.write_text(raw.read_text()[:2000])
    result = volperf("reparse", str(root), "--json", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    step = json.loads(result.stdout)["steps"][1]
    assert step["warnings"][0]["code"] == "unparseable-output"
    assert f"{raw}: truncated or malformed JSON" in step["warnings"][0]["message"]
    rows = (root / "fio.csv").read_text().splitlines()
    assert len(rows) == 1 + 2  # step 1 kept, nothing invented for step 2


def test_json_output(tmp_path):
    (tmp_path / "d").mkdir()
    result = volperf(*quick_args(tmp_path / "d"), "--json", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout)
    assert [s["concurrency"] for s in summary["steps"]] == [2, 4]
    assert summary["steps"][1]["read"]["consumers"] == 2


def test_bad_spec_exits_2_naming_field_and_value(tmp_path):
    spec = tmp_path / "bad.yaml"
    spec.write_text(
        yaml.safe_dump(
            {
                "name": "b",
                "target": {"type": "local", "dir": str(tmp_path)},
                "sweep": [2],
                "workloads": [{"name": "w", "rw": "randread", "iodepth": -4}],
            }
        )
    )
    result = volperf("run", str(spec), cwd=tmp_path)
    assert result.returncode == 2
    assert "workloads[0].iodepth" in result.stderr and "(got -4)" in result.stderr
    assert "Traceback" not in result.stderr


def test_run_local_needs_a_directory(tmp_path):
    result = volperf("run", "local", "--profile", "quick", cwd=tmp_path)
    assert result.returncode == 2 and "--dir" in result.stderr


def test_spec_file_campaign(tmp_path):
    spec = tmp_path / "spec.yaml"
    spec.write_text(
        yaml.safe_dump(
            {
                "name": "fromfile",
                "target": {"type": "local", "dir": str(tmp_path)},
                "sweep": [1],
                "workloads": [
                    {
                        "name": "seqread",
                        "rw": "read",
                        "bs": "1M",
                        "size": "8M",
                        "runtime": 1,
                        "prefill": True,
                    }
                ],
            }
        )
    )
    result = volperf("run", str(spec), "--results", str(tmp_path / "out"), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "out" / "fromfile" / "fio.csv").exists()
    assert not list(tmp_path.glob("volperf-*.dat"))
    assert os.listdir(tmp_path / "out") == ["fromfile"]


@pytest.mark.skipif(os.geteuid() != 0, reason="as root volperf runs MariaDB as its service user")
def test_a_missing_service_user_is_one_line_naming_it(tmp_path, monkeypatch):
    from click.testing import CliRunner

    from harness.cli.main import main
    from harness.host.databases.mariadb import MariaDBServer

    monkeypatch.setattr(MariaDBServer, "service_user", "volperf-no-such-user")
    (tmp_path / "d").mkdir()
    args = [
        "run",
        "local",
        "--dir",
        str(tmp_path / "d"),
        "--profile",
        "multi-tenant-oltp",
        "--results",
        str(tmp_path / "results"),
    ]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 2, result.output
    assert isinstance(result.exception, SystemExit)  # not a KeyError's traceback
    assert "service user 'volperf-no-such-user'" in result.output
    assert not list((tmp_path / "d").iterdir())  # refused before anything was made


def test_a_missing_tool_is_one_line_naming_it(tmp_path):
    (tmp_path / "d").mkdir()
    (tmp_path / "bin").mkdir()  # a PATH with no sysbench (nor anything else)
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "harness.cli",
            "run",
            "local",
            "--dir",
            str(tmp_path / "d"),
            "--profile",
            "multi-tenant-oltp",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PATH": str(tmp_path / "bin")},
    )
    assert result.returncode == 2, result.stderr
    assert "sysbench is not installed (tools/setup.sh installs it)" in result.stderr
    assert "Traceback" not in result.stderr


PLUGINS_SEEN = (
    "import os, harness.cli; from pydantic.plugin import _loader; "
    "print(os.environ['PYDANTIC_DISABLE_PLUGINS'], list(_loader.get_plugins()))"
)


@pytest.mark.parametrize(("given", "seen"), [(None, "__all__ []"), ("logfire", "logfire []")])
def test_the_command_line_seeks_no_pydantic_plugins_unless_the_user_says(given, seen):
    env = {k: v for k, v in os.environ.items() if k != "PYDANTIC_DISABLE_PLUGINS"}
    if given is not None:
        env["PYDANTIC_DISABLE_PLUGINS"] = given
    ran = subprocess.run(
        [sys.executable, "-c", PLUGINS_SEEN], env=env, capture_output=True, text=True
    )
    assert ran.stdout.strip() == seen, ran.stderr
