from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

CACHE = Path(__file__).parent / ".cache"


def fio_output_of(consumers: int, directory: Path) -> Path:
    """Real json+ output of ``consumers`` fio jobs (made once, then cached)."""
    CACHE.mkdir(exist_ok=True)
    out = CACHE / f"fio-{consumers}-consumers.json"
    if out.exists():
        return out
    directory.mkdir(parents=True, exist_ok=True)
    sections = []
    for i in range(1, consumers + 1):
        rw = "randread" if i % 2 else "randwrite"
        sections += [f"[c{i:04d}-{rw}]", f"rw={rw}", f"filename={directory}/c{i:04d}.dat", ""]
    job = directory / "bench.fio"
    job.write_text(
        "[global]\nioengine=psync\nthread\nbs=4k\nsize=256k\nruntime=1\ntime_based\n"
        "percentile_list=50:90:95:99:99.9\n\n" + "\n".join(sections)
    )
    with out.open("w") as handle:
        subprocess.run(["fio", "--output-format=json+", str(job)], stdout=handle, check=True)
    for data in directory.glob("c*.dat"):
        data.unlink()
    return out


@pytest.fixture(scope="session")
def bench_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("bench")
