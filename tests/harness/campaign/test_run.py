"""Running, interrupting and resuming campaigns (real fio)."""

from __future__ import annotations

import contextlib
import subprocess
import threading

import psutil
import pytest

from harness.campaign.run import Display, run_campaign
from harness.core.code_stamp import code_hash, current_stamp
from harness.core.store import CampaignError, CampaignStore
from harness.planes.local.fio_target import LocalFioTarget
from tests.harness.helpers import REPO, raw_files, tiny_spec

pytestmark = pytest.mark.functional


def _fio_jobs_running() -> bool:
    """Whether a fio this process started has forked its jobs' processes: it has set its
    signal handlers by then (fio_backend, before run_threads)."""
    for child in psutil.Process().children(recursive=True):
        with contextlib.suppress(psutil.NoSuchProcess):
            parent = child.parent()
            if child.name() == "fio" and parent is not None and parent.name() == "fio":
                return True
    return False


class StopDuringStep(Display):
    """Asks the run to stop, as Ctrl-C would, ``after`` seconds into the given step's
    measured fio (its live IOPS shown: the prefill's are not) once fio runs its jobs."""

    def __init__(self, stop: threading.Event, step_index: int, after: float = 0.5):
        self.stop, self.step_index, self.after = stop, step_index, after

    def step_started(self, step, position, total):
        def tick(elapsed, iops):
            measuring = step.index == self.step_index and iops is not None
            if measuring and elapsed > self.after and _fio_jobs_running():
                self.stop.set()

        return tick


def test_interrupted_campaign_resumes_at_the_first_step_not_done(tmp_path):
    spec = tiny_spec(tmp_path / "data", sweep=[1, 2, 3], workload={"runtime": 5})
    (tmp_path / "data").mkdir()
    stop = threading.Event()
    # once the measured fio runs its jobs: a stop at a fixed 0.5 s, then 2 s, into the
    # step came before fio had set its signal handlers on a loaded machine (fio.out empty),
    # or during the prefill (no fio.out)
    during = StopDuringStep(stop, 2)
    first = run_campaign(spec, tmp_path / "r", LocalFioTarget, during, stop)
    store = first.store
    steps = store.step_ids()
    assert first.interrupted and not first.ok
    assert [store.read_status(s).state for s in steps] == ["done", "interrupted"]
    partial = store.raw_dir(steps[1]) / "fio.out"
    assert "terminating on signal" in partial.read_text()  # fio stopped cleanly
    done_before = raw_files(store.raw_dir(steps[0]))
    assert not list((tmp_path / "data").iterdir())  # files cleaned even when interrupted

    second = run_campaign(spec, tmp_path / "r", LocalFioTarget)
    assert second.ok
    statuses = [store.read_status(s) for s in store.step_ids()]
    assert [(s.state, s.attempts) for s in statuses] == [("done", 1), ("done", 2), ("done", 1)]
    # the finished step was not run again, byte for byte
    assert raw_files(store.raw_dir(steps[0])) == done_before
    # the interrupted attempt's output is kept beside the new one
    assert (store.step_dir(steps[1]) / "raw.attempt-1" / "fio.out").exists()
    rows = (store.root / "fio.csv").read_text().splitlines()
    assert len(rows) == 1 + 1 + 2 + 3


def test_a_finished_campaign_runs_nothing_again(tmp_path):
    spec = tiny_spec(tmp_path, sweep=[1])
    run_campaign(spec, tmp_path / "r", LocalFioTarget)
    status = CampaignStore(tmp_path / "r" / "tiny").read_status("001-randrw-4k-c001-r1")
    again = run_campaign(spec, tmp_path / "r", LocalFioTarget)
    assert again.ok
    assert again.store.read_status("001-randrw-4k-c001-r1") == status


def test_resuming_with_another_spec_is_refused(tmp_path):
    run_campaign(tiny_spec(tmp_path, sweep=[1]), tmp_path / "r", LocalFioTarget)
    with pytest.raises(CampaignError, match=r"another spec.*\n  sweep: \[1\] in the campaign"):
        run_campaign(tiny_spec(tmp_path, sweep=[1, 2]), tmp_path / "r", LocalFioTarget)


def test_a_step_left_running_by_a_dead_run_counts_as_interrupted(tmp_path):
    spec = tiny_spec(tmp_path, sweep=[1])
    store = CampaignStore(tmp_path / "r" / "tiny")
    run_campaign(spec, tmp_path / "r", LocalFioTarget)
    status = store.read_status("001-randrw-4k-c001-r1")
    status.state = "running"
    store.write_status(status)
    outcome = run_campaign(spec, tmp_path / "r", LocalFioTarget)
    assert outcome.ok and store.read_status("001-randrw-4k-c001-r1").attempts == 2


def test_labels_with_secrets_never_reach_the_campaign_file(tmp_path):
    spec = tiny_spec(tmp_path, sweep=[1], labels={"backend": "ssd", "os_password": "hunter2"})
    outcome = run_campaign(spec, tmp_path / "r", LocalFioTarget)
    for path in outcome.store.root.rglob("*"):
        if path.is_file():
            assert b"hunter2" not in path.read_bytes(), path
    campaign = outcome.store.read_campaign()
    assert campaign["spec"]["labels"]["os_password"] == "<redacted>"
    assert campaign["environment"]["tools"]["fio"].startswith("fio-")
    assert campaign["environment"]["storage"]["fstype"]
    # resuming the same spec still matches the redacted copy
    assert run_campaign(spec, tmp_path / "r", LocalFioTarget).ok


def test_the_campaign_names_the_code_that_measured_it(tmp_path):
    """campaign.yaml (and so the page's environment table) has volperf's commit and the
    hash the Scale page compares, of the code running now."""
    outcome = run_campaign(tiny_spec(tmp_path, sweep=[1]), tmp_path / "r", LocalFioTarget)
    code = outcome.store.read_campaign()["environment"]["volperf_code"]
    now = current_stamp()
    assert code == {
        "commit": now.commit or "(not a git checkout)",
        "uncommitted_files": now.uncommitted,
        "hash": code_hash(),
    }
    head = subprocess.run(  # the suite runs in a clone
        ["git", "-C", str(REPO), "rev-parse", "HEAD"], capture_output=True, text=True, check=True
    )
    assert code["commit"] == head.stdout.strip()


def test_a_field_kept_redacted_matches_on_resuming():
    """A campaign saved by an older volperf has key_name: <redacted>; its spec, with the
    key pair's name now kept, is still the same spec."""
    from harness.campaign.run import _spec_differences
    from harness.core.secrets import REDACTED

    stored = {"target": {"heat": {"key_name": REDACTED, "flavor": "m1"}}}
    assert _spec_differences(stored, {"target": {"heat": {"key_name": "", "flavor": "m1"}}}) == []
    assert _spec_differences(stored, {"target": {"heat": {"key_name": "", "flavor": "m2"}}}) == [
        "target.heat.flavor: 'm1' in the campaign, 'm2' now"
    ]
