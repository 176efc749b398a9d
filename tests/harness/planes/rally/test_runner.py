"""The runner has every data-plane workload of a task keep its VMs' answers in a folder of
its own under the step's raw/data-plane/, in either form of a Rally subtask, and leaves a
folder the task names, and other scenarios, alone; a poll interval reaches every status
check of rally-openstack's configuration, and only those, a wait timeout every wait for a
status, and only those, and Rally's own reading of
that configuration is what the step keeps of how it polled; the owners it notes match
the names Rally gives what a task makes, its validation's users too."""

from __future__ import annotations

import configparser
import json
import subprocess
import sys
from pathlib import Path

from rally_openstack.common.cfg import opts

from harness.planes.rally.cleanup import name_matcher
from harness.planes.rally.runner import (
    DATA_PLANE_SCENARIO,
    keep_data_plane_raw,
    owner_uuids,
    polling,
    rally_config,
    waiting,
)


def test_every_data_plane_workload_keeps_its_answers_in_a_folder_of_its_own():
    config = {
        "subtasks": [
            {"scenario": {DATA_PLANE_SCENARIO: {"vm_count": 2, "keep_raw": ""}}},
            {
                "workloads": [
                    {"scenario": {DATA_PLANE_SCENARIO: {"vm_count": 4}}},
                    {"scenario": {DATA_PLANE_SCENARIO: {"keep_raw": "/mine"}}},
                    {"scenario": {"CinderVolumes.create_volume": {"size": 1}}},
                ]
            },
        ]
    }
    keep_data_plane_raw(config, Path("/raw"))
    first, second = config["subtasks"]
    assert first["scenario"][DATA_PLANE_SCENARIO]["keep_raw"] == "/raw/data-plane/subtask-1"
    kept = [next(iter(w["scenario"].values())).get("keep_raw") for w in second["workloads"]]
    assert kept == ["/raw/data-plane/subtask-2-1", "/mine", None]


def test_a_poll_interval_sets_every_poll_and_caps_every_prepoll_delay():
    defaults = {o.name: o.default for g, os in opts.list_opts() if g == "openstack" for o in os}
    options = polling(0.25)
    polls = {n for n in defaults if n.endswith("_poll_interval")}
    prepolls = {n for n in defaults if n.endswith("_prepoll_delay")}
    assert len(polls) >= 40 and set(options) == polls | prepolls
    assert {options[n] for n in polls} == {0.25}
    assert options["cinder_volume_create_prepoll_delay"] == 0.25  # Rally's 2 s, capped
    assert options["nova_server_start_prepoll_delay"] == 0.0  # Rally's 0 s, kept
    assert all(options[n] == min(defaults[n], 0.25) for n in prepolls)


def test_rally_config_has_the_database_and_the_polls_only_when_asked(tmp_path):
    rally_dir, step = tmp_path / "rally", tmp_path / "raw"
    step.mkdir()
    plain = configparser.ConfigParser()
    plain.read(rally_config(rally_dir))
    assert plain.sections() == ["database"]
    assert plain["database"]["connection"] == f"sqlite:///{rally_dir / 'rally.sqlite'}"
    written = rally_config(rally_dir, 0.5, where=step)
    assert written == step / "rally.conf"
    polled = configparser.ConfigParser()
    polled.read(written)
    assert polled.sections() == ["database", "openstack"]
    assert polled["database"] == plain["database"]
    assert float(polled["openstack"]["cinder_volume_delete_poll_interval"]) == 0.5
    assert float(polled["openstack"]["nova_server_resize_poll_interval"]) == 0.5
    assert "cinder_volume_create_timeout" not in polled["openstack"]


def test_a_wait_timeout_sets_every_wait_and_only_with_the_polls_asked(tmp_path):
    defaults = {o.name: o.default for g, os in opts.list_opts() if g == "openstack" for o in os}
    waits = {n for n in defaults if n.endswith("_timeout")}
    assert len(waits) >= 40 and set(waiting(150)) == waits
    assert {waiting(150)[n] for n in waits} == {150}

    def written(poll_interval: float | None) -> dict[str, float]:
        config = configparser.ConfigParser()
        config.read(rally_config(tmp_path / "rally", poll_interval, tmp_path, wait_timeout=150))
        return {name: float(value) for name, value in config["openstack"].items()}

    assert written(1) == {**polling(1), **waiting(150)}
    assert written(None) == waiting(150)


WAITS = """
from pathlib import Path
import sys
from rally.common import cfg
from harness.planes.rally.runner import open_api, rally_config
rally_dir, where = Path(sys.argv[1]), Path(sys.argv[2])
open_api(rally_dir, rally_config(rally_dir, where=where, wait_timeout=150))
print(cfg.CONF.openstack.cinder_volume_create_timeout, cfg.CONF.openstack.nova_server_boot_timeout)
"""


def test_the_rally_that_loads_the_configuration_waits_as_asked(tmp_path):
    ran = subprocess.run(
        [sys.executable, "-c", WAITS, str(tmp_path / "rally"), str(tmp_path)],
        capture_output=True,
        text=True,
        check=True,
    )
    assert ran.stdout.splitlines()[-1] == "150.0 150.0"


IN_EFFECT = """
import json, sys
from pathlib import Path
from harness.planes.rally.runner import open_api, polling_in_effect, rally_config
rally_dir, where = Path(sys.argv[1]), Path(sys.argv[2])
interval = float(sys.argv[3]) if len(sys.argv) > 3 else None
open_api(rally_dir, rally_config(rally_dir, interval, where=where))
print(json.dumps(polling_in_effect()))
"""


def in_effect(tmp_path: Path, *interval: str) -> dict[str, float]:
    """Rally's polling as a fresh process of it holds it (its configuration is global)."""
    where = tmp_path / f"raw{len(interval)}"
    where.mkdir()
    ran = subprocess.run(
        [sys.executable, "-c", IN_EFFECT, str(tmp_path / "rally"), str(where), *interval],
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(ran.stdout.splitlines()[-1])


def test_the_polling_in_effect_is_rallys_own_reading_of_its_configuration(tmp_path):
    defaults = {
        o.name: o.default
        for group, options in opts.list_opts()
        for o in options
        if group == "openstack"
    }
    asked, left = in_effect(tmp_path, "0.25"), in_effect(tmp_path)
    assert asked == polling(0.25) and set(left) == set(asked)
    assert left == {name: defaults[name] for name in left}
    assert (
        left["cinder_volume_delete_poll_interval"]
        == 2.0
        != asked["cinder_volume_delete_poll_interval"]
    )


def test_the_owners_match_what_a_workload_and_the_tasks_validation_name():
    """Rally's engine gives a workload's contexts its uuid as owner_id; the users context
    of the task's semantic validation gets none and names its project after the task
    (CI, stop 64: its cleanup failed on a Neutron 500 and left c_rally_fe004e81_V2r2zRFZ,
    of task fe004e81-…, which the workloads' uuids alone did not match)."""
    from rally.plugins.task.contexts.dummy import DummyContext as Made  # Rally's naming

    task = {"uuid": "fe004e81-5284-454d-ac54-32c47a2d958b"}
    workload = "e577a7e1-6789-43cd-ae9d-fd52832ddbf6"
    detailed = {**task, "subtasks": [{"workloads": [{"uuid": workload}]}]}
    ours = name_matcher(owner_uuids(detailed))
    in_workload = Made({"task": task, "owner_id": workload})
    in_validation = Made({"task": task, "config": {}})
    for made in (in_workload, in_validation):
        assert ours(made.generate_random_name())
    assert ours("c_rally_fe004e81_V2r2zRFZ")
    stranger = Made({"task": {"uuid": "0badcafe-0000-4000-8000-000000000000"}})
    assert not ours(stranger.generate_random_name())
