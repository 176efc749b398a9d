"""The volperf exporter keeps the Rally environment's password out of the campaign by
value: a real task result (tests/harness/planes/rally/fixtures) imported into a Rally
database of its own, in an environment whose admin password is planted in the task's
workloads' descriptions, then exported with `rally task export --type volperf`."""

from __future__ import annotations

import json
import secrets
from pathlib import Path

from tests.harness.helpers import rally_cli, rally_cli_env

TASK = Path(__file__).parents[1] / "harness" / "planes" / "rally" / "fixtures"


def test_the_environments_password_is_redacted_wherever_it_appears(tmp_path):
    password = f"pw-{secrets.token_urlsafe(15)}"
    config = tmp_path / "rally.conf"
    config.write_text(f"[database]\nconnection = sqlite:///{tmp_path}/rally.sqlite\n")
    admin = {
        "username": "admin",
        "password": password,
        "project_name": "admin",
        "user_domain_name": "Default",
        "project_domain_name": "Default",
    }
    spec = {"existing@openstack": {"auth_url": "http://127.0.0.1:1/v3", "admin": admin}}
    (tmp_path / "env.json").write_text(json.dumps(spec))
    rally_cli_env(config, "planted", tmp_path / "env.json")

    document = json.loads((TASK / "control-plane-c2.json").read_text())
    for task in document["tasks"]:
        for subtask in task["subtasks"]:
            for workload in subtask["workloads"]:  # as if the user had written it there
                workload["description"] = f"planted {password} here"
    (tmp_path / "task.json").write_text(json.dumps(document))
    imported = rally_cli(
        config, "task", "import", "--file", str(tmp_path / "task.json"), "--env", "planted"
    )
    uuid = imported.stdout.split("Task UUID: ")[1].split(".")[0].strip()

    destination = tmp_path / "exported"
    exported = rally_cli(
        config, "task", "export", "--uuid", uuid, "--type", "volperf", "--to", str(destination)
    )
    assert password not in exported.stdout + exported.stderr
    files = [p for p in destination.rglob("*") if p.is_file()]
    assert {"rally.csv", "summary.json", "campaign.yaml"} <= {p.name for p in files}
    for path in files:
        assert password.encode() not in path.read_bytes(), path
    [rally_json] = destination.glob("steps/*/raw/rally.json")
    [subtask, *_] = json.loads(rally_json.read_text())["tasks"][0]["subtasks"]
    assert subtask["workloads"][0]["description"] == "planted <redacted> here"
