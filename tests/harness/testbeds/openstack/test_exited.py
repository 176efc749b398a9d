"""harness/testbeds/openstack/testbed.py: a service that exits during `testbed up` is named
with its own last error lines, and a setup command past its limit is stopped and named
with its log's last lines, so that CI's output says why without the logs, which a purged
testbed no longer has."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from harness.testbeds import TestbedError
from harness.testbeds.openstack import testbed as testbed_module
from harness.testbeds.openstack.testbed import OpenStackTestbed


def crashed(log: Path, program: str) -> None:
    """Output of a real Python process that failed, as a service's would be."""
    with log.open("w") as out:
        subprocess.run([sys.executable, "-c", program], stdout=out, stderr=subprocess.STDOUT)


def test_an_exited_service_is_named_with_its_own_error_lines(tmp_path):
    testbed = OpenStackTestbed(tmp_path / "state")
    logs = tmp_path / "state" / "log"
    logs.mkdir(parents=True)
    crashed(logs / "nova-compute.out", "raise SystemExit('boom')")
    (logs / "nova-compute.log").write_text(
        "2026-12-02 00:55:01.100 7 INFO nova.service [-] Starting compute node\n"
        "2026-12-02 00:55:02.200 7 CRITICAL nova [-] Unhandled error: "
        "oslo_messaging.exceptions.MessagingTimeout: Timed out waiting for a reply\n"
    )
    message = testbed._exited("nova-compute", "log")
    assert message.startswith("nova-compute exited: ")
    assert "MessagingTimeout: Timed out waiting for a reply" in message
    assert str(logs / "nova-compute.log") in message and str(logs / "nova-compute.out") in message


def test_a_traceback_on_its_output_is_named_when_its_log_has_none(tmp_path):
    testbed = OpenStackTestbed(tmp_path / "state")
    logs = tmp_path / "state" / "log"
    logs.mkdir(parents=True)
    crashed(logs / "cinder-volume.out", "import json; json.loads('{')")
    message = testbed._exited("cinder-volume", "log")
    assert "JSONDecodeError" in message
    assert "nova" not in message


def test_no_logs_at_all_says_so(tmp_path):
    message = OpenStackTestbed(tmp_path / "state")._exited("heat-engine", "log")
    assert "nothing in its logs" in message


def test_a_setup_command_past_its_limit_is_stopped_and_named(tmp_path, monkeypatch):
    monkeypatch.setattr(testbed_module, "COMMAND_TIMEOUT_S", 1)
    testbed = OpenStackTestbed(tmp_path / "state")
    (tmp_path / "state" / "log").mkdir(parents=True)
    (tmp_path / "state" / "log" / "setup-keystone.log").write_text("Created region RegionOne\n")
    chain = [["sh", "-c", "sleep 30", "bootstrap"]]
    started = time.monotonic()
    with pytest.raises(TestbedError) as raised:
        testbed._run_chain("keystone", chain, dict(os.environ))
    assert time.monotonic() - started < 10
    message = str(raised.value)
    assert message.startswith("keystone setup `sh sleep 30 bootstrap` still running after 1 s")
    assert "Created region RegionOne" in message and "setup-keystone.log" in message
