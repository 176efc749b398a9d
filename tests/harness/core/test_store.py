from __future__ import annotations

import gzip
import os
from concurrent.futures import ThreadPoolExecutor

import pytest

from harness.core.store import (
    CampaignError,
    CampaignStore,
    StepStatus,
    atomic_write_text,
    read_raw_text,
)


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


def test_a_raw_file_is_read_kept_plain_or_gzipped(tmp_path):
    (tmp_path / "plain.json").write_text('{"é": 1}\n', encoding="utf-8")
    (tmp_path / "packed.json.gz").write_bytes(gzip.compress('{"é": 2}\n'.encode()))
    assert read_raw_text(tmp_path / "plain.json") == '{"é": 1}\n'
    assert read_raw_text(tmp_path / "packed.json") == '{"é": 2}\n'


def test_a_raw_file_kept_both_ways_is_read_plain(tmp_path):
    (tmp_path / "events.json").write_text("plain")
    (tmp_path / "events.json.gz").write_bytes(gzip.compress(b"packed"))
    assert read_raw_text(tmp_path / "events.json") == "plain"


def test_a_raw_file_kept_neither_way_is_not_found_by_its_plain_name(tmp_path):
    with pytest.raises(FileNotFoundError, match="events.json"):
        read_raw_text(tmp_path / "events.json")
    (tmp_path / "events.json.gz").mkdir()  # a folder of that name is no raw file
    with pytest.raises(FileNotFoundError):
        read_raw_text(tmp_path / "events.json")


@pytest.mark.parametrize(
    "packed",
    [gzip.compress(b"x" * 1000)[:-12], b"not gzip at all"],
    ids=["cut-short", "not-gzip"],
)
def test_a_broken_gzip_is_an_os_error_naming_it(tmp_path, packed):
    (tmp_path / "rally.json.gz").write_bytes(packed)
    with pytest.raises(OSError, match=r"rally\.json\.gz"):
        read_raw_text(tmp_path / "rally.json")


def test_a_gzipped_raw_file_not_utf8_is_a_value_error(tmp_path):
    (tmp_path / "stack.json.gz").write_bytes(gzip.compress(b"\xff\xfe"))
    with pytest.raises(ValueError):
        read_raw_text(tmp_path / "stack.json")
