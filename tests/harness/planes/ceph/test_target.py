"""The RBD target on the suite's real Ceph testbed: a small campaign at 1 and 4 consumers
through the CLI, checked against fio's own JSON; images made, tagged and removed."""

from __future__ import annotations

import csv
import json

import pytest
import yaml

from harness.core.spec import validate
from harness.core.store import CampaignStore
from harness.planes.ceph import images
from harness.planes.ceph.target import RbdFioTarget
from harness.report.describe import describe_workload
from harness.report.render import write_report
from harness.testbeds.ceph import POOLS
from harness.tools.fio.render import JobTarget, render_job
from tests.conftest import CephTestbedInfo
from tests.harness.helpers import (
    check_pace_against_its_logs,
    doc_source_copy,
    fio_json,
    volperf,
)


def rbd_spec(testbed: CephTestbedInfo, name: str, workloads: list[dict], **extra) -> dict:
    return {
        "name": name,
        "target": {
            "type": "rbd",
            "ceph_conf": str(testbed.conf),
            "user": "cinder",
            "pool": "volumes",
            "health_interval": 1,
        },
        "workloads": workloads,
        "sweep": [1, 4],
        **extra,
    }


SMALL = {"bs": "4k", "iodepth": 8, "size": "16M", "runtime": 2}
SMALL_RANDREAD = {"name": "r", "rw": "randread", **SMALL}


def test_the_job_runs_the_engine_the_method_says_whatever_the_workloads_ioengine(tmp_path):
    # no cluster needed: the target's job file and the page's words, side by side
    target = {"type": "rbd", "ceph_conf": str(tmp_path / "ceph.conf"), "pool": "volumes"}
    spec = validate({"name": "e", "target": target, "sweep": [1], "workloads": [SMALL_RANDREAD]})
    workload = spec.workloads[0]
    job = render_job(
        workload, [JobTarget("c01", "randread", rbdname="i")], RbdFioTarget(spec)._engine()
    )
    [ran] = [line.removeprefix("ioengine=") for line in job.splitlines() if "ioengine=" in line]
    said = describe_workload(spec.to_dict()["workloads"][0], "rbd")
    assert workload.ioengine == "libaio" and ran == "rbd"
    assert f"; ioengine {ran};" in said, said


@pytest.fixture(scope="module")
def campaign(ceph_testbed: CephTestbedInfo, tmp_path_factory: pytest.TempPathFactory):
    work = tmp_path_factory.mktemp("rbd")
    spec = rbd_spec(
        ceph_testbed,
        "rbd-small",
        [
            # first: the images are new, so these reads find blocks never written
            {"name": "unwritten", "rw": "randread", "prefill": False, **SMALL},
            {"name": "randrw", "rw": ["randread", "randwrite"], "prefill": True, **SMALL},
        ],
    )
    (work / "spec.yaml").write_text(yaml.safe_dump(spec))
    run = volperf("run", "spec.yaml", "--results", "results", cwd=work)
    with ceph_testbed.access().pool_io() as ioctx:
        left = images.existing(ioctx)
    return work / "results" / "rbd-small", run, left


def test_campaign_runs_every_step(campaign):
    root, run, _ = campaign
    assert run.returncode == 0, run.stderr
    steps = json.loads((root / "summary.json").read_text())["steps"]
    assert [(s["workload"], s["concurrency"], s["state"]) for s in steps] == [
        ("unwritten", 1, "done"),
        ("unwritten", 4, "done"),
        ("randrw", 1, "done"),
        ("randrw", 4, "done"),
    ]
    # one fio process: its jobs ran together, and their per-second logs say so
    for step in steps:
        assert step["window"]["seconds"] > 1 and step["window"]["start_spread_s"] < 0.5, step
        assert sorted((root / "steps" / step["step"] / "raw" / "logs").glob("*_iops.*.log"))
    # volperf's own calls to the cluster: the 3 images the second step adds, health samples
    assert steps[1]["cost"]["api_calls"]["ceph"] >= 3 + 1, steps[1]["cost"]


def test_records_are_fios_own_numbers(campaign):
    root, _, _ = campaign
    rows = list(csv.DictReader((root / "fio.csv").open()))
    assert len(rows) == 1 + 4 + 1 + 4
    for step in sorted((root / "steps").iterdir()):
        jobs = {j["jobname"]: j for j in fio_json(step / "raw" / "fio.out")["jobs"]}
        job_text = (step / "raw" / "fio.job").read_text()
        assert "ioengine=rbd" in job_text and "clientname=cinder" in job_text
        assert "pool=volumes" in job_text
        mine = [r for r in rows if r["step"] == step.name]
        assert len(mine) == len(jobs)
        for row in mine:
            job = jobs[row["jobname"]]
            assert job["job options"]["rbdname"] == f"volperf-rbd-small-{row['consumer']}"
            for direction in ("read", "write"):
                figures = job[direction]
                assert float(row[f"{direction}_iops"]) == pytest.approx(figures["iops"], rel=1e-6)
                assert float(row[f"{direction}_bandwidth"]) == figures["bw"]
                if figures["total_ios"]:
                    clat_ms = figures["clat_ns"]["mean"] / 1e6
                    mean = float(row[f"{direction}_complelatency_mean"])
                    assert mean == pytest.approx(clat_ms, rel=1e-3)
                    p99 = figures["clat_ns"]["percentile"]["99.000000"] / 1e6
                    assert float(row[f"{direction}_complelatency_99%ile"]) == pytest.approx(p99)
        assert all(r["backend"].startswith("rbd:volumes:16.2") for r in mine)


def test_reads_of_unwritten_images_are_flagged_prefilled_ones_are_not(campaign):
    root, _, _ = campaign
    steps = {s["step"]: s for s in json.loads((root / "summary.json").read_text())["steps"]}
    for step_id, step in steps.items():
        flagged = [w for w in step["warnings"] if w["code"] == "unwritten-reads"]
        note = json.loads((root / "steps" / step_id / "raw" / "images.json").read_text())
        if step["workload"] == "randrw":
            assert not flagged and all(i["written_in_full"] for i in note)
        else:
            readers = [i["consumer"] for i in note if not i["written_in_full"]]
            assert readers and flagged and flagged[0]["message"].startswith(", ".join(readers))
    assert any("prefilled 3 x 16M" in n for s in steps.values() for n in s["notes"])


def test_health_is_sampled_in_every_step(campaign):
    root, _, _ = campaign
    for step in json.loads((root / "summary.json").read_text())["steps"]:
        health = step["ceph_health"]
        assert health["samples"] >= 2 and health["unanswered"] == 0
        assert health["worst"] == "HEALTH_OK"
        assert health["cpu_ms"] / health["samples"] < 100  # a mon_command, not a `ceph` process
        # client.cinder (profile rbd) may not ask the OSDs for their counters: said why
        assert "ceph_osds" not in step, step
        assert step["ceph_osds_unread"].startswith("osd.0: ceph tell osd.0 perf dump failed")
        assert "Permission denied" in step["ceph_osds_unread"]


def test_images_are_removed_and_no_secret_is_kept(campaign, ceph_testbed: CephTestbedInfo):
    root, run, left = campaign
    assert not [n for n in left if n.startswith("volperf-rbd-small-")]
    assert json.loads((root / "created.json").read_text()) == {}
    assert "removed 4 resources" in run.stderr  # one image per consumer, shared by workloads
    document = yaml.safe_load((root / "campaign.yaml").read_text())
    assert document["spec"]["target"]["ceph_conf"] == str(ceph_testbed.conf)
    assert document["environment"]["tools"]["ceph cluster"].startswith("ceph version 16.2")
    keys = [
        line.split("=", 1)[1].strip()
        for keyring in ceph_testbed.state.glob("*keyring")
        for line in keyring.read_text().splitlines()
        if "key =" in line
    ]
    assert keys
    for path in root.rglob("*"):
        if path.is_file():
            text = path.read_text(errors="replace")
            assert not any(key in text for key in keys), path


def test_an_image_volperf_did_not_create_is_refused_and_kept(ceph_testbed, tmp_path):
    spec = rbd_spec(ceph_testbed, "theirs", [{"name": "w", "rw": "randwrite", **SMALL}], sweep=[1])
    (tmp_path / "spec.yaml").write_text(yaml.safe_dump(spec))
    with ceph_testbed.access().pool_io() as ioctx:
        ioctx_images = images.existing(ioctx)
        assert "volperf-theirs-c01" not in ioctx_images
        import rbd

        rbd.RBD().create(ioctx, "volperf-theirs-c01", 1 << 20)  # someone else's image
    try:
        run = volperf("run", "spec.yaml", "--results", "results", cwd=tmp_path)
        assert run.returncode == 2, run.stderr  # the target refuses: the campaign stops
        said = " ".join(run.stderr.split())
        assert "RBD image volumes/volperf-theirs-c01 exists and volperf did not create it" in said
        with ceph_testbed.access().pool_io() as ioctx:
            assert "volperf-theirs-c01" in images.existing(ioctx)  # still there
    finally:
        with ceph_testbed.access().pool_io() as ioctx:
            images.remove(ioctx, "volperf-theirs-c01")


def test_cleanup_finds_tagged_images_its_notes_missed(ceph_testbed, tmp_path):
    data = rbd_spec(ceph_testbed, "crashed", [{"name": "w", "rw": "randwrite", **SMALL}])
    spec = validate(data)
    store = CampaignStore(tmp_path / "crashed")
    target = RbdFioTarget(spec)
    target.prepare(spec, store)  # notes the pool to scan
    store.write_campaign(spec.to_dict(), {}, target.backend)
    with ceph_testbed.access().pool_io() as ioctx:
        # made but never noted (as if the run died between the two), plus a look-alike
        images.create(ioctx, "volperf-crashed-c01", 1 << 20, "crashed")
        images.create(ioctx, "volperf-crashed-other-c01", 1 << 20, "crashed-other")
    try:
        clean = volperf("cleanup", str(store.root), cwd=tmp_path)
        assert clean.returncode == 0, clean.stderr
        assert "removed rbd volumes/volperf-crashed-c01" in clean.stderr
        with ceph_testbed.access().pool_io() as ioctx:
            there = images.existing(ioctx)
        assert "volperf-crashed-c01" not in there
        assert "volperf-crashed-other-c01" in there  # another campaign's tag: left alone
    finally:
        with ceph_testbed.access().pool_io() as ioctx:
            images.remove(ioctx, "volperf-crashed-other-c01")


def test_an_unreachable_cluster_is_a_clear_error(tmp_path):
    conf = tmp_path / "ceph.conf"
    conf.write_text("[global]\nmon host = 127.0.0.1:1\n")
    run = volperf(
        "run",
        "rbd",
        "--ceph-conf",
        str(conf),
        "--sweep",
        "1",
        "--name",
        "nowhere",
        "--results",
        "results",
        cwd=tmp_path,
    )
    assert run.returncode == 2
    said = " ".join(run.stderr.split())
    assert "cannot connect to Ceph for pool 'volumes' as client.admin" in said
    assert str(conf) in said.replace(" ", "")


def test_an_unknown_pool_is_named_with_the_pools_there(ceph_testbed, tmp_path):
    where = ["--ceph-conf", str(ceph_testbed.conf), "--ceph-user", "cinder", "--pool", "nope"]
    run = volperf("run", "rbd", *where, "--sweep", "1", "--results", "results", cwd=tmp_path)
    assert run.returncode == 2
    said = " ".join(run.stderr.split())
    pools = ", ".join(sorted(["device_health_metrics", *POOLS]))
    assert f"pool 'nope' does not exist (pools: {pools})" in said


# The capacity search on RBD, small: each consumer asked for 25 writes a second for 24 s,
# at 1, 2 and 4 consumers, far below what the testbed's OSDs do at 4 (the module's
# campaign runs them closed-loop): every count meets the objective, and the search ends at
# its max. 24 s, not 12: these tests run while the OpenStack testbed comes up beside them
# (CI of cd40e79: the first step, 1 consumer, missed the objective). A stall of the host
# holds at most iodepth (4) I/Os, fewer than the 1 % of 600 that set the p99, where it
# set the p99 of 300; by Poisson arrivals alone a consumer falls below 75 % of its rate
# about once in 10^10 steps, and after a 3 s stall in 0.15 % of them
# (capacity.chance_of_false_miss), where at 12 s it did in 93 %.
SEARCH_RATE = 25


def test_a_capacity_search_on_rbd_states_its_answer_from_each_consumers_own_log(
    ceph_testbed: CephTestbedInfo, tmp_path
):
    writes = {**SMALL, "name": "w", "rw": "randwrite", "iodepth": 4, "runtime": 24}
    spec = rbd_spec(ceph_testbed, "rbd-search", [{**writes, "rate_iops": SEARCH_RATE}])
    spec["sweep"] = {"start": 1, "max": 4, "search": {"p99_ms": 2000, "achieved_pct": 75}}
    (tmp_path / "spec.yaml").write_text(yaml.safe_dump(spec))
    run = volperf("run", "spec.yaml", "--results", "results", cwd=tmp_path, timeout=600)
    assert run.returncode == 0, run.stderr[-4000:]
    root = tmp_path / "results" / "rbd-search"
    summary = json.loads((root / "summary.json").read_text())
    (found,) = summary["capacity"]
    assert found["done"] and not found["warnings"], found
    tried = [(t["count"], t["met"]) for t in found["trials"]]
    assert tried == [(1, True), (2, True), (4, True)], found["trials"]  # each with its why
    assert found["answer"].startswith(f"4 consumers × {SEARCH_RATE} IOPS at p99 ≤ 2000 ms")
    assert "every count up to the max (4) met it" in found["answer"]
    assert f"capacity of w: 4 consumers × {SEARCH_RATE} IOPS" in run.stderr
    for step in summary["steps"]:
        assert len(step["pace"]["consumers"]) == step["concurrency"]
        check_pace_against_its_logs(root, step, SEARCH_RATE)
    page = write_report(CampaignStore(root), doc_source_copy(tmp_path)).read_text()
    assert f"**{found['answer']}.**" in page
    assert "w1-capacity.png" in page and "w1-pace.png" in page  # the knee, each second
    with ceph_testbed.access().pool_io() as ioctx:
        assert not [n for n in images.existing(ioctx) if n.startswith("volperf-rbd-search-")]
