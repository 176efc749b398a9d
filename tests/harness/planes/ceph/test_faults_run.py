"""Faults given by volperf itself during a measured step, on a real 3-OSD Ceph testbed of
this module's own: an OSD stopped 10 s into a 60 s fio step and started at 30 s
(examples/ceph-rbd-outage.yaml), the step split into the cluster's phases at Ceph's own
times; volperf killed outright while an OSD is stopped, then `volperf cleanup`, which
starts it again; an OSD frozen for 8 s; and each phase's p99 from fio's histogram logs."""

from __future__ import annotations

import csv
import json
import math
import re
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from datetime import datetime
from pathlib import Path

import pytest
import yaml

from harness.core.faults import RESUME
from harness.core.store import CampaignStore
from harness.records.phases import DEGRADED, HEALED, HEALTHY, RECOVERING
from harness.report.render import write_report
from harness.testbeds.ceph import CephTestbed
from harness.tools.fio.logs import parse_hist_log
from tests.conftest import module_ceph_testbed
from tests.harness.helpers import doc_source_copy, process_state, volperf
from tests.harness.planes.ceph.fixtures import (
    assert_phases_equal_the_iops_log,
    completed_per_phase,
)

EXAMPLE = Path(__file__).parents[4] / "examples" / "ceph-rbd-outage.yaml"
MON_PORT = 26000  # its daemons to 26300: apart from the suite's other Ceph testbeds


@pytest.fixture(scope="module")
def three_osds(tmp_path_factory: pytest.TempPathFactory) -> Iterator[CephTestbed]:
    yield from module_ceph_testbed(tmp_path_factory, "faults", MON_PORT, "--osds", "3")


def _spec(
    path: Path, testbed: CephTestbed, name: str, faults: list[dict], runtime: int = 60
) -> Path:
    spec = {
        "name": name,
        "target": {
            "type": "rbd",
            "ceph_conf": str(testbed.conf),
            "pool": "volumes",
            "health_interval": 1,
        },
        "workloads": [
            {
                "name": "w",
                "rw": "randwrite",
                "bs": "4k",
                "iodepth": 8,
                "size": "128M",
                "runtime": runtime,
                "faults": faults,
            }
        ],
        "sweep": [1],
    }
    path.write_text(yaml.safe_dump(spec))
    return path


def _osd_tree(testbed: CephTestbed) -> dict[str, tuple[str, float]]:
    tree = json.loads(testbed.run("ceph", "osd", "tree", "-f", "json"))
    return {n["name"]: (n["status"], n["reweight"]) for n in tree["nodes"] if n["type"] == "osd"}


def _running(text: str) -> bool:
    """Whether a process whose command line names ``text`` runs."""
    return subprocess.run(["pgrep", "-f", text], capture_output=True).returncode == 0


# 2026-12-03T18:45:24.219290+0000 mon.a (mon.0) 1773 : cluster [INF] osd.0 marked itself down
CLUSTER_LOG_LINE = re.compile(r"^(?P<stamp>\S+) \S+ \(\S+\) \d+ : \w+ \[\w+\] (?P<message>.*)$")


def _cluster_log_first(testbed: CephTestbed, since: float, *patterns: str) -> float:
    """When Ceph's cluster log, after ``since``, first said what any of ``patterns``
    (regular expressions) matches: its monitor's timestamps, from the log's file (``ceph log
    last`` keeps only the last mon_log_max_summary entries, 50: on a slower run the OSD's
    going down had left it before the test asked)."""
    for line in (testbed.state / "log" / "ceph.log").read_text().splitlines():
        entry = CLUSTER_LOG_LINE.match(line)  # a message's further lines match nothing
        if entry is None:
            continue
        when = datetime.strptime(entry["stamp"], "%Y-%m-%dT%H:%M:%S.%f%z").timestamp()
        if when > since and any(re.search(p, entry["message"]) for p in patterns):
            return when
    raise AssertionError(f"the cluster log never says {patterns} after {since}")


# what Ceph's cluster log says of each change: the OSD down, up again; the manager's
# pgmap with every PG active+clean (its health check said healthy while PGs still peered)
DOWN = (r"^osd\.1 marked itself down", r"\(OSD_DOWN\)")
BACK = (r"^osd\.1 \[.*\] boot$", r"Health check cleared: OSD_DOWN")
CLEAN = (r"^pgmap v\d+: (\d+) pgs: \1 active\+clean;",)


def test_an_osd_stopped_at_10_s_and_started_at_30_s_splits_the_step_at_cephs_times(
    three_osds: CephTestbed, tmp_path: Path
):
    # the example as it is, on this testbed: osd.1 stopped at 10 s and started at 30 s
    spec = yaml.safe_load(EXAMPLE.read_text())
    assert [f["at"] for f in spec["workloads"][0]["faults"]] == [10, 30]
    spec["target"]["ceph_conf"] = str(three_osds.conf)
    (tmp_path / "outage.yaml").write_text(yaml.safe_dump(spec))
    began = time.time()
    run = volperf("run", "outage.yaml", "--results", str(tmp_path / "results"), cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    # the commands, told before the step starts
    told = run.stderr.index(f"faults on the Ceph testbed in {three_osds.state}")
    assert run.stderr.index("+10 s: kill -TERM <pid of osd.1>") > told
    assert f"+30 s: ceph-osd -c {three_osds.conf} -i 1" in run.stderr
    assert run.stderr.index("+30 s:") < run.stderr.index("001-outage-c001-r1")

    campaign = tmp_path / "results" / "ceph-rbd-outage"
    [raw] = campaign.glob("steps/*/raw")
    given = json.loads((raw / "faults.json").read_text())
    stop, start = given["given"]
    assert (stop["action"], start["action"]) == ("stop-osd", "start-osd")
    assert stop["error"] is None and start["error"] is None
    assert stop["commands"][0].startswith("kill -TERM ") and "-i 1" in start["commands"][0]
    # on time, from the injector's start just before fio's
    assert stop["given_t"] - given["started_t"] == pytest.approx(10, abs=0.5)
    assert start["given_t"] - given["started_t"] == pytest.approx(30, abs=0.5)

    [step] = json.loads((campaign / "summary.json").read_text())["steps"]
    assert [f["action"] for f in step["faults"]] == ["stop-osd", "start-osd"]
    found = step["phases"]
    states = [p["state"] for p in found["phases"]]
    assert states[:3] == [HEALTHY, DEGRADED, RECOVERING], states
    with (campaign / "fio.csv").open() as handle:
        [row] = csv.DictReader(handle)
    measured = datetime.fromisoformat(row["starttime"]).timestamp()
    at = {p["state"]: measured + p["start_s"] for p in found["phases"]}
    # each boundary within 2 s of what Ceph's own log says of the same change
    down = _cluster_log_first(three_osds, began, *DOWN)
    back = _cluster_log_first(three_osds, began, *BACK)
    assert at[DEGRADED] == pytest.approx(down, abs=2)
    assert at[RECOVERING] == pytest.approx(back, abs=2)
    assert stop["given_t"] < at[DEGRADED] < start["given_t"] < at[RECOVERING]
    if HEALED in at:
        clean = _cluster_log_first(three_osds, back, *CLEAN)
        assert at[HEALED] == pytest.approx(clean, abs=2)
        assert found["fault_to_healed_s"] == pytest.approx(at[HEALED] - stop["given_t"], abs=0.01)
    else:  # not healed in the run: Ceph's log says clean no sooner than 2 s before its end
        last = found["phases"][-1]
        try:
            clean = _cluster_log_first(three_osds, back, *CLEAN)
        except AssertionError:  # nor yet
            clean = math.inf
        assert clean > measured + last["start_s"] + last["seconds"] - 2, found["phases"]

    # IOPS kept, equal to fio's per-second IOPS log read apart, to the summary's rounding
    assert_phases_equal_the_iops_log(found, raw, measured)
    # and near an independent reading of fio's other log, its completions
    rates = completed_per_phase(raw, measured, found["phases"])
    healthy = found["sum"][0]
    slack = [max(rates) / summed["seconds"] + 1 for summed in found["sum"]]
    for summed, rate, within in zip(found["sum"], rates, slack, strict=True):
        # the IOPS log's seconds and the completions' 100 ms straddle a boundary: within
        # a second's worth of I/Os over the phase
        assert summed["iops"] == pytest.approx(rate, abs=within)
        # IOPS kept: the phase's IOPS over the healthy one's, and so within what both
        # IOPS are known to of the independent reading's ratio (a healthy phase of 11 s
        # at 325 IOPS with a 1 s stall in it, on a cold suite run, gave 172 % against
        # 182 %: its IOPS 18 above the completions' reading, 30 allowed)
        assert summed["kept_pct"] == pytest.approx(100 * summed["iops"] / healthy["iops"], abs=0.1)
        ratio_slack = 100 * (within / rates[0] + rate * slack[0] / rates[0] ** 2)
        assert summed["kept_pct"] == pytest.approx(100 * rate / rates[0], abs=ratio_slack)
    assert any(w["code"] == "backend-phases" for w in step["warnings"])
    # the page: the IOPS second by second over the phases' bands, the faults marked, and
    # each fault's commands beside the phases' table
    page = write_report(CampaignStore(campaign), doc_source_copy(tmp_path))
    text = page.read_text()
    assert ".. figure:: phases.png" in text and (page.parent / "phases.svg").exists()
    assert f"stop-osd osd.1 at +10 s: given at +{step['faults'][0]['at_s']:.1f} s, done in" in text
    assert "start-osd osd.1 at +30 s: given at +" in text and "-i 1" in text
    # the OSDs' own scheduler and profile, as they said them at the start (pacific's
    # defaults on the testbed), kept and told in the method (RST escapes the underscores)
    environment = yaml.safe_load((campaign / "campaign.yaml").read_text())["environment"]
    settings = {"osd_op_queue": "wpq", "osd_mclock_profile": "high_client_ops"}
    assert environment["backend_settings"] == settings
    told = r"as it said at the campaign's start: osd\_op\_queue wpq, osd\_mclock\_profile"
    assert told + r" high\_client\_ops." in text
    # undone and forgotten: every OSD up and in, nothing of the campaign's left noted
    assert _osd_tree(three_osds) == {f"osd.{n}": ("up", 1.0) for n in range(3)}
    assert json.loads((campaign / "created.json").read_text()) == {}


def _killed_once(
    testbed: CephTestbed, tmp_path: Path, name: str, faults: list[dict], given: Callable[[], bool]
) -> Path:
    """`volperf run` of a 60 s step given ``faults``, killed outright (SIGKILL) as soon as
    ``given()`` says they are; its campaign's folder, once its fio has gone too."""
    testbed.wait_ready(300, say=lambda line: None)  # an earlier test's recovery over
    spec = _spec(tmp_path / f"{name}.yaml", testbed, name, faults)
    campaign = tmp_path / "results" / name
    run = subprocess.Popen(
        [sys.executable, "-m", "harness.cli", "run", str(spec), "--results", str(campaign.parent)],
        cwd=tmp_path,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.time() + 120
        while not given():
            assert run.poll() is None and time.time() < deadline
            time.sleep(0.5)
    finally:
        run.send_signal(signal.SIGKILL)
        run.wait(timeout=30)
    deadline = time.time() + 30  # fio is told by the kernel that its parent died
    while _running(f"{campaign}/steps") and time.time() < deadline:
        time.sleep(0.2)
    assert not _running(f"{campaign}/steps")
    return campaign


def _noted_fault(campaign: Path) -> dict:
    noted = json.loads((campaign / "created.json").read_text())
    [fault] = [n for n in noted.values() if n["kind"] == "ceph-fault"]
    return fault


def test_killed_outright_while_an_osd_is_stopped_then_cleanup_starts_it_and_ceph_heals(
    three_osds: CephTestbed, tmp_path: Path
):
    faults = [{"action": "stop-osd", "osd": 2, "at": 2}, {"action": "out-osd", "osd": 2, "at": 3}]
    campaign = _killed_once(
        three_osds,
        tmp_path,
        "killed",
        faults,
        lambda: _osd_tree(three_osds)["osd.2"] == ("down", 0.0),  # stopped and out
    )
    fault = _noted_fault(campaign)
    assert (fault["osd"], fault["stopped"], fault["out"]) == (2, True, True)
    assert three_osds.osd(2).pid() is None  # nobody put it back

    cleaned = volperf("cleanup", str(campaign), cwd=tmp_path, timeout=120)
    assert cleaned.returncode == 0, cleaned.stderr
    assert "undone: osd.2 of the Ceph testbed in" in cleaned.stderr
    assert ": start-osd, in-osd" in cleaned.stderr
    assert "removed rbd volumes/volperf-killed-c01" in cleaned.stderr
    assert three_osds.osd(2).pid() is not None
    assert _osd_tree(three_osds)["osd.2"] == ("up", 1.0)
    # the cluster heals: HEALTH_OK, every PG clean; nothing of the campaign is left
    three_osds.wait_ready(300, say=lambda line: None)
    assert json.loads(three_osds.run("ceph", "health", "-f", "json"))["status"] == "HEALTH_OK"
    assert "volperf-killed" not in three_osds.run("rbd", "ls", "volumes")
    assert json.loads((campaign / "created.json").read_text()) == {}


def test_killed_outright_while_an_osd_is_frozen_then_cleanup_lets_it_go(
    three_osds: CephTestbed, tmp_path: Path
):
    """A pause-osd's SIGSTOP that no SIGCONT followed (volperf killed during the pause):
    `volperf cleanup` lets the OSD go on, and the cluster is healthy again."""
    pid = three_osds.osd(1).pid()
    assert pid is not None
    faults = [{"action": "pause-osd", "osd": 1, "at": 2, "seconds": 40}]
    campaign = _killed_once(
        three_osds, tmp_path, "frozen-killed", faults, lambda: process_state(pid) == "T"
    )
    fault = _noted_fault(campaign)
    assert (fault["osd"], fault["paused"]) == (1, True)
    assert process_state(pid) == "T"  # nobody let it go

    cleaned = volperf("cleanup", str(campaign), cwd=tmp_path, timeout=120)
    assert cleaned.returncode == 0, cleaned.stderr
    assert f"undone: osd.1 of the Ceph testbed in {three_osds.state}: {RESUME}" in cleaned.stderr
    assert process_state(pid) in ("S", "R")  # the same daemon, let go: not started anew
    three_osds.wait_ready(300, say=lambda line: None)
    assert json.loads(three_osds.run("ceph", "health", "-f", "json"))["status"] == "HEALTH_OK"
    assert _osd_tree(three_osds) == {f"osd.{n}": ("up", 1.0) for n in range(3)}
    assert "volperf-frozen-killed" not in three_osds.run("rbd", "ls", "volumes")
    assert json.loads((campaign / "created.json").read_text()) == {}


def test_an_osd_frozen_for_8_s_holds_every_write_as_long_and_is_let_go(
    three_osds: CephTestbed, tmp_path: Path
):
    """Every PG of the pool has a copy on each of the 3 OSDs: while one is frozen (and not
    yet marked down, 20 s of missed heartbeats), every write waits for it."""
    three_osds.wait_ready(300, say=lambda line: None)
    faults = [{"action": "pause-osd", "osd": 0, "at": 5, "seconds": 8}]
    spec = _spec(tmp_path / "frozen.yaml", three_osds, "frozen", faults, runtime=25)
    run = volperf("run", str(spec), "--results", str(tmp_path / "results"), cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert "+5 s: kill -STOP <pid of osd.0>" in run.stderr
    assert "+13 s: kill -CONT <pid of osd.0>" in run.stderr
    campaign = tmp_path / "results" / "frozen"
    [raw] = campaign.glob("steps/*/raw")
    given = json.loads((raw / "faults.json").read_text())
    frozen, let_go = given["given"]
    pid = three_osds.osd(0).pid()
    assert (frozen["commands"], let_go["commands"]) == (
        [f"kill -STOP {pid}"],
        [f"kill -CONT {pid}"],
    )
    assert let_go["given_t"] - frozen["given_t"] == pytest.approx(8, abs=0.5)
    [step] = json.loads((campaign / "summary.json").read_text())["steps"]
    longest = step["stalls"]["longest"]
    assert 6 < longest["seconds"] < 10, step["stalls"]
    assert longest["start_ms"] / 1000 == pytest.approx(frozen["given_t"], abs=1.5)  # epoch ms
    assert process_state(pid) in ("S", "R")  # let go: not stopped (T)
    assert _osd_tree(three_osds) == {f"osd.{n}": ("up", 1.0) for n in range(3)}
    assert json.loads((campaign / "created.json").read_text()) == {}
    # healthy all through by Ceph's own state (osd.0 never marked down): no phases, and
    # the page still says what volperf did
    assert "phases" not in step
    text = write_report(CampaignStore(campaign), doc_source_copy(tmp_path)).read_text()
    assert "the backend stayed healthy all through each" in text
    assert "pause-osd osd.0 at +5 s for 8 s: given at +" in text
    assert "pause-osd osd.0 at +5 s for 8 s (resume-osd): given at +" in text


def test_with_histogram_logs_each_phase_has_the_p99_of_its_own_ios(
    three_osds: CephTestbed, tmp_path: Path
):
    three_osds.wait_ready(300, say=lambda line: None)
    faults = [
        {"action": "stop-osd", "osd": 1, "at": 5},
        {"action": "start-osd", "osd": 1, "at": 15},
    ]
    # 40 s: the restarted OSD's PGs began recovering 6.7 s after its start here when
    # quiet, 12.5 s beside the rest of the suite (CI of 2026-12-06), 0.7 s before a 30 s
    # run ended
    spec = _spec(tmp_path / "tails.yaml", three_osds, "tails", faults, runtime=40)
    document = yaml.safe_load(spec.read_text())
    document["workloads"][0]["histogram_logs"] = True
    spec.write_text(yaml.safe_dump(document))
    run = volperf("run", str(spec), "--results", str(tmp_path / "results"), cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    campaign = tmp_path / "results" / "tails"
    [raw] = campaign.glob("steps/*/raw")
    [step] = json.loads((campaign / "summary.json").read_text())["steps"]
    found = step["phases"]
    with (campaign / "fio.csv").open() as handle:
        [row] = csv.DictReader(handle)
    measured = datetime.fromisoformat(row["starttime"]).timestamp()
    # independently: every I/O of the per-second histogram lines whose second's middle
    # lies in the phase, each at its bucket's latency, sorted; the one at 99 %
    [log] = raw.glob("logs/*_clat_hist.1.log")
    seconds = parse_hist_log(log.read_text())
    for phase in found["sum"]:
        begin = measured + phase["start_s"]
        latencies = sorted(
            value
            for point in seconds
            if begin <= point.time_ms / 1000 - 0.5 < begin + phase["seconds"]
            for value, count in point.bins.items()
            for _ in range(count)
        )
        if not latencies:
            assert phase["p99_ms"] is None
            continue
        at_99 = latencies[math.ceil(0.99 * len(latencies)) - 1]
        assert phase["p99_ms"] == pytest.approx(at_99 / 1e6, abs=0.001), phase
    # not vacuous: healthy and degraded, and every phase long enough to hold the middle of
    # one of fio's logged seconds (2 s), have a p99 (a shorter one has none, as above)
    states = [p["state"] for p in found["sum"]]
    assert states[:2] == [HEALTHY, DEGRADED], states
    assert all(p["p99_ms"] for p in found["sum"] if p["seconds"] >= 2), found["sum"]
