"""volperf's own cost per step, against an independent reading: this test polls /proc of
the `volperf run` process (its CPU ticks and resident memory) while a real local
campaign runs, and sets what it saw over each step beside what summary.json says."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
import yaml

# quiet: volperf's CPU time against /proc polled every 5 ms
pytestmark = [pytest.mark.functional, pytest.mark.quiet]
TICKS = os.sysconf("SC_CLK_TCK")


def read_proc(pid: int) -> tuple[float, int] | None:
    """(utime + stime in seconds, VmRSS in bytes) of a live process."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return None
    rss = [int(line.split()[1]) for line in status.splitlines() if line.startswith("VmRSS")]
    if not rss:
        return None  # exited: a zombie has no memory left
    return (int(stat[11]) + int(stat[12])) / TICKS, rss[0] * 1024


def test_each_steps_cost_is_what_proc_saw_of_volperfs_own_process(tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    spec = {
        "name": "cost",
        "target": {"type": "local", "dir": str(data)},
        "workloads": [{"name": "w", "rw": ["randread", "randwrite"], "size": "8M", "runtime": 2}],
        "sweep": [2, 4],
    }
    (tmp_path / "spec.yaml").write_text(yaml.safe_dump(spec))
    process = subprocess.Popen(
        [sys.executable, "-m", "harness.cli", "run", "spec.yaml", "--results", "results"],
        cwd=tmp_path,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    seen: list[tuple[float, float, int]] = []  # (wall clock, CPU s, RSS bytes)

    def poll() -> None:
        while process.poll() is None:
            reading = read_proc(process.pid)
            if reading is not None:
                seen.append((time.time(), *reading))
            time.sleep(0.005)

    poller = threading.Thread(target=poll)
    poller.start()
    _, stderr = process.communicate(timeout=300)
    poller.join()
    assert process.returncode == 0, stderr
    campaign = tmp_path / "results" / "cost"
    steps = json.loads((campaign / "summary.json").read_text())["steps"]
    assert [s["state"] for s in steps] == ["done", "done"]
    for step in steps:
        cost = step["cost"]
        during = [s for s in seen if step["started"] <= s[0] <= step["finished"]]
        assert len(during) > 100, "the poller saw the step"
        cpu = during[-1][1] - during[0][1]
        # the step's own span is inside [started, finished]: the poll edges add at most a
        # clock tick or two on either side
        assert cost["cpu_s"] == pytest.approx(cpu, abs=3 / TICKS + 0.02)
        assert cost["cpu_s_per_consumer"] == pytest.approx(cost["cpu_s"] / step["concurrency"])
        assert cost["wall_s"] == pytest.approx(step["finished"] - step["started"], abs=0.2)
        highest = max(rss for _, _, rss in during)
        assert cost["peak_since"] == "step"
        assert highest - 2**20 <= cost["peak_rss_bytes"] <= highest * 1.1
        assert cost["api_calls"] == {}  # the local target talks to no cloud
