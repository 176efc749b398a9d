"""fio's output and logs printed as one text (a pod's log, a VM's signal) and split back,
on the text the shell prints (volperf's command for pods, run here by sh)."""

from __future__ import annotations

import subprocess

from harness.tools.fio.printout import print_logs_command, printout_complete, split_printout

FIO_JSON = '{\n  "fio version" : "fio-3.33",\n  "jobs" : []\n}\n'


def _printed(logs, before: str = "") -> str:
    """What sh prints: ``before`` (fio's JSON), then volperf's command for the logs."""
    return subprocess.run(
        ["/bin/sh", "-c", f"printf '%s' '{before}'; {print_logs_command(str(logs))}"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout


def test_the_printout_splits_into_fio_output_and_log_files(tmp_path):
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "c01-randread_iops.1.log").write_text("1795420712608, 100, 0, 0, 0\n")
    (logs / "c01-randread_clat.1.log").write_text("1795420712608, 5, 0, 0, 0\n==> x\n")
    printed = _printed(logs, FIO_JSON)
    output, files = split_printout(printed)
    assert printout_complete(printed)
    assert output == FIO_JSON
    assert files == {
        "c01-randread_iops.1.log": "1795420712608, 100, 0, 0, 0\n",
        # a line that only looks like a marker stays in its file
        "c01-randread_clat.1.log": "1795420712608, 5, 0, 0, 0\n==> x\n",
    }


def test_a_log_without_the_marker_is_all_fios_and_an_empty_folder_prints_none(tmp_path):
    assert split_printout(FIO_JSON) == (FIO_JSON, {})
    assert split_printout(_printed(tmp_path)) == ("\n", {})


def test_a_printout_read_before_its_printer_was_done_is_not_complete(tmp_path):
    """A pod's log read while its last lines were still on their way (the CI run of
    2026-12-06: a capacity step's pod whose IOPS log, printed last, was not there)."""
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "c01-randread_bw.1.log").write_text("1795420712608, 400, 0, 0, 0\n")
    (logs / "c01-randread_iops.1.log").write_text("1795420712608, 100, 0, 0, 0\n")
    printed = _printed(logs, FIO_JSON)
    cut = printed[: printed.index("==> c01-randread_iops")]
    assert printout_complete(printed) and not printout_complete(cut)
    assert set(split_printout(cut)[1]) == {"c01-randread_bw.1.log"}
    assert not printout_complete(FIO_JSON)
