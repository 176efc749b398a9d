"""`volperf cleanup` through click's runner: what it prints of a killed run's fault notes."""

from __future__ import annotations

from click.testing import CliRunner

from harness.cli.main import main
from harness.core.store import CampaignStore


def test_cleanup_of_a_fault_note_with_nothing_left_changed_prints_no_empty_undone(tmp_path):
    store = CampaignStore(tmp_path / "c")
    store.root.mkdir()
    store.write_campaign({"name": "c"}, {}, "rbd:volumes")
    conf = tmp_path / "ceph.conf"  # no cluster: nothing may be asked of one
    note = {"kind": "ceph-fault", "conf": str(conf), "user": "admin", "osd": 1}
    store.record_created("ceph-fault:osd.1", **note, stopped=False, out=False, paused=False)

    result = CliRunner().invoke(main, ["cleanup", str(store.root)])
    assert result.exit_code == 0, result.output
    said = result.output.splitlines()
    assert not any(line.startswith("undone") for line in said), said  # no "undone: …: "
    assert said[-1] == "0 resources removed"
    text = " ".join(" ".join(said[:-1]).split())  # the console wraps at 130 columns
    assert text == (
        f"nothing to undo: osd.1 of the Ceph cluster of {conf} (its note said nothing was "
        "left changed)"
    )
    assert store.created() == {}
