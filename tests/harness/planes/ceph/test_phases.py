"""A Ceph cluster's states from its health samples, on a real OSD outage
(fixtures/osd-outage/capture.sh: `volperf run` of one rbd step on a 3-OSD testbed, fio
writing for 60 s, osd.1 stopped 10 s in and started 20 s later, the health sampled every
second): the phases against Ceph's own cluster log, and each phase's IOPS, as the
campaign's records give them, against a second log of fio's read here with csv alone."""

from __future__ import annotations

import csv
import json
import shutil
from datetime import datetime
from pathlib import Path

import pytest

from harness.campaign.rebuild import rebuild
from harness.core.store import CampaignStore
from harness.host.sampler import read_samples
from harness.planes.ceph.phases import bytes_recovered, state_of, states
from harness.records.phases import (
    DEGRADED,
    HEALED,
    HEALTHY,
    RECOVERING,
    fault_to_healed_s,
    phases,
)
from harness.report.render import write_report
from tests.harness.helpers import doc_source_copy
from tests.harness.planes.ceph.fixtures import completed_per_phase

OUTAGE = Path(__file__).parent / "fixtures" / "osd-outage"
[RAW] = (OUTAGE / "campaign" / "steps").glob("*/raw")


def _samples() -> list[dict]:
    return read_samples(RAW / "ceph-health.jsonl")


def _faults() -> dict[str, float]:
    rows = (OUTAGE / "faults.txt").read_text().splitlines()
    return {r.rsplit(" ", 1)[0]: float(r.rsplit(" ", 1)[1]) for r in rows if r[:1] != "#"}


def _cluster_log_first(*texts: str) -> float:
    """When Ceph's cluster log first said any of ``texts`` (its monitors' timestamps)."""
    for entry in json.loads((OUTAGE / "cluster-log.json").read_text()):
        if any(text in entry["message"] for text in texts):
            return datetime.fromisoformat(entry["stamp"]).timestamp()
    raise AssertionError(f"the cluster log never says {texts}")


def _run() -> tuple[float, float]:
    """fio's run, from its own output (3.33: no job_start): its end stamped when it wrote
    its output, less its runtime; seconds since the epoch."""
    output = json.loads((RAW / "fio.out").read_text())
    [job] = output["jobs"]
    end = output["timestamp_ms"] / 1000
    return end - job["job_runtime"] / 1000, end


def test_a_sample_keeps_what_the_cluster_says_of_its_data_at_risk_and_its_recovery():
    samples = _samples()
    assert any(s["recovery"].get("recovering_bytes_per_sec") for s in samples)
    degraded = [s["recovery"] for s in samples if s["recovery"].get("degraded_objects")]
    assert degraded and all(r["degraded_total"] >= r["degraded_objects"] for r in degraded)


def test_an_osd_stopped_then_started_is_healthy_degraded_recovering_healed_at_cephs_times():
    samples = _samples()
    start, end = _run()
    found = phases(states(samples), end=samples[-1]["t"] + 1)
    assert [p.state for p in found] == [HEALTHY, DEGRADED, RECOVERING, HEALED]
    healthy, degraded, recovering, healed = found
    # each boundary within 2 s of what Ceph's own log says of the same change
    down = _cluster_log_first("osd.1 marked itself down", "1 osds down (OSD_DOWN)")
    back = _cluster_log_first("Health check cleared: OSD_DOWN")
    clean = _cluster_log_first("Cluster is now healthy")
    assert degraded.start == pytest.approx(down, abs=2)
    assert recovering.start == pytest.approx(back, abs=2)
    assert healed.start == pytest.approx(clean, abs=2)
    # after the commands that made them, within fio's run
    faults = _faults()
    assert faults["stop osd.1"] < degraded.start < faults["start osd.1"] < recovering.start
    assert start < degraded.start and recovering.start < end
    to_healed = fault_to_healed_s(found, faults["stop osd.1"])
    assert to_healed == pytest.approx(healed.start - faults["stop osd.1"], abs=0.001)


def test_the_steps_records_give_each_phases_iops_kept_as_fios_completions_log_does(tmp_path):
    campaign = tmp_path / "outage"
    shutil.copytree(OUTAGE / "campaign", campaign)
    rebuild(CampaignStore(campaign))
    [step] = json.loads((campaign / "summary.json").read_text())["steps"]
    found = step["phases"]
    assert [p["state"] for p in found["phases"]][:3] == [HEALTHY, DEGRADED, RECOVERING]
    # the phases' times are from the step's measured start, as fio.csv has it
    with (campaign / "fio.csv").open() as handle:
        [row] = csv.DictReader(handle)
    start = datetime.fromisoformat(row["starttime"]).timestamp()
    # independently: from fio's completions log, read with csv alone
    rates = completed_per_phase(RAW, start, found["phases"])
    [consumer] = found["consumers"].values()
    for summed, own, rate in zip(found["sum"], consumer, rates, strict=True):
        assert summed == own  # one consumer: the sum is its own
        # the IOPS log's seconds and the completions' 100 ms straddle a boundary: within
        # a second's worth of I/Os over the phase
        assert summed["iops"] == pytest.approx(rate, abs=max(rates) / summed["seconds"] + 1)
        assert summed["kept_pct"] == pytest.approx(100 * rate / rates[0], abs=5)
    # on this testbed's 2 cores, writing 2 copies instead of 3 went faster (degraded:
    # 147 % of healthy), recovery beside the writes slower (55 %, a 1.9 s stall)
    degraded, recovering = found["sum"][1:3]
    assert degraded["kept_pct"] > 100 > recovering["kept_pct"]
    assert recovering["longest_stall_s"] == max(p["longest_stall_s"] for p in found["sum"])
    # what it recovered, over the samples' own recovering phase
    samples = _samples()
    [recovering] = [p for p in phases(states(samples), samples[-1]["t"]) if p.state == RECOVERING]
    recovered = bytes_recovered(samples, recovering)
    assert step["ceph_recovery"] == {
        "seconds": round(recovering.seconds, 3),
        "bytes": round(recovered),
        "bytes_per_s": round(recovered / recovering.seconds),
    }
    # the step says so wherever its figures go, and its page has the phases' table
    [warning] = [w for w in step["warnings"] if w["code"] == "backend-phases"]
    assert f"degraded from +{found['sum'][1]['start_s']:.1f} s" in warning["message"]
    page = write_report(CampaignStore(campaign), doc_source_copy(tmp_path)).read_text()
    assert "Phases of the backend" in page and "the backend was not healthy" in page
    assert f"Ceph recovered {recovered / 2**20:,.1f} MiB in" in page


def test_the_recovering_phase_recovered_bytes_at_the_managers_rate():
    samples = _samples()
    found = phases(states(samples), end=samples[-1]["t"] + 1)
    [recovering] = [p for p in found if p.state == RECOVERING]
    recovered = bytes_recovered(samples, recovering)
    rates = [s["recovery"].get("recovering_bytes_per_sec", 0) for s in samples]
    assert 0 < recovered <= max(rates) * recovering.seconds


def test_an_unanswered_sample_has_no_state_and_a_clean_but_scrubbing_cluster_is_healthy():
    assert state_of({"t": 1.0, "error": "RADOS timed out"}) is None
    scrubbing = {"t": 1.0, "pgs": {"active+clean": 30, "active+clean+scrubbing": 2}}
    assert state_of(scrubbing) == HEALTHY
    osds = {"num_up_osds": 2, "num_in_osds": 3}
    assert state_of({"t": 1.0, "pgs": {"active+undersized+degraded": 3}, "osds": osds}) == DEGRADED
    out = {"num_up_osds": 2, "num_in_osds": 2}  # marked out: recovered onto the others
    assert state_of({"t": 1.0, "pgs": {"active+remapped+backfilling": 3}, "osds": out}) == (
        RECOVERING
    )


def test_an_outage_healed_before_the_run_began_splits_nothing(tmp_path):
    campaign = tmp_path / "outage"
    shutil.copytree(OUTAGE / "campaign", campaign)
    [health] = campaign.glob("steps/*/raw/ceph-health.jsonl")
    samples = _samples()
    healed = [p for p in phases(states(samples), samples[-1]["t"]) if p.state == HEALED][0]
    start, _ = _run()
    early = healed.start - start + 1  # the cluster healed 1 s before fio began
    moved = [{**s, "t": s["t"] - early} for s in samples]
    health.write_text("".join(json.dumps(s) + "\n" for s in moved))
    rebuild(CampaignStore(campaign))
    [step] = json.loads((campaign / "summary.json").read_text())["steps"]
    assert "phases" not in step
    assert not [w for w in step["warnings"] if w["code"] == "backend-phases"]
