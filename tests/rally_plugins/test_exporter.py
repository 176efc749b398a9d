"""The volperf exporter keeps the Rally environment's password out of the campaign by
value: a real task result (tests/harness/planes/rally/fixtures) imported into a Rally
database of its own, in an environment whose admin password is planted in the task's
workloads' descriptions, then exported with `rally task export --type volperf`."""

from __future__ import annotations

import json
import os
import secrets
import subprocess
import sys
from pathlib import Path

RALLY = Path(sys.executable).with_name("rally")
TASK = Path(__file__).parents[1] / "harness" / "planes" / "rally" / "fixtures"


def _rally(config: Path, *args: str) -> subprocess.CompletedProcess[str]:
    environment = {k: v for k, v in os.environ.items() if not k.startswith("OS_")}
    done = subprocess.run(
        [str(RALLY), "--config-file", str(config), *args],
        capture_output=True,
        text=True,
        timeout=300,
        env=environment,
    )
    assert done.returncode == 0, done.stdout[-1500:] + done.stderr[-1500:]
    return done


def test_the_environments_password_is_redacted_wherever_it_appears(tmp_path):
    password = f"pw-{secrets.token_urlsafe(15)}"
    config = tmp_path / "rally.conf"
    config.write_text(f"[database]\nconnection = sqlite:///{tmp_path}/rally.sqlite\n")
    _rally(config, "db", "create")
    admin = {
        "username": "admin",
        "password": password,
        "project_name": "admin",
        "user_domain_name": "Default",
        "project_domain_name": "Default",
    }
    spec = {"existing@openstack": {"auth_url": "http://127.0.0.1:1/v3", "admin": admin}}
    (tmp_path / "env.json").write_text(json.dumps(spec))
    env = str(tmp_path / "env.json")
    _rally(config, "env", "create", "--name", "planted", "--spec", env, "--no-use")

    document = json.loads((TASK / "control-plane-c2.json").read_text())
    for task in document["tasks"]:
        for subtask in task["subtasks"]:
            for workload in subtask["workloads"]:  # as if the user had written it there
                workload["description"] = f"planted {password} here"
    (tmp_path / "task.json").write_text(json.dumps(document))
    imported = _rally(
        config, "task", "import", "--file", str(tmp_path / "task.json"), "--env", "planted"
    )
    uuid = imported.stdout.split("Task UUID: ")[1].split(".")[0].strip()

    destination = tmp_path / "exported"
    exported = _rally(
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
