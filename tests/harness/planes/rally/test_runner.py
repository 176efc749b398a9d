"""The runner has every data-plane workload of a task keep its VMs' answers in a folder of
its own under the step's raw/data-plane/, in either form of a Rally subtask, and leaves a
folder the task names, and other scenarios, alone."""

from __future__ import annotations

from pathlib import Path

from harness.planes.rally.runner import DATA_PLANE_SCENARIO, keep_data_plane_raw


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
