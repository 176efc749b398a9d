from __future__ import annotations

import pytest

from harness.records.compare import compare_steps, judge, percent


def step(n, iops, p95, workload="w", ceilings=None):
    direction = {
        "iops_avg": iops,
        "iops_sum": iops * n,
        "p95_merged": p95,
        "ceilings": ceilings or {},
    }
    return {
        "step": f"s{n}",
        "workload": workload,
        "concurrency": n,
        "repeat": 1,
        "read": direction,
        "write": None,
    }


def test_judge():
    assert judge(0.25, higher_is_better=True) is True
    assert judge(0.25, higher_is_better=False) is False
    assert judge(-0.17, higher_is_better=False) is True
    assert judge(0.0, True) is None and judge(None, True) is None


def test_percent():
    assert percent(-0.17) == "−17 %"
    assert percent(0.25) == "+25 %"
    assert percent(None) == "–"


def test_deltas_signs_and_verdicts():
    baseline = [step(2, 1000, 1.0), step(4, 800, 2.0)]
    other = [step(2, 1250, 0.83, workload="x"), step(4, 800, 2.5, workload="x")]
    deltas = {(d.concurrency, d.metric): d for d in compare_steps(baseline, other)}
    iops = deltas[(2, "iops_sum")]
    assert iops.delta == pytest.approx(0.25) and iops.better is True
    latency = deltas[(2, "p95_merged")]
    assert latency.delta == pytest.approx(-0.17) and latency.better is True
    assert deltas[(4, "p95_merged")].better is False
    assert deltas[(4, "iops_avg")].better is None


def test_unmatched_steps_and_ceilings():
    baseline = [step(2, 1000, None, ceilings={"p95_merged": "top bucket"}), step(8, 1, 1)]
    other = [step(2, 900, 3.0)]
    deltas = compare_steps(baseline, other)
    assert {d.concurrency for d in deltas} == {2}
    capped = next(d for d in deltas if d.metric == "p95_merged")
    assert capped.delta is None and "ceiling" in capped.note


def db_step(threads, tps, bound_p95=None):
    return {
        "step": f"t{threads}",
        "workload": "db",
        "concurrency": 2,
        "threads": threads,
        "repeat": 1,
        "db": {"tps_total": tps, "tps_per_consumer": tps / 2},
        "provision": {
            "pvcs": 4,
            "pvc-bound": {"p50_s": 1.0, "p95_s": bound_p95, "max_s": bound_p95},
        },
    }


def test_database_and_provisioning_steps_compare_by_thread_count():
    baseline = [db_step(1, 100.0, 2.0), db_step(4, 300.0, 2.0)]
    other = [db_step(4, 150.0, 1.0), db_step(1, 120.0, 4.0)]
    deltas = {(d.step, d.direction, d.metric): d for d in compare_steps(baseline, other)}
    # matched by thread count, not position: t1 against t1, t4 against t4
    assert deltas[("t1", "db", "tps_total")].delta == pytest.approx(0.2)
    assert deltas[("t1", "db", "tps_total")].better is True
    assert deltas[("t4", "db", "tps_total")].delta == pytest.approx(-0.5)
    assert deltas[("t1", "pvc-bound", "p95_s")].better is False  # slower binding is worse
    assert deltas[("t4", "pvc-bound", "p95_s")].better is True
    assert ("t1", "pvc-bound", "p50_s") in deltas and deltas[
        ("t1", "pvc-bound", "p50_s")
    ].better is None
