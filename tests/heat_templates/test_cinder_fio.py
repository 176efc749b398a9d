"""heat_templates/cinder-fio: real Heat (the OpenStack testbed) accepts the templates
through `openstack orchestration template validate`, every parameter carries a
constraint or a description, and the agent passes shellcheck."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from harness.testbeds.openstack.testbed import CLOUD

TEMPLATES = Path(__file__).parents[2] / "heat_templates" / "cinder-fio"
SEED_PARAMETERS = (
    "image",
    "flavor",
    "key_name",
    "volume_size",
    "network_name",
    "vm_count",
    "test_iodepth",
    "test_filesize",
    "test_mode",
    "test_runtime",
    "test_rw",
)


def _openstack(openstack_testbed, *args: str) -> subprocess.CompletedProcess[str]:
    cli = Path(sys.executable).with_name("openstack")
    env = {**os.environ, "OS_CLIENT_CONFIG_FILE": str(openstack_testbed.clouds_yaml)}
    return subprocess.run(
        [str(cli), "--os-cloud", CLOUD, *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        cwd=TEMPLATES,
    )


def test_the_seed_command_line_parameters_are_all_there_with_constraints():
    parameters = yaml.safe_load((TEMPLATES / "main.yaml").read_text())["parameters"]
    assert set(SEED_PARAMETERS) <= set(parameters)
    for name, definition in parameters.items():
        assert definition.get("constraints") or definition.get("description"), name
    numbers = [n for n, d in parameters.items() if d["type"] == "number"]
    assert all(parameters[n].get("constraints") for n in numbers)


@pytest.mark.parametrize(
    "extra",
    [
        "",  # no network, no key: the testbed
        ";network_name=private;key_name=mykey;prefill=fio",  # the seed's shape
        ";prefill=image;prefill_image=tiny;test_mode=size",
    ],
)
def test_real_heat_accepts_the_templates(openstack_testbed, extra):
    parameters = f"image=tiny;flavor=tiny{extra}"
    done = _openstack(
        openstack_testbed,
        "orchestration",
        "template",
        "validate",
        "-t",
        "main.yaml",
        "--parameter",
        parameters,
        "-f",
        "json",
    )
    assert done.returncode == 0, done.stderr[-3000:]
    parameters = json.loads(done.stdout)["Parameters"]
    assert parameters["vm_count"]["MaxValue"] == 500


def test_real_heat_refuses_a_bad_parameter_naming_it(openstack_testbed):
    parameters = "image=tiny;flavor=tiny;test_rw=trim"
    done = _openstack(
        openstack_testbed,
        "stack",
        "create",
        "--dry-run",
        "-t",
        "main.yaml",
        "--parameter",
        parameters,
        "volperf-bad",
    )
    assert done.returncode != 0
    assert "test_rw" in done.stderr


def test_the_agent_passes_shellcheck():  # shellcheck comes with tools/setup.sh
    done = subprocess.run(
        ["shellcheck", "-s", "sh", str(TEMPLATES / "agent.sh")], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stdout
