"""Seed 002's table of storage types on one machine: the `bare-host` profile (sysbench
fileio random read/write, sequential read, sequential write; pgbench's load, TPS and
latency) run on the host's own file system, then in pods on PVCs of the k8s testbed's
`local-static` class (a folder of the same disk, like hostPath) and of its `ceph-fs` class
(CephFS through ceph-fuse, its one OSD on the same disk), and `volperf compare` of the
two against the host: a page with the seed's table and every figure's change.

Brings up its own Ceph testbed (with CephFS, monitor port 20950) and a k8s testbed on it
(base port 23700) in pytest's temporary directory, and purges both at the end. Writes
results/storage-types/: the three campaigns and comparison.yaml, from which every
documentation build writes the comparison page
(test_results/compare-bare-host-vs-k8s-local-static-k8s-ceph-fs/; this run writes it into
doc/source too). About 11 minutes on 2 cores. Run alone on the machine:

    .venv/bin/python -m pytest benchmarks/test_storage_types.py -s
"""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path

import pytest
import yaml

from benchmarks.scale.measure import ROOT, volperf
from harness.report.comparison import KEPT

OUT = ROOT / "results" / "storage-types"
CEPH_MON_PORT = "20950"
K8S_BASE_PORT = "23700"
BASELINE = "bare-host"
CLASSES = ("local-static", "ceph-fs")


@pytest.fixture(scope="module")
def testbed(tmp_path_factory):
    """The k8s testbed's state directory (ceph-fs on its own Ceph testbed)."""
    work = tmp_path_factory.mktemp("storage-types")
    ceph, k8s = work / "ceph", work / "k8s"
    purge: list[str] = []
    try:
        volperf("testbed", "up", "ceph", "--state", str(ceph), "--mon-port", CEPH_MON_PORT)
        up = ("testbed", "up", "k8s", "--state", str(k8s), "--base-port", K8S_BASE_PORT)
        volperf(*up, "--ceph-state", str(ceph), timeout=3600)
        purge = ["--purge"]
        yield k8s
    finally:
        volperf("testbed", "down", "k8s", "--state", str(k8s), *purge)
        volperf("testbed", "down", "ceph", "--state", str(ceph), *purge)


@pytest.fixture
def host_dir():
    """A folder on the same disk as the testbed's PVs and OSD that PostgreSQL's own user
    can reach (pytest's temporary folders are the owner's only)."""
    path = Path(tempfile.mkdtemp(prefix="volperf-storage-types-", dir="/var/tmp"))
    path.chmod(0o755)
    yield path
    shutil.rmtree(path)


def test_storage_types(testbed: Path, host_dir: Path) -> None:
    if OUT.exists():
        shutil.rmtree(OUT)
    OUT.mkdir(parents=True)
    run = ("run", "--profile", "bare-host", "--results", str(OUT))
    volperf(*run, "local", "--dir", str(host_dir), "--name", BASELINE)
    kubeconfig = str(testbed / "admin.kubeconfig")
    for storage_class in CLASSES:
        name = f"k8s-{storage_class}"
        target = ("--storage-class", storage_class, "--kubeconfig", kubeconfig)
        volperf(*run, "k8s", *target, "--name", name)
    others = [f"k8s-{c}" for c in CLASSES]
    # the page is written anew from the campaigns by every documentation build
    kept = {"baseline": BASELINE, "others": others, "accept_differences": True}
    (OUT / KEPT).write_text(yaml.safe_dump(kept, sort_keys=False))
    paths = [str(OUT / name) for name in (BASELINE, *others)]
    compared = volperf("compare", *paths, "--accept-differences", "--json")
    for name, comparison in json.loads(compared.stdout).items():
        quoted = [d for d in comparison["deltas"] if d["headline"]]
        print(f"{name} against {BASELINE}:")
        for d in quoted:
            change = "–" if d["delta"] is None else f"{d['delta'] * 100:+.1f} %"
            print(f"  {d['workload']} {d['label']}: {d['baseline']} → {d['other']} ({change})")
        assert len(quoted) == 7  # the seed's columns: 2 random, 2 sequential, 3 pgbench
