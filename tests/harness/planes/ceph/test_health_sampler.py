from __future__ import annotations

import json
import socket
import time
from pathlib import Path

from harness.host.sampler import read_samples
from harness.planes.ceph.access import CephAccess
from harness.planes.ceph.health_sampler import CONNECT_TIMEOUT_S, CephHealthSampler


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]  # nothing listens there once closed


def test_an_unreachable_cluster_gives_error_samples_and_the_step_goes_on(tmp_path: Path):
    conf = tmp_path / "ceph.conf"
    conf.write_text(f"[global]\nmon host = 127.0.0.1:{_closed_port()}\n")
    output = tmp_path / "ceph-health.jsonl"
    started = time.monotonic()
    with CephHealthSampler(output, CephAccess(conf, "admin", "volumes"), interval_s=0.5):
        time.sleep(1)
    assert time.monotonic() - started < CONNECT_TIMEOUT_S + 5  # stops within one connect attempt
    samples = read_samples(output)
    assert samples and all("error" in s for s in samples)
    assert "cannot connect to Ceph" in samples[0]["error"]
    assert all(s["wall_ms"] >= 0 and s["cpu_ms"] >= 0 for s in samples)


def test_a_missing_conf_file_is_an_error_sample(tmp_path: Path):
    output = tmp_path / "ceph-health.jsonl"
    with CephHealthSampler(output, CephAccess(tmp_path / "nope.conf", "admin", "volumes"), 0.5):
        time.sleep(0.2)
    (sample, *_) = read_samples(output)
    assert "nope.conf: no such Ceph configuration file" in sample["error"]


def test_reading_skips_a_line_cut_short_by_a_crash(tmp_path: Path):
    path = tmp_path / "ceph-health.jsonl"
    path.write_text(json.dumps({"t": 1.0, "status": "HEALTH_OK"}) + '\n{"t": 2.0, "sta')
    assert read_samples(path) == [{"t": 1.0, "status": "HEALTH_OK"}]
    assert read_samples(tmp_path / "absent.jsonl") == []
