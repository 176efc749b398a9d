"""A Rally step stopped as Ctrl-C stops it, in a real Rally task on Rally's own empty
environment (Dummy.dummy: no cloud needed): iterations still running when the runner's
grace ends are Rally's forked workers, in the runner's process group, and nothing of
that group is left running once the step has ended."""

from __future__ import annotations

import threading
import time
from pathlib import Path

from harness.core.plan import plan_steps
from harness.core.spec import validate
from harness.core.store import CampaignStore
from harness.host.process import KILL_GRACE_S, pids_naming
from harness.planes.rally.runner import rally_config
from harness.planes.rally.target import RallyTarget
from tests.harness.helpers import dummy_task, rally_cli_env

# each iteration sleeps past the runner's grace: Rally's abort waits for running ones
SLEEPING_TASK = dummy_task("sleeping", sleep=120)


def test_a_stopped_rally_step_leaves_none_of_its_runners_workers_running(tmp_path: Path):
    config = rally_config(tmp_path / "rally")
    (tmp_path / "empty.json").write_text("{}")
    rally_cli_env(config, "dummy", tmp_path / "empty.json")
    (tmp_path / "sleeping.yaml").write_text(SLEEPING_TASK)
    spec = validate(
        {
            "name": "rally-stopped",
            "sweep": [2],
            "target": {"type": "openstack"},
            "workloads": [
                {"name": "sleeping", "tool": "rally", "task": str(tmp_path / "sleeping.yaml")}
            ],
        }
    )
    target = RallyTarget(spec, rally_dir=config.parent)
    target.env = "dummy"  # prepare's is of a cloud: this one is Rally's empty environment
    store = CampaignStore(tmp_path / "campaign")
    store.write_campaign({"name": "rally-stopped"}, {}, "rally")
    [step] = plan_steps(spec)
    stop = threading.Event()
    runners = lambda: pids_naming("harness.planes.rally.runner", str(config.parent))  # noqa: E731

    def stop_once_iterating() -> None:  # both workers forked and sleeping in an iteration
        deadline = time.monotonic() + 120
        while len(runners()) < 3 and time.monotonic() < deadline:
            time.sleep(0.2)
        stop.set()

    threading.Thread(target=stop_once_iterating, daemon=True).start()
    began = time.monotonic()
    outcome = target.run_step(step, store, stop, lambda elapsed, done: None)
    assert outcome.state == "interrupted", outcome
    assert time.monotonic() - began < 120 - KILL_GRACE_S  # stopped, not waited out
    # the runner and the two workers it forked were all running when the step was stopped
    assert "aborting Rally task" in (store.raw_dir(step.id) / "runner.err").read_text()
    deadline = time.monotonic() + 5  # SIGKILL is delivered, not waited for
    while runners() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert runners() == [], f"still running after the step ended: {runners()}"
