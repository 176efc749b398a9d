"""A real local campaign of three repeats: its page shows the common window beside the
whole run, and each figure's mean and coefficient of variation across the repeats; the
third repeat is made an outlier for real (a noisy neighbour on the same disk), and the
page flags the spread."""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path

import pytest

from harness.campaign.run import Display, run_campaign
from harness.planes.local.fio_target import LocalFioTarget
from harness.records import stats
from tests.harness.helpers import doc_source_copy, tiny_spec, volperf

# quiet: its outlier's neighbour is the one it makes
pytestmark = [pytest.mark.functional, pytest.mark.quiet]


class NoisyThirdRepeat(Display):
    """A noisy neighbour on the same disk while the third repeat runs: another fio, large
    random reads and writes at a deep queue on a file of its own."""

    def __init__(self, data: Path):
        self.argv = [
            "fio",
            "--name=neighbour",
            f"--filename={data / 'neighbour.dat'}",
            "--size=16M",
            "--rw=randrw",
            "--bs=64k",
            "--iodepth=64",
            "--numjobs=2",
            "--ioengine=libaio",
            "--direct=1",
            "--runtime=4",
            "--time_based",
        ]
        self.neighbour: subprocess.Popen[bytes] | None = None

    def step_started(self, step, position, total):
        if step.repeat == 3:
            self.neighbour = subprocess.Popen(self.argv, stdout=subprocess.DEVNULL)
            time.sleep(0.5)  # its jobs running before the measured ones start
        return super().step_started(step, position, total)


def test_repeats_page(tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    spec = tiny_spec(data, name="thrice", sweep=[2], repeats=3, workload={"runtime": 2})
    subprocess.run(  # the neighbour's file, written before the campaign starts
        ["fio", "--name=w", f"--filename={data / 'neighbour.dat'}", "--size=16M", "--rw=write"],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    display = NoisyThirdRepeat(data)
    outcome = run_campaign(spec, tmp_path / "results", LocalFioTarget, display)
    assert display.neighbour is not None and display.neighbour.wait(timeout=60) == 0
    assert outcome.ok, [r.summary for r in outcome.results]
    summary = json.loads((outcome.store.root / "summary.json").read_text())
    sums = [s["read"]["iops_sum"] for s in summary["steps"]]
    [spread] = [
        r for r in summary["repeats"] if r["direction"] == "read" and r["figure"] == "iops_sum"
    ]
    assert spread["values"] == sums
    assert spread["mean"] == pytest.approx(sum(sums) / 3)
    assert spread["cv"] == pytest.approx(stats.coefficient_of_variation(sums))
    # the repeat beside a noisy neighbour did far less: an outlier, flagged
    assert sums[2] < 0.8 * min(sums[:2]), sums
    assert spread["cv"] > 0.10 and spread["flagged"]
    assert all(s["window"]["read"]["iops_sum"] > 0 for s in summary["steps"])

    source = doc_source_copy(tmp_path)
    result = volperf("report", str(outcome.store.root), "--doc-source", str(source), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    page = (source / "test_results" / "thrice" / "index.rst").read_text()
    assert ".. list-table:: Common window against the whole run" in page
    assert ".. list-table:: Run-to-run spread" in page
    assert f"{spread['cv']:.1%}" in page
    assert f"{spread['mean']:.0f}" in page and "CV over 10%" in page
