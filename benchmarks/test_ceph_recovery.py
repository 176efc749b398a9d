"""Issue 52's study of recovery against client I/O: the same fio step through an OSD's
outage under two of Ceph's mClock profiles, `high_client_ops` and `high_recovery_ops`,
and `volperf compare` of the two, phase by phase (healthy, degraded, recovering, healed).

Brings up its own 3-OSD Ceph testbed (monitor port 27000) in pytest's temporary folder,
sets `osd_op_queue mclock_scheduler` in the monitors' configuration, then for each
profile sets it and restarts the OSDs (the testbed down and up, its data kept), and runs
examples/ceph-rbd-outage.yaml as shipped: 60 s of 4k random writes, osd.1 stopped at 10 s
and started at 30 s. Each campaign names the OSDs' scheduler and profile as they said them
at its start. Writes results/ceph-recovery/: the two campaigns, their testbed's and this
checkout's paths written <testbed> and <checkout>, comparison.yaml and pages.yaml, from
which every documentation build writes the comparison page
(test_results/compare-high-client-ops-vs-high-recovery-ops/) and each campaign's page.
Purges the testbed at the end. About 4 minutes on 2 cores. Run alone on the machine:

    .venv/bin/python -m pytest benchmarks/test_ceph_recovery.py -s
"""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from benchmarks.scale.measure import ROOT, keep_campaign, volperf
from harness.report.comparison import KEPT
from harness.report.render import KEPT_PAGES

OUT = ROOT / "results" / "ceph-recovery"
EXAMPLE = ROOT / "examples" / "ceph-rbd-outage.yaml"
CEPH_MON_PORT = "27000"
PROFILES = ("high_client_ops", "high_recovery_ops")  # the first is the baseline


def campaign_name(profile: str) -> str:
    return profile.replace("_", "-")


@pytest.fixture(scope="module")
def testbed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The state folder of a 3-OSD Ceph testbed whose OSDs run mClock."""
    state = tmp_path_factory.mktemp("ceph-recovery") / "ceph3"
    try:
        volperf(
            *("testbed", "up", "ceph", "--osds", "3"),
            *("--state", str(state), "--mon-port", CEPH_MON_PORT),
        )
        ceph(state, "config", "set", "osd", "osd_op_queue", "mclock_scheduler")
        yield state
    finally:
        volperf("testbed", "down", "ceph", "--state", str(state), "--purge")


def ceph(state: Path, *args: str) -> str:
    done = subprocess.run(
        ["ceph", "-c", str(state / "ceph.conf"), *args],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return done.stdout


def restart_osds(state: Path) -> None:
    """Every daemon stopped and started again (the OSDs read the scheduler only at start)."""
    volperf("testbed", "down", "ceph", "--state", str(state))
    volperf("testbed", "up", "ceph", "--state", str(state))


def test_ceph_recovery(testbed: Path, tmp_path: Path) -> None:
    if OUT.exists():
        shutil.rmtree(OUT)
    OUT.mkdir(parents=True)
    for profile in PROFILES:
        ceph(testbed, "config", "set", "osd", "osd_mclock_profile", profile)
        restart_osds(testbed)
        spec = yaml.safe_load(EXAMPLE.read_text())
        spec["name"] = campaign_name(profile)
        spec["target"]["ceph_conf"] = str(testbed / "ceph.conf")
        path = tmp_path / f"{spec['name']}.yaml"
        path.write_text(yaml.safe_dump(spec, sort_keys=False))
        volperf("run", str(path), "--results", str(tmp_path / "results"))
        campaign = tmp_path / "results" / spec["name"]
        environment = yaml.safe_load((campaign / "campaign.yaml").read_text())["environment"]
        said = environment["backend_settings"]
        assert said == {"osd_op_queue": "mclock_scheduler", "osd_mclock_profile": profile}
        keep_campaign(campaign, OUT / campaign.name, testbed)
    baseline, other = (campaign_name(p) for p in PROFILES)
    # the pages are written anew from the campaigns by every documentation build
    (OUT / KEPT).write_text(yaml.safe_dump({"baseline": baseline, "others": [other]}))
    (OUT / KEPT_PAGES).write_text(yaml.safe_dump({"campaigns": [baseline, other]}))
    compared = volperf("compare", str(OUT / baseline), str(OUT / other), "--json")
    comparison = json.loads(compared.stdout)[other]
    # the profile is a difference of method that does not change what the figures mean
    assert not comparison["not_comparable"], comparison["matches"]
    print(f"{other} against {baseline}:")
    for d in comparison["deltas"]:
        change = "–" if d["delta"] is None else f"{d['delta'] * 100:+.1f} %"
        print(f"  {d['label']}: {d['baseline']} → {d['other']} ({change}, {d['verdict']})")
