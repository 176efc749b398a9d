"""Every task file of rally_plugins/tasks with each of its samples (default args, the
presets, every optional SLA and the Ceph hook) rendered by Rally and validated by Rally
against the OpenStack testbed: plugins, their arguments, the image and flavor it names."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from harness.core.spec import validate
from harness.core.store import CampaignStore
from harness.planes.rally.runner import rally_config
from harness.planes.rally.target import TASKS_DIR, RallyTarget
from tests.harness.helpers import rally_cli_env

REFERENCE = Path(__file__).parents[2] / "results" / "reference" / "performance-docs-cinder-ceph"
PRESETS = sorted((TASKS_DIR / "presets").glob("*.yaml"))


def _samples(ceph_conf: Path) -> dict[str, dict]:
    samples = {"defaults": {}}
    samples |= {preset.stem: yaml.safe_load(preset.read_text()) for preset in PRESETS}
    samples["every-option"] = {
        "times": 3,
        "concurrency": 2,
        "scenarios": ["create_and_attach_volume"],
        "action_p95_max": {"nova.boot_server": 30, "total": 90},
        "baseline": str(REFERENCE),
        "max_increase_percent": 50,
        "ceph_conf": str(ceph_conf),
        "ceph_user": "admin",
        "health_interval": 1,
        "quotas": {"cinder": {"volumes": 50}},
    }
    samples["cloud-quotas"] = {"quotas": {}}
    return samples


@pytest.fixture(scope="module")
def validator(tmp_path_factory, openstack_testbed):
    target = {"type": "openstack", "clouds_yaml": str(openstack_testbed.clouds_yaml)}
    spec = validate(
        {
            "name": "task-samples",
            "sweep": [1],
            "target": target,
            "workloads": [{"name": "cp", "tool": "rally"}],
        }
    )
    work = tmp_path_factory.mktemp("rally-validate")
    target = RallyTarget(spec, rally_dir=work / "rally")
    store = CampaignStore(work / "campaign")
    target.prepare(spec, store)
    target.cleanup(store)  # its environment is all this needs: no runner kept warm
    # Rally's database and environment first, so that validations can run at once
    config = rally_config(work / "rally")
    rally_cli_env(config, target.env, work / "rally" / f"{target.env}.env.json")

    def run(task: Path, arg_sets: list[dict]) -> subprocess.CompletedProcess[str]:
        """The runner's validation of ``task`` with each set of args, in one process."""
        argv = [sys.executable, "-m", "harness.planes.rally.runner", "--rally-dir"]
        argv += [str(work / "rally"), "--env", target.env, "--task", str(task)]
        argv += [part for args in arg_sets for part in ("--args", json.dumps(args))]
        return subprocess.run(
            [*argv, "--validate-only"], capture_output=True, text=True, timeout=600
        )

    return run


def _answers(done: subprocess.CompletedProcess[str]) -> list[dict]:
    """The runner's line per set of args, in order."""
    lines = [line for line in done.stdout.splitlines() if line.startswith('{"args": ')]
    return [json.loads(line) for line in lines]


def test_there_are_task_files_and_presets():
    assert (TASKS_DIR / "control-plane.yaml").exists()
    assert (TASKS_DIR / "data-plane.yaml").exists()
    assert {p.stem for p in PRESETS} >= {"seed-30-60-120", "sweep-2-to-120", "lifecycle"}


def test_every_sample_is_valid_for_rally(validator, ceph_testbed):
    samples = _samples(ceph_testbed.conf)
    done = validator(TASKS_DIR / "control-plane.yaml", list(samples.values()))
    answers = _answers(done)
    assert [a["args"] for a in answers] == list(range(len(samples))), done.stderr[-3000:]
    for name, answer in zip(samples, answers, strict=True):
        assert "error" not in answer, f"{name}: {answer['error']}"
        config = answer["config"]
        runners = [next(iter(s["runner"].values())) for s in config["subtasks"]]
        if name == "seed-30-60-120":
            assert [(r["times"], r["concurrency"]) for r in runners] == [
                (30, 10),
                (60, 20),
                (120, 40),
            ]
        contexts = [s["contexts"] for s in config["subtasks"]]
        if name == "defaults":  # no quota of the cloud's stands in the way of concurrency
            assert all(c["quotas"]["nova"]["instances"] == -1 for c in contexts)
            assert all(c["quotas"]["cinder"]["volumes"] == -1 for c in contexts)
        if name == "cloud-quotas":
            assert not any("quotas" in c for c in contexts)
        if name == "lifecycle":  # every operation once, validated against the testbed
            assert len({next(iter(s["scenario"])) for s in config["subtasks"]}) == 12
            assert ("api_versions@openstack", {"cinder": {"version": "3.42"}}) in [
                item for c in contexts for item in c.items()
            ]
        if name == "sweep-2-to-120":
            assert [r["concurrency"] for r in runners][-2:] == [120, 120]
        if name == "every-option":
            [subtask] = config["subtasks"]
            assert set(subtask["sla"]) == {
                "failure_rate",
                "volperf_action_percentile",
                "volperf_regression",
            }
            assert subtask["contexts"]["quotas"] == {"cinder": {"volumes": 50}}
            assert subtask["hooks"][0]["action"] == {
                "volperf_ceph_health": {"ceph_conf": str(ceph_testbed.conf), "user": "admin"}
            }


def test_a_bad_argument_is_refused_by_rally(validator):
    task = TASKS_DIR / "control-plane.yaml"
    samples = [{"image_name": "no-such-image"}, {"scenarios": ["extend", "bogus"]}, {}]
    done = validator(task, samples)
    assert done.returncode != 0
    image, scenario, defaults = _answers(done)
    assert "no-such-image" in image["error"]
    assert "no such scenario in control-plane.yaml: bogus" in scenario["error"]
    assert "error" not in defaults  # a refused set stops none after it


def test_the_data_plane_task_is_valid_for_rally_with_defaults_and_every_option(validator):
    task = TASKS_DIR / "data-plane.yaml"
    every = {"vm_counts": [3], "iterations": 2, "rw": ["randrw"], "bs": "64k", "iodepth": 4}
    every |= {"size": "2G", "runtime": 30, "mode": "size", "prefill": False}
    every |= {"image": "tiny", "flavor": "tiny", "network": "", "device_mode": "device"}
    every |= {"volume_size": 3, "agent_timeout": 900, "max_failure_percent": 50, "quotas": {}}
    every |= {"fail_on_warnings": True, "ignore_warnings": ["emulated-cpu"]}
    every |= {"rate_iops": 50, "rate_process": "linear"}
    every |= {"capacity_p99_ms": 20, "capacity_achieved_pct": 90}
    samples = [{}, {"concurrency": 6, "times": 12}, every]
    done = validator(task, samples)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    defaults, swept, everything = [answer["config"] for answer in _answers(done)]
    counts = [s["scenario"]["VolPerf.cinder_fio"]["vm_count"] for s in defaults["subtasks"]]
    assert counts == [2, 4, 10, 20, 40]  # the reference study's
    [subtask] = swept["subtasks"]
    assert subtask["scenario"]["VolPerf.cinder_fio"]["vm_count"] == 6  # volperf's sweep
    assert subtask["runner"]["constant"] == {"times": 1, "concurrency": 1}
    [subtask] = everything["subtasks"]
    args = subtask["scenario"]["VolPerf.cinder_fio"]
    assert args["volume_size"] == 3 and args["agent_timeout"] == 900 and args["rw"] == ["randrw"]
    assert subtask["runner"]["constant"] == {"times": 2, "concurrency": 1}
    assert "quotas" not in subtask["contexts"]
    assert subtask["sla"]["volperf_warnings"] == {"ignore": ["emulated-cpu"]}
    assert "volperf_warnings" not in defaults["subtasks"][0]["sla"]  # only when asked
    assert (args["rate_iops"], args["rate_process"]) == (50, "linear")
    assert subtask["sla"]["volperf_capacity"] == {"rate_iops": 50, "p99_ms": 20, "achieved_pct": 90}
    assert "volperf_capacity" not in defaults["subtasks"][0]["sla"]
    assert "rate_iops" not in defaults["subtasks"][0]["scenario"]["VolPerf.cinder_fio"]


def test_a_bad_data_plane_argument_is_refused_and_named(validator):
    done = validator(TASKS_DIR / "data-plane.yaml", [{"device_mode": "nbd", "vm_counts": [2]}])
    assert done.returncode != 0
    [answer] = _answers(done)
    assert "device_mode" in answer["error"]
