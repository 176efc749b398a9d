"""harness/planes/heat/step.py on real Heat output: a fio.csv row per VM from its agent's fio
JSON, a failed VM's row with Heat's reason, create times from Heat's events."""

from __future__ import annotations

import json
import shutil
from datetime import datetime
from pathlib import Path

import pytest

from harness.planes.heat.step import (
    agent_times,
    console_tail,
    create_times,
    guest_of,
    heat_step,
    is_heat_step,
)
from harness.records.consumer_fio import OwnOutputsStep
from harness.tools.fio.logs import LogPlace

FIXTURES = Path(__file__).parent / "fixtures"


def _load(name: str):
    folder = FIXTURES / name
    plan = json.loads((folder / "step.json").read_text())
    return heat_step(folder / "raw", "001", plan, "openstack:test")


def _seconds(stamp: str) -> float:
    return datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp()


def test_each_vm_is_a_row_with_its_own_fio_figures():
    step = _load("two-stacks")
    assert [(r.context.consumer, r.context.rw, r.jobname) for r in step.records] == [
        ("c01", "randread", "c01-randread"),
        ("c02", "randwrite", "c02-randwrite"),
    ]
    raw = FIXTURES / "two-stacks" / "raw" / "heat"
    reader = json.loads((raw / "volperf-heat-try-001-randread" / "fio-c01.json").read_text())
    writer = json.loads((raw / "volperf-heat-try-001-randwrite" / "fio-c02.json").read_text())
    assert step.records[0].read.iops == pytest.approx(reader["jobs"][0]["read"]["iops"])
    assert step.records[0].write is None or step.records[0].write.iops == 0
    assert step.records[1].write.iops == pytest.approx(writer["jobs"][0]["write"]["iops"])
    assert not any(r.error for r in step.records)
    assert step.summary["vms"] == 2 and step.summary["vms_failed"] == 0
    assert [s["status"] for s in step.summary["stacks"]] == ["CREATE_COMPLETE"] * 2
    assert len(step.outputs) == 2 and step.outputs[0].version == "fio-3.33"
    assert not step.warnings


def test_create_times_come_from_heats_events():
    step = _load("two-stacks")
    kinds = sorted({(e.consumer, e.event) for e in step.events})
    assert kinds == [("", "heat stack-create")] + [
        (c, f"heat {k}")
        for c in ("c01", "c02")
        for k in ("agent-result", "server-create", "volume-attach", "volume-create")
    ]
    # the reader's server, recomputed from the events by hand
    folder = FIXTURES / "two-stacks" / "raw" / "heat" / "volperf-heat-try-001-randread"
    vm_id = json.loads((folder / "vm-0.json").read_text())["id"]
    events = [
        e
        for e in json.loads((folder / "events.json").read_text())
        if e["resource_name"] == "server" and vm_id in json.dumps(e["links"])
    ]
    start = next(e for e in events if e["resource_status"] == "CREATE_IN_PROGRESS")
    end = next(e for e in events if e["resource_status"] == "CREATE_COMPLETE")
    server = next(e for e in step.events if e.consumer == "c01" and e.event == "heat server-create")
    assert server.seconds == _seconds(end["event_time"]) - _seconds(start["event_time"])
    assert server.start_ms == _seconds(start["event_time"]) * 1000
    assert create_times([], vm_id, "server") is None


def test_a_failed_vm_keeps_heats_reason_and_the_other_its_result():
    step = _load("one-vm-failed")
    ok, failed = step.records
    assert ok.context.consumer == "c01" and not ok.error and ok.write.iops > 0
    assert failed.context.consumer == "c02" and failed.write is None and failed.read is None
    assert "volperf agent: fio failed: rbd_open failed" in failed.error
    assert failed.error.startswith("VM stack CREATE_FAILED")
    assert step.summary["vms_failed"] == 1
    assert [w.code for w in step.warnings] == ["heat-stack"]
    attach = [e for e in step.events if e.event == "heat agent-result"]
    assert "CREATE_FAILED" in next(e.detail for e in attach if e.consumer == "c02")


def test_readers_of_volumes_never_written_are_warned_about(tmp_path):
    shutil.copytree(FIXTURES / "two-stacks", tmp_path / "step")
    stacks_file = tmp_path / "step" / "raw" / "stacks.json"
    stacks = json.loads(stacks_file.read_text())
    for stack in stacks:
        stack["parameters"]["prefill"] = "none"
    stacks_file.write_text(json.dumps(stacks))
    plan = json.loads((tmp_path / "step" / "step.json").read_text())
    step = heat_step(tmp_path / "step" / "raw", "001", plan, "b")
    [warning] = step.warnings
    assert warning.code == "unwritten-volumes"
    assert warning.message.startswith("volperf-heat-try-001-randread:")  # not the writers


def test_only_steps_with_a_stacks_file_are_heat_steps(tmp_path):
    assert is_heat_step(FIXTURES / "two-stacks" / "raw")
    assert not is_heat_step(tmp_path)


def test_the_agents_times_are_read_from_its_log(tmp_path):
    log = tmp_path / "agent.log"
    log.write_text("ready=1795421280 start_at=1795421291 started=1795421291\n")
    assert agent_times(log) == {
        "ready": 1795421280,
        "start_at": 1795421291,
        "started": 1795421291,
    }
    log.write_text("ready=soon\n")
    assert agent_times(log) == {}
    assert agent_times(tmp_path / "missing.log") == {}


def test_a_late_vm_is_named_and_every_vms_logs_are_found(tmp_path):
    shutil.copytree(FIXTURES / "two-stacks", tmp_path / "step")
    raw = tmp_path / "step" / "raw"
    stacks = json.loads((raw / "stacks.json").read_text())
    created = _seconds("2026-11-22T10:32:45Z")
    start_at = int(created) + 20
    for stack in stacks:
        stack["parameters"]["start_at"] = start_at
    (raw / "stacks.json").write_text(json.dumps(stacks))
    for stack, consumer, ready in (
        (stacks[0], "c01", start_at + 3),
        (stacks[1], "c02", start_at - 5),
    ):
        logs = raw / "heat" / stack["name"] / f"logs-{consumer}"
        logs.mkdir()
        started = max(ready, start_at)
        (logs / "agent.log").write_text(f"ready={ready} start_at={start_at} started={started}\n")
    plan = json.loads((tmp_path / "step" / "step.json").read_text())
    step = heat_step(raw, "001", plan, "openstack:test")
    assert step.summary["start_at"] == start_at
    assert step.summary["late"] == {"c01": 3}
    assert step.summary["ready_s_max"] == pytest.approx(23, abs=1)  # from its stack's creation
    [warning] = [w for w in step.warnings if w.code == "late-start"]
    assert "c01 (3 s)" in warning.message and "c02" not in warning.message
    assert step.log_dirs["c01-randread"] == LogPlace(
        raw / "heat" / stacks[0]["name"] / "logs-c01",
        "volperf-randread",
    )
    assert set(step.log_dirs) == {"c01-randread", "c02-randwrite"}


def test_each_real_vms_kernel_and_hypervisor_are_kept_and_an_emulated_cpu_is_warned_about(
    tmp_path,
):
    shutil.copytree(FIXTURES / "two-stacks", tmp_path / "step")
    raw = tmp_path / "step" / "raw"
    stacks = json.loads((raw / "stacks.json").read_text())
    for stack in stacks:
        stack["parameters"]["device_mode"] = "device"
    (raw / "stacks.json").write_text(json.dumps(stacks))
    # c01: the agent.log of a TCG guest of the OpenStack testbed (--guests real); c02: a
    # guest under KVM
    for stack, consumer, hypervisor in ((stacks[0], "c01", "none"), (stacks[1], "c02", "KVM")):
        logs = raw / "heat" / stack["name"] / f"logs-{consumer}"
        logs.mkdir()
        (logs / "agent.log").write_text(
            "ready=1795805142 start_at=0 started=1795805145 kernel=6.1.0-56-cloud-amd64 "
            f"hypervisor={hypervisor}\n"
        )
    assert guest_of(logs / "agent.log") == {"kernel": "6.1.0-56-cloud-amd64", "hypervisor": "KVM"}
    plan = json.loads((tmp_path / "step" / "step.json").read_text())
    step = heat_step(raw, "001", plan, "openstack:test")
    assert step.summary["guests"] == {
        "c01": {"kernel": "6.1.0-56-cloud-amd64", "hypervisor": "none"},
        "c02": {"kernel": "6.1.0-56-cloud-amd64", "hypervisor": "KVM"},
    }
    [warning] = [w for w in step.warnings if w.code == "emulated-cpu"]
    assert "c01" in warning.message and "c02" not in warning.message


def test_an_older_agents_log_says_nothing_of_its_guest(tmp_path):
    log = tmp_path / "agent.log"
    log.write_text("ready=1795421280 start_at=1795421291 started=1795421291\n")
    assert guest_of(log) == {}
    assert guest_of(tmp_path / "missing.log") == {}


def _qos_copy(tmp_path: Path, change) -> OwnOutputsStep:
    """The qos-limited step read again after ``change`` of its raw folder (a copy)."""
    folder = tmp_path / "qos-limited"
    shutil.copytree(FIXTURES / "qos-limited", folder)
    change(folder / "raw")
    plan = json.loads((folder / "step.json").read_text())
    return heat_step(folder / "raw", "001", plan, "openstack:test")


def test_each_real_vms_volume_qos_limit_stands_beside_its_figures():
    step = _load("qos-limited")
    raw = FIXTURES / "qos-limited" / "raw" / "heat"
    for record, direction in zip(step.records, ("read", "write"), strict=True):
        consumer = record.context.consumer
        [kept] = [
            json.loads(p.read_text())[consumer]
            for p in raw.glob("*/qos.json")
            if consumer in json.loads(p.read_text())
        ]
        assert kept["qos_specs"]["specs"] == {"total_iops_sec": "150"}
        figures = getattr(record, direction)
        assert step.summary["qos"][consumer] == {
            "volume_type": "real-guests-limited",
            "qos_consumer": "front-end",
            "limits": {"total_iops_sec": 150.0},
            "measured": {"total_iops_sec": round(figures.iops, 1)},
            "exceeded": [],
        }
        assert figures.iops == pytest.approx(150, rel=0.05)  # QEMU held it
    assert not [w for w in step.warnings if w.code.startswith("qos-")]


def test_a_limit_below_what_a_vm_did_is_flagged_as_not_held(tmp_path):
    def lower(raw: Path) -> None:
        for path in raw.glob("heat/*/qos.json"):
            kept = json.loads(path.read_text())
            for entry in kept.values():
                entry["qos_specs"]["specs"] = {"total_iops_sec": "100"}
            path.write_text(json.dumps(kept))

    step = _qos_copy(tmp_path, lower)
    flagged = [w.message for w in step.warnings if w.code == "qos-exceeded"]
    assert len(flagged) == 2 and flagged[0].startswith("c01: 151 against its volume type")
    assert step.summary["qos"]["c02"]["exceeded"] == ["total_iops_sec"]


def test_a_limit_the_stand_in_bypasses_is_asked_but_not_applied(tmp_path):
    def stand_in(raw: Path) -> None:
        stacks = json.loads((raw / "stacks.json").read_text())
        for stack in stacks:
            stack["parameters"]["device_mode"] = "rbd"
        (raw / "stacks.json").write_text(json.dumps(stacks))

    step = _qos_copy(tmp_path, stand_in)
    assert [w.code for w in step.warnings if w.code.startswith("qos-")] == ["qos-bypassed"]


def test_a_console_tail_leaves_out_the_kernels_chatter_after_the_guests_last_words():
    # a real TCG guest's console (CI's run of stop 69): its agent failed, then its kernel
    # spoke of its clocks for two minutes; the agent's lines are what the row needs
    shown = console_tail(FIXTURES / "consoles" / "console-late-kernel.txt")
    assert shown[-1] == "volperf guest: user_data exited 2"
    assert shown[-2] == "volperf agent: Heat refused the SUCCESS signal"
    assert shown[0].startswith("[    9.522153] EXT4-fs (vda): re-mounted")  # before, kept
    assert not any("clocksource" in line for line in shown)


def test_a_console_tail_keeps_the_kernels_trouble_after_the_guests_last_words(tmp_path):
    lines = (FIXTURES / "consoles" / "console-late-kernel.txt").read_text().splitlines()
    oops = "[  171.000001] Out of memory: Killed process 412 (fio) total-vm:1024kB"
    console = tmp_path / "console-c02.txt"
    console.write_text("\n".join([*lines, oops, "[  171.2] clocksource: Switched"]) + "\n")
    assert console_tail(console)[-2:] == ["volperf guest: user_data exited 2", oops]


def test_a_console_of_the_kernel_alone_shows_its_last_lines():
    console = FIXTURES / "guest-panicked" / "randwrite" / "console-c02.txt"
    shown = console_tail(console)
    assert len(shown) == 5 and "end Kernel panic - not syncing" in shown[-1]


def test_a_real_guests_console_tail_ends_its_rows_error(tmp_path):
    console = FIXTURES / "consoles" / "console-c02.txt"
    shown = console_tail(console)
    assert len(shown) == 5 and shown[-1] == "volperf guest: user_data exited 2"
    assert shown[-2] == "volperf agent: Heat refused the SUCCESS signal"
    # fio's progress meter and curl's error on one line: its last 160 characters
    lines = [line.strip() for line in console.read_text().splitlines() if line.strip()]
    assert len(lines[-3]) > 160 and shown[-3] == "…" + lines[-3][-160:]
    assert "curl: (7) Failed to connect" in shown[-3]
    folder = tmp_path / "one-vm-failed"
    shutil.copytree(FIXTURES / "one-vm-failed", folder)
    shutil.copy(console, folder / "raw" / "heat" / "hand2" / "console-c02.txt")
    plan = json.loads((folder / "step.json").read_text())
    step = heat_step(folder / "raw", "001", plan, "openstack:test")
    failed = next(r for r in step.records if r.context.consumer == "c02")
    assert failed.error.endswith("; its console's last lines: " + " | ".join(shown))
    assert not next(r for r in step.records if r.context.consumer == "c01").error
