from __future__ import annotations

import subprocess

import pytest

from harness.core.spec import FioWorkload
from harness.core.units import size_bytes
from harness.tools.fio.render import JobTarget, render_job, render_prefill, wait_until_prerun


def test_size_bytes():
    assert size_bytes("4k") == 4096
    assert size_bytes("1M") == 1 << 20
    assert size_bytes("40G") == 40 << 30
    assert size_bytes("512") == 512
    with pytest.raises(ValueError, match="not a size"):
        size_bytes("lots")


def _targets(tmp_path):
    return [
        JobTarget("c01-randread", "randread", str(tmp_path / "a.dat")),
        JobTarget("c02-randwrite", "randwrite", str(tmp_path / "b.dat")),
    ]


def fio_accepts(jobfile) -> None:
    """fio itself checks the rendered job (parse only, nothing is run)."""
    result = subprocess.run(["fio", "--parse-only", str(jobfile)], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


def test_rendered_job_is_valid_fio(tmp_path):
    workload = FioWorkload(
        name="w",
        rw=["randread", "randwrite"],
        iodepth=64,
        runtime=600,
        ramp_time=5,
        rate_iops=500,
        fio_options={"norandommap": 1},
    )
    text = render_job(workload, _targets(tmp_path))
    for line in (
        "iodepth=64",
        "runtime=600",
        "time_based=1",
        "ramp_time=5",
        "direct=1",
        "rate_iops=500",
        "norandommap=1",
        "[c01-randread]",
        "rw=randwrite",
    ):
        assert line in text.splitlines()
    jobfile = tmp_path / "job.fio"
    jobfile.write_text(text)
    fio_accepts(jobfile)


def test_logs_stagger_and_steady_state_are_fios_own_options(tmp_path):
    workload = FioWorkload(
        name="w",
        rw=["randread", "randwrite"],
        runtime=60,
        start_stagger=2,
        steadystate={"criterion": "iops_slope:0.3%", "duration": 20, "ramp": 5},
    )
    text = render_job(workload, _targets(tmp_path), logs=str(tmp_path / "logs"), positions=[1, 2])
    lines = text.splitlines()
    for line in (
        "steadystate=iops_slope:0.3%",
        "ss_dur=20",
        "ss_ramp=5",
        f"write_iops_log={tmp_path}/logs/c01-randread",
        f"write_lat_log={tmp_path}/logs/c02-randwrite",
        "log_avg_msec=1000",
        "log_unix_epoch=1",
        "startdelay=2",  # the first consumer here is the second of the step
        "startdelay=4",
    ):
        assert line in lines
    jobfile = tmp_path / "job.fio"
    jobfile.write_text(text)
    fio_accepts(jobfile)
    assert "startdelay" not in render_job(FioWorkload(name="w", rw="read"), _targets(tmp_path))
    # completions for stalls: coarse, every 100 ms, beside the other logs
    assert "log_hist_msec=100" in lines and "log_hist_coarseness=6" in lines
    assert f"write_hist_log={tmp_path}/logs/c01-randread-completions" in lines
    histograms = FioWorkload(name="w", rw="read", histogram_logs=True)
    lines = render_job(histograms, _targets(tmp_path), logs="/l").splitlines()
    assert "write_hist_log=/l/c01-randread" in lines and "log_hist_msec=1000" in lines
    assert "log_hist_coarseness=6" not in lines  # the full histograms tell stalls too


def test_numjobs_reports_one_entry_per_consumer(tmp_path):
    text = render_job(FioWorkload(name="w", rw=["read"], numjobs=4), _targets(tmp_path))
    assert "group_reporting=1" in text and text.count("new_group") == 2


def test_size_mode_has_no_runtime(tmp_path):
    text = render_job(FioWorkload(name="w", rw=["write"], mode="size"), _targets(tmp_path))
    options = {line.split("=")[0] for line in text.splitlines()}
    assert "runtime" not in options and "time_based" not in options


def test_device_regions_do_not_overlap(tmp_path):
    targets = [JobTarget(f"c{i}", "randwrite", "/dev/sdz", offset=i * (1 << 30)) for i in range(2)]
    text = render_job(FioWorkload(name="w", rw=["randwrite"], size="1G"), targets)
    assert "offset=0" in text and "offset=1073741824" in text


def test_prefill_writes_every_file_sequentially(tmp_path):
    text = render_prefill(FioWorkload(name="w", rw=["randread"], size="64M"), _targets(tmp_path))
    assert "rw=write" in text and "size=64M" in text and text.count("[prefill-") == 2
    jobfile = tmp_path / "prefill.fio"
    jobfile.write_text(text)
    fio_accepts(jobfile)


def test_a_shared_start_is_a_prerun_fios_job_files_keep_whole(tmp_path):
    prerun = wait_until_prerun(1_795_000_000_123_456_789, "/mnt/volume")
    assert ";" not in prerun and "#" not in prerun  # fio's job files end a value there
    assert prerun.startswith("cd /mnt/volume && sh -c '")  # <job>.prerun.txt goes there
    assert "1795000000123456789 - $(date +%s%N)" in prerun
    workload = FioWorkload(name="w", rw=["randread"], runtime=5)
    text = render_job(workload, _targets(tmp_path)[:1], prerun=prerun)
    assert f"exec_prerun={prerun}\n" in text
    assert "exec_prerun" not in render_job(workload, _targets(tmp_path)[:1])
