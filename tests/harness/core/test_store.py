from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor

import pytest

from harness.core.store import CampaignError, CampaignStore, StepStatus, atomic_write_text


def test_atomic_write_leaves_no_temporary_files(tmp_path):
    target = tmp_path / "a" / "b.txt"
    atomic_write_text(target, "one")
    atomic_write_text(target, "two")
    assert target.read_text() == "two"
    assert os.listdir(target.parent) == ["b.txt"]


def test_atomic_write_keeps_the_old_file_when_writing_fails(tmp_path):
    target = tmp_path / "b.txt"
    atomic_write_text(target, "old")

    with pytest.raises(TypeError):
        atomic_write_text(target, 42)  # type: ignore[arg-type]
    assert target.read_text() == "old"
    assert os.listdir(tmp_path) == ["b.txt"]


def test_status_round_trip_and_attempts_keep_old_raw(tmp_path):
    store = CampaignStore(tmp_path / "c")
    assert store.read_status("001").state == "pending"
    store.begin_attempt("001")
    (store.raw_dir("001") / "fio.out").write_text("first")
    status = store.begin_attempt("001")
    assert status.attempts == 2 and status.state == "running"
    assert (store.step_dir("001") / "raw.attempt-1" / "fio.out").read_text() == "first"
    assert list(store.raw_dir("001").iterdir()) == []
    with pytest.raises(ValueError):
        store.write_status(StepStatus("001", state="weird"))


def test_created_resources(tmp_path):
    store = CampaignStore(tmp_path / "c")
    store.record_created("/x/a.dat", kind="file", ours=True)
    store.record_created("/x/a.dat", prefilled_bytes=10)
    assert store.created() == {"/x/a.dat": {"kind": "file", "ours": True, "prefilled_bytes": 10}}
    store.forget_created("/x/a.dat")
    assert store.created() == {}


def test_notes_made_by_many_threads_at_once_are_all_kept(tmp_path):
    """A plane's creators note their namespaces from threads: each note read, changed and
    written whole, none lost to another's write."""
    store = CampaignStore(tmp_path / "c")
    with ThreadPoolExecutor(8) as pool:
        list(pool.map(lambda n: store.record_created(f"ns-{n}", kind="ns"), range(40)))
    assert sorted(store.created()) == sorted(f"ns-{n}" for n in range(40))
    with ThreadPoolExecutor(8) as pool:
        list(pool.map(lambda n: store.forget_created(f"ns-{n}"), range(0, 40, 2)))
    assert sorted(store.created()) == sorted(f"ns-{n}" for n in range(1, 40, 2))


def test_a_steps_notes_in_one_write_and_forgotten_together(tmp_path):
    store = CampaignStore(tmp_path / "c")
    store.record_created("file", kind="file")
    store.record_all_created({"ns-1": {"kind": "ns"}, "ns-2": {"kind": "ns"}})
    assert store.created() == {
        "file": {"kind": "file"},
        "ns-1": {"kind": "ns"},
        "ns-2": {"kind": "ns"},
    }
    store.forget_created("ns-1", "ns-2", "never-noted")
    assert store.created() == {"file": {"kind": "file"}}


def test_one_run_per_campaign(tmp_path):
    store = CampaignStore(tmp_path / "c")
    with (
        store.lock(),
        pytest.raises(CampaignError, match="another volperf run holds"),
        store.lock(),
    ):
        pass
    with store.lock():
        pass


def test_not_a_campaign(tmp_path):
    with pytest.raises(CampaignError, match="not a campaign"):
        CampaignStore(tmp_path).read_campaign()
