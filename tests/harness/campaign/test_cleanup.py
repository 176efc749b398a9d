"""What `volperf cleanup` says of what it removed (harness/campaign/cleanup.py: told)."""

from __future__ import annotations

from harness.campaign.cleanup import told


def test_removed_resources_are_said_removed_and_counted_and_fault_lines_as_they_are():
    lines, all_removed = told(
        [
            "file /d/volperf-q-c01.dat",
            "undone: osd.1 of the Ceph testbed: start-osd, in-osd",
            "nothing to undo: osd.2 of the Ceph testbed (its note said nothing was left changed)",
        ]
    )
    assert lines == [
        "removed file /d/volperf-q-c01.dat",
        "undone: osd.1 of the Ceph testbed: start-osd, in-osd",
        "nothing to undo: osd.2 of the Ceph testbed (its note said nothing was left changed)",
        "1 resources removed, the faults on 1 undone",
    ]
    assert all_removed


def test_a_note_with_nothing_to_undo_is_neither_removed_nor_undone():
    lines, all_removed = told(["nothing to undo: node n2 of the k8s testbed (its note …)"])
    assert lines[-1] == "0 resources removed"
    assert not any(line.startswith(("removed", "undone")) for line in lines)
    assert all_removed


def test_what_was_not_removed_is_said_and_fails_the_cleanup():
    lines, all_removed = told(["NOT removed: RBD images of volumes (no cluster)"])
    assert lines == ["NOT removed: RBD images of volumes (no cluster)", "0 resources removed"]
    assert not all_removed
