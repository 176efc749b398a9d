"""The hosts target on real `fio --server`s on loopback: every row against what each
server's fio reported (read with the json module alone), a host that does not answer,
and a file volperf did not make."""

from __future__ import annotations

import csv
import json

import pytest

from harness.campaign.run import run_campaign
from harness.core.spec import validate
from harness.planes.base import TargetError
from harness.planes.registry import make_target
from tests.harness.helpers import fio_json

pytestmark = pytest.mark.functional


def fleet_spec(name, hosts, sweep, **target):
    return validate(
        {
            "name": name,
            "target": {"type": "hosts", "hosts": [h.host() for h in hosts], **target},
            "workloads": [
                {
                    "name": "randrw-4k",
                    "rw": ["randread", "randwrite"],
                    "bs": "4k",
                    "iodepth": 4,
                    "size": "8M",
                    "runtime": 2,
                    "prefill": True,
                }
            ],
            "sweep": sweep,
        }
    )


def rows_of(store):
    return list(csv.DictReader((store.root / "fio.csv").open()))


def assert_rows_are_the_servers_own(store, step_id, rows, hosts_by_consumer):
    """Each answered job of the client's JSON is the row of its consumer, on its host."""
    document = fio_json(store.raw_dir(step_id) / "fio.out")
    jobs = [j for j in document["client_stats"] if j["jobname"] != "All clients"]
    by_job = {r["jobname"]: r for r in rows if r["step"] == step_id}
    assert len(jobs) == len([r for r in by_job.values() if not r["error"]])
    for job in jobs:
        row = by_job[job["jobname"]]
        assert job["hostname"] == hosts_by_consumer[row["consumer"]]
        for direction in ("read", "write"):
            figures = job[direction]
            assert float(row[f"{direction}_iops"]) == pytest.approx(figures["iops"], rel=1e-6)
            assert float(row[f"{direction}_bandwidth"]) == pytest.approx(figures["bw"], rel=1e-6)
            if figures["total_ios"]:
                mean_ms = figures["clat_ns"]["mean"] / 1e6
                assert float(row[f"{direction}_complelatency_mean"]) == pytest.approx(
                    mean_ms, abs=1e-6
                )
    return by_job


@pytest.mark.quiet  # the hosts' start spread, in tenths of a second
def test_every_row_is_what_its_hosts_fio_server_reported(fleet, tmp_path):
    spec = fleet_spec("fleet", fleet, [3, 6])
    outcome = run_campaign(spec, tmp_path / "results", make_target)
    assert outcome.ok, [r.summary["error"] for r in outcome.results]
    store, rows = outcome.store, rows_of(outcome.store)
    for step_id in store.step_ids():
        consumers = [r["consumer"] for r in rows if r["step"] == step_id]
        # consumers over the hosts in turn: c01 on the first, c02 on the second, …
        hosts = {c: fleet[i % 3].address for i, c in enumerate(sorted(consumers))}
        assert_rows_are_the_servers_own(store, step_id, rows, hosts)
        summary = next(
            s
            for s in json.loads((store.root / "summary.json").read_text())["steps"]
            if s["step"] == step_id
        )
        assert summary["hosts"]["answered"] == 3
        assert summary["window"]["seconds"] > 0  # the logs came back through fio's client
        # every host's jobs waited in fio's exec_prerun for the step's shared start
        assert summary["window"]["start_spread_s"] < 0.5, summary["window"]
        assert (
            "exec_prerun=cd "
            in (store.raw_dir(step_id) / f"fio-{fleet[0].address}_{fleet[0].port}.job").read_text()
        )
        logs = sorted(p.name for p in (store.raw_dir(step_id) / "logs").iterdir())
        assert f"c01-randread_iops.1.log.{fleet[0].address}" in logs
    # the files volperf made on the hosts went through fio's unlink; nothing is noted
    assert [p for s in fleet for p in s.dir.iterdir()] == []
    assert json.loads((store.root / "created.json").read_text()) == {}


def test_a_host_that_does_not_answer_fails_its_rows_and_the_others_stay(
    fleet, silent_host, tmp_path
):
    hosts = [fleet[0], silent_host, fleet[1]]
    outcome = run_campaign(fleet_spec("silent", hosts, [3]), tmp_path / "results", make_target)
    [result] = outcome.results
    where = f"{silent_host.address},{silent_host.port}"
    assert result.summary["state"] == "failed"
    assert f"c02 on {where}" in result.summary["error"]
    assert "did not answer" in result.summary["error"]
    rows = rows_of(outcome.store)
    by_job = assert_rows_are_the_servers_own(
        outcome.store,
        result.summary["step"],
        rows,
        {"c01": fleet[0].address, "c03": fleet[1].address},
    )
    silent = by_job["c02-randwrite"]
    assert where in silent["error"] and "Connection refused" in silent["error"]
    assert float(silent["write_iops"]) == 0
    assert float(by_job["c01-randread"]["read_iops"]) > 0
    assert float(by_job["c03-randread"]["read_iops"]) > 0
    assert result.summary["hosts"]["unanswered"][where].startswith("its fio server")


def test_a_file_volperf_did_not_make_is_refused_and_kept(fleet, tmp_path):
    host = fleet[2]
    theirs = host.dir / "volperf-theirs-c01.dat"
    theirs.write_bytes(b"someone's data\n" * 1000)
    try:
        with pytest.raises(TargetError, match="exists on 127.0.0.4 and volperf did not create"):
            run_campaign(fleet_spec("theirs", [host], [1]), tmp_path / "results", make_target)
        assert theirs.read_bytes() == b"someone's data\n" * 1000
    finally:
        theirs.unlink()
