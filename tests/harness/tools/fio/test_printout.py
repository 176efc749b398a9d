"""fio's output and logs printed as one text (a pod's log, a VM's signal) and split back,
on the text the shell prints (volperf's command for pods, run here by sh)."""

from __future__ import annotations

import subprocess

from harness.tools.fio.printout import print_logs_command, split_printout

FIO_JSON = '{\n  "fio version" : "fio-3.33",\n  "jobs" : []\n}\n'


def test_the_printout_splits_into_fio_output_and_log_files(tmp_path):
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "c01-randread_iops.1.log").write_text("1795420712608, 100, 0, 0, 0\n")
    (logs / "c01-randread_clat.1.log").write_text("1795420712608, 5, 0, 0, 0\n==> x\n")
    printed = subprocess.run(
        ["/bin/sh", "-c", f"printf '%s' '{FIO_JSON}'; {print_logs_command(str(logs))}"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    output, files = split_printout(printed)
    assert output == FIO_JSON
    assert files == {
        "c01-randread_iops.1.log": "1795420712608, 100, 0, 0, 0\n",
        # a line that only looks like a marker stays in its file
        "c01-randread_clat.1.log": "1795420712608, 5, 0, 0, 0\n==> x\n",
    }


def test_a_log_without_the_marker_is_all_fios_and_an_empty_folder_prints_none(tmp_path):
    assert split_printout(FIO_JSON) == (FIO_JSON, {})
    printed = subprocess.run(
        ["/bin/sh", "-c", print_logs_command(str(tmp_path))],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert split_printout(printed) == ("\n", {})
