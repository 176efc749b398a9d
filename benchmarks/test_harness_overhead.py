"""volperf's overhead: the same job run by volperf and by fio directly, side by side."""

from __future__ import annotations

import json
import statistics
import subprocess

from harness.campaign.run import run_campaign
from harness.core.spec import validate
from harness.planes.local.fio_target import LocalFioTarget
from harness.tools.fio.render import JobTarget, render_job

ROUNDS = 4
RUNTIME_S = 5


def spec_for(directory, name):
    return validate(
        {
            "name": name,
            "target": {"type": "local", "dir": str(directory)},
            "sweep": [2],
            "workloads": [
                {
                    "name": "rr",
                    "rw": "randread",
                    "bs": "4k",
                    "iodepth": 16,
                    "size": "64M",
                    "runtime": RUNTIME_S,
                    "prefill": True,
                }
            ],
        }
    )


def iops_of(fio_out: str) -> float:
    document = json.loads(fio_out[fio_out.index("{") :])
    return sum(job["read"]["iops"] for job in document["jobs"])


def test_volperf_iops_against_fio_directly(benchmark, tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    plain, through_volperf = [], []
    for round_ in range(ROUNDS):
        spec = spec_for(data, f"overhead-{round_}")
        outcome = run_campaign(spec, tmp_path / "results", LocalFioTarget)
        assert outcome.ok
        raw = outcome.store.raw_dir(outcome.store.step_ids()[0])
        through_volperf.append(iops_of((raw / "fio.out").read_text()))
        # the same job, on the same (prefilled, then removed) files, by fio alone
        targets = [JobTarget(f"c{i}", "randread", str(data / f"plain-{i}.dat")) for i in (1, 2)]
        job = tmp_path / "plain.fio"
        job.write_text(render_job(spec.workloads[0], targets))
        for t in targets:
            subprocess.run(
                [
                    "fio",
                    "--name=prefill",
                    "--rw=write",
                    "--bs=1M",
                    "--size=64M",
                    "--direct=1",
                    f"--filename={t.filename}",
                ],
                check=True,
                capture_output=True,
            )
        out = subprocess.run(
            ["fio", "--output-format=json+", str(job)], check=True, capture_output=True, text=True
        ).stdout
        plain.append(iops_of(out))
        for t in targets:
            subprocess.run(["rm", "-f", t.filename], check=True)
    ratio = statistics.median(through_volperf) / statistics.median(plain)
    benchmark.extra_info.update(
        volperf_iops=[round(v) for v in through_volperf],
        fio_iops=[round(v) for v in plain],
        ratio=round(ratio, 4),
    )
    print(f"\nvolperf/fio IOPS ratio: {ratio:.4f} (volperf {through_volperf}, fio {plain})")
    benchmark.pedantic(lambda: None, rounds=1)
    assert ratio > 0.9
