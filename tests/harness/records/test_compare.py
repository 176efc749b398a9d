from __future__ import annotations

import pytest

from harness.core.figures import FAR_TAIL, FIO, ITERATIONS, RATE
from harness.records.compare import (
    ComparedCampaign,
    Comparison,
    Judged,
    compare_campaigns,
    headlines,
    judge,
    percent,
    verdict,
)
from harness.records.method import CampaignMethod
from harness.records.noise import noise_floor

WORKLOAD = {"tool": "fio", "name": "w", "rw": ["randread"], "bs": "4k", "iodepth": 16}


def step(n, iops, p95, workload="w", ceilings=None, repeat=1):
    direction = {
        "iops_avg": iops,
        "iops_sum": iops * n,
        "p95_merged": p95,
        "ceilings": ceilings or {},
    }
    return {
        "step": f"s{n}-r{repeat}",
        "workload": workload,
        "concurrency": n,
        "repeat": repeat,
        "read": direction,
        "write": None,
    }


def campaign(name, steps, **workload) -> ComparedCampaign:
    workloads = {s["workload"]: {**WORKLOAD, "name": s["workload"], **workload} for s in steps}
    return ComparedCampaign(name, steps, CampaignMethod(workloads, "local", "local:ext4", {}))


def compare(baseline, other, **options) -> Comparison:
    return compare_campaigns(campaign("a", baseline), campaign("b", other), **options)


def test_judge():
    assert judge(0.25, higher_is_better=True) is True
    assert judge(0.25, higher_is_better=False) is False
    assert judge(-0.17, higher_is_better=False) is True
    assert judge(0.0, True) is None and judge(None, True) is None


def test_percent():
    assert percent(-0.17) == "−17 %"
    assert percent(0.25) == "+25 %"
    assert percent(None) == "–"


IOPS, P99 = FIO["iops_sum"], FIO["p99_merged"]


def test_single_runs_are_judged_against_the_noise_floor_of_the_figures_kind():
    better = verdict([100], [125], IOPS, 0.02)  # beyond the 15 % two single runs can differ
    assert (better.delta, better.verdict) == (pytest.approx(0.25), "better")
    assert (
        better.note == "beyond ±15 %, the noise floor for rates on local" and better.floor == 0.15
    )
    assert verdict([100], [125], FIO["clat_mean_avg"], 0.02).verdict == "worse"
    unknown = verdict([100], [110], IOPS, 0.02)
    assert unknown.verdict == "spread unknown" and unknown.delta == pytest.approx(0.1)
    assert unknown.note == "within ±15 %, the noise floor for rates on local: run with repeats"
    assert verdict([100], [101], IOPS, 0.02).verdict == "spread unknown"  # never "same"
    assert verdict([1.0], [2.0], P99, 0.02).verdict == "spread unknown"  # p99: ±160 %
    assert verdict([1.0], [3.0], P99, 0.02).verdict == "worse"
    # a count has no noise: an unchanged count of failed iterations is the same
    assert verdict([3], [3], ITERATIONS["failed"], 0.02).verdict == "same"
    # one side's repeats: their run-to-run spread (here ±4.8 %) is the floor
    spread = verdict([1000, 1100], [1080], IOPS, 0.02)
    assert (spread.verdict, spread.note) == (
        "within noise",
        "within ±5 %, the run-to-run spread of repeats",
    )
    assert verdict([1000, 1100], [1200], IOPS, 0.02).verdict == "better"


def test_the_noise_floor_is_the_targets_and_the_larger_of_two():
    assert noise_floor(RATE, ["local"]) == (0.15, "on local")
    assert noise_floor(RATE, ["local", "rbd"]) == (0.45, "on rbd")
    assert noise_floor(FAR_TAIL, ["local", "rbd"]) == (1.6, "on local")  # local's p99: 154 %
    assert noise_floor(RATE, ["k8s"]) == (0.45, "on k8s, not measured")  # the largest
    rbd = verdict([100], [140], IOPS, 0.02, targets=["rbd", "rbd"])
    assert rbd.verdict == "spread unknown" and "the noise floor for rates on rbd" in rbd.note


def test_a_figure_one_side_lacks_or_at_a_ceiling_or_measured_otherwise_is_not_judged():
    assert verdict([], [3.0], IOPS, 0.02) == Judged(None, "–", "not in the baseline")
    assert verdict([3.0], [], IOPS, 0.02) == Judged(None, "–", "not in the other")
    assert verdict([0.0], [3.0], IOPS, 0.02) == Judged(None, "–", "baseline is zero")
    other = verdict([100], [150], IOPS, 0.02, comparable=False)
    assert (other.delta, other.verdict) == (pytest.approx(0.5), "not comparable")
    assert verdict([100], [101], IOPS, 0.02, ceiling="at a ceiling") == Judged(
        None, "–", "at a ceiling"
    )


def test_repeats_on_both_sides_are_judged_on_welchs_interval():
    # means 100 and 110, each variance 2.5 over 5 runs: standard error 1 on 8 degrees of
    # freedom, t(0.975, 8) = 2.306: the change 10 ± 2.306, +7.7 % to +12.3 %
    better = verdict([100, 102, 98, 101, 99], [110, 112, 108, 111, 109], IOPS, 0.02)
    assert better.verdict == "better" and better.delta == pytest.approx(0.10)
    assert (better.interval.low, better.interval.high) == (
        pytest.approx(0.07694, abs=1e-4),
        pytest.approx(0.12306, abs=1e-4),
    )
    assert better.note == "95 % interval +8 % to +12 %, 5 and 5 runs"
    worse = verdict([100, 102, 98, 101, 99], [110, 112, 108, 111, 109], FIO["clat_mean_avg"], 0.02)
    assert worse.verdict == "worse"
    # an interval within the tolerance: the same
    same = verdict([100, 100.5, 99.5, 100, 100], [100.5, 100, 101, 100.5, 100.5], IOPS, 0.02)
    assert same.verdict == "same" and same.note.endswith(": within ±2 %")
    # a real change, but not shown to be beyond the tolerance nor within it: noise
    small = verdict([100, 100.5, 99.5], [101.5, 102, 101], IOPS, 0.02)
    assert small.interval.excludes_zero and small.interval.high > 0.02
    assert small.verdict == "within noise"
    # a wide interval across zero: noise, whatever the change
    wide = verdict([100, 120, 80, 110, 90], [105, 125, 85, 115, 95], IOPS, 0.02)
    assert wide.verdict == "within noise" and wide.note.endswith("more repeats narrow it")
    assert wide.interval.half_width > 0.05
    # runs without any spread: the change itself
    flat = verdict([100, 100], [110, 110], IOPS, 0.02)
    assert flat.verdict == "better" and flat.interval.low == flat.interval.high


def test_deltas_signs_and_verdicts():
    baseline = [step(2, 1000, 1.0), step(4, 800, 2.0)]
    other = [step(2, 1250, 0.7, workload="x"), step(4, 805, 2.6, workload="x")]
    result = compare(baseline, other)
    deltas = {(d.concurrency, d.metric): d for d in result.deltas}
    iops = deltas[(2, "iops_sum")]
    assert iops.delta == pytest.approx(0.25) and iops.better is True and iops.verdict == "better"
    latency = deltas[(2, "p95_merged")]
    assert latency.delta == pytest.approx(-0.3) and latency.verdict == "better"
    assert (
        deltas[(4, "p95_merged")].verdict == "worse" and deltas[(4, "p95_merged")].better is False
    )
    unknown = deltas[(4, "iops_avg")]
    assert unknown.verdict == "spread unknown" and unknown.better is None
    assert unknown.floor == 0.15 and unknown.smallest == 0.15
    assert not result.unmatched and not result.not_comparable


def test_a_missing_metric_is_never_same():
    baseline = [step(2, 1000, None)]
    other = [step(2, 1000, 3.0)]
    deltas = {d.metric: d for d in compare(baseline, other).deltas}
    assert deltas["iops_sum"].verdict == "spread unknown"
    missing = deltas["p95_merged"]
    assert missing.baseline is None and missing.delta is None
    assert missing.verdict == "–" and missing.note == "not in the baseline"


def test_a_section_only_one_side_has_is_listed():
    baseline = [step(2, 1000, 1.0)]
    other = [{**step(2, 1000, 1.0), "write": {"iops_sum": 500.0}}]
    writes = [d for d in compare(baseline, other).deltas if d.direction == "write"]
    assert [(d.metric, d.baseline, d.other, d.verdict) for d in writes] == [
        ("iops_sum", None, 500.0, "–")
    ]


def test_unmatched_steps_are_listed_and_ceilings_have_no_delta():
    baseline = [step(2, 1000, None, ceilings={"p95_merged": "top bucket"}), step(8, 1, 1)]
    other = [step(2, 900, 3.0), step(16, 1, 1)]
    result = compare(baseline, other)
    assert {d.concurrency for d in result.deltas} == {2}
    capped = next(d for d in result.deltas if d.metric == "p95_merged")
    assert capped.delta is None and capped.verdict == "–" and "ceiling" in capped.note
    assert [(u.campaign, u.step, u.concurrency) for u in result.unmatched] == [
        ("baseline", "s8-r1", 8),
        ("other", "s16-r1", 16),
    ]


def test_a_difference_in_meaning_makes_verdicts_not_comparable_unless_accepted():
    baseline = campaign("a", [step(2, 1000, 1.0)])
    other = campaign("b", [step(2, 2000, 1.0)], iodepth=64)
    result = compare_campaigns(baseline, other)
    assert result.not_comparable
    [match] = result.matches
    assert [(d.setting, d.baseline, d.other) for d in match.differences] == [
        ("iodepth", "16", "64")
    ]
    assert {d.verdict for d in result.deltas} == {"not comparable"}
    iops = next(d for d in result.deltas if d.metric == "iops_sum")
    assert iops.delta == pytest.approx(1.0) and iops.better is None  # the numbers stay
    accepted = compare_campaigns(baseline, other, accept_differences=True)
    assert not accepted.not_comparable
    assert next(d for d in accepted.deltas if d.metric == "iops_sum").verdict == "better"
    # a difference that does not change the meaning (here the file size) is listed only
    sized = compare_campaigns(baseline, campaign("c", [step(2, 2000, 1.0)], size="8G"))
    assert not sized.not_comparable and sized.matches[0].differences[0].setting == "size"


def test_repeats_are_compared_together_once_per_step():
    baseline = [step(2, 1000, 1.0, repeat=1), step(2, 1100, 1.0, repeat=2)]
    other = [step(2, 1080, 1.0, repeat=1), step(2, 1080, 1.0, repeat=2)]
    result = compare(baseline, other)
    assert [(m.baseline_step, m.other_step) for m in result.matches] == [
        ("s2-r1", "s2-r1"),
        ("s2-r2", "s2-r2"),
    ]
    (iops,) = [d for d in result.deltas if d.metric == "iops_sum"]
    # +8 % and −2 % against each repeat; their means: +2.9 %, in an interval of ±60 % or so
    assert (iops.step, iops.runs, iops.baseline) == ("s2-r1", (2, 2), 2100)
    assert iops.delta == pytest.approx(0.0286, abs=1e-3) and iops.verdict == "within noise"
    assert iops.low < -0.5 and iops.high > 0.5 and iops.smallest > 0.5
    # a step repeated on one side only: that side's spread is the floor
    single = compare(baseline, [step(2, 1080, 1.0)])
    (iops,) = [d for d in single.deltas if d.metric == "iops_sum"]
    assert (iops.runs, iops.verdict, iops.floor) == (
        (2, 1),
        "within noise",
        pytest.approx(0.0476, abs=1e-3),
    )


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
    result = compare(baseline, other)
    deltas = {(d.step, d.direction, d.metric): d for d in result.deltas}
    # matched by thread count, not position: t1 against t1, t4 against t4
    assert deltas[("t1", "db", "tps_total")].delta == pytest.approx(0.2)
    assert deltas[("t1", "db", "tps_total")].better is True
    assert deltas[("t4", "db", "tps_total")].delta == pytest.approx(-0.5)
    assert deltas[("t1", "pvc-bound", "p95_s")].better is False  # slower binding is worse
    assert deltas[("t4", "pvc-bound", "p95_s")].better is True
    assert deltas[("t1", "pvc-bound", "p50_s")].verdict == "spread unknown"
    assert [(m.baseline_step, m.other_step) for m in result.matches] == [
        ("t1", "t1"),
        ("t4", "t4"),
    ]


def test_git_steps_compare_their_phase_times_slower_is_worse():
    def git_step(n, clone_s, iteration_s):
        return {
            "step": f"g{n}",
            "workload": "w",
            "concurrency": n,
            "repeat": 1,
            "app": {
                "tool": "git",
                "clone_s": clone_s,
                "iteration_s": iteration_s,
                "failed": 1,
                "tar_s": None,
            },
        }

    result = compare([git_step(1, 1.0, 2.0)], [git_step(1, 1.5, 2.0)])
    deltas = {(d.direction, d.metric): d for d in result.deltas}
    assert deltas[("git", "clone_s")].delta == pytest.approx(0.5)
    assert deltas[("git", "clone_s")].verdict == "worse"
    assert deltas[("git", "iteration_s")].verdict == "spread unknown"
    assert deltas[("git", "failed")].verdict == "same"
    assert ("git", "tar_s") not in deltas  # a figure neither side has


def test_the_comparison_as_json_carries_differences_verdicts_and_unmatched_steps():
    baseline = campaign("a", [step(2, 1000, 1.0), step(4, 1000, 1.0)])
    other = campaign("b", [step(2, 1000, 1.0)], bs="64k")
    data = compare_campaigns(baseline, other).to_dict()
    assert data["not_comparable"] is True and data["tolerance"] == 0.02
    assert data["matches"][0]["differences"] == [
        {"setting": "bs", "baseline": "4k", "other": "64k", "changes_meaning": True}
    ]
    assert {d["verdict"] for d in data["deltas"]} == {"not comparable"}
    assert data["unmatched"] == [
        {
            "campaign": "baseline",
            "step": "s4-r1",
            "workload": "w",
            "concurrency": 4,
            "threads": None,
            "repeat": 1,
        }
    ]


def test_the_figures_the_studies_quote_by_tool_and_test():
    assert headlines({"tool": "sysbench-fileio", "test": "rndrw"}) == [
        ("db", "reads_per_s_total"),
        ("db", "writes_per_s_total"),
    ]
    assert headlines({"tool": "sysbench-fileio", "test": "seqwr"}) == [
        ("db", "written_mib_s_total")
    ]
    assert headlines({"tool": "pgbench", "test": "tpcb-like"}) == [
        ("db", "load_time_s_max"),
        ("db", "tps_total"),
        ("db", "latency_avg_ms"),
    ]
    assert ("read", "iops_sum") in headlines({"rw": ["randread"]})  # no tool: fio
    assert headlines({"tool": "git"}) == []


def test_deltas_of_quoted_figures_are_marked_with_their_workload():
    def fileio(reads, writes):
        figures = {
            "reads_per_s_total": reads,
            "writes_per_s_total": writes,
            "fsyncs_per_s_total": 9,
        }
        return {"step": "s1", "workload": "rnd", "concurrency": 1, "threads": 4, "db": figures}

    rndrw = {"tool": "sysbench-fileio", "test": "rndrw"}
    result = compare_campaigns(
        campaign("host", [fileio(1000.0, 700.0)], **rndrw),
        campaign("pvc", [fileio(800.0, 700.0)], **rndrw),
    )
    marked = {d.metric: d.headline for d in result.deltas}
    assert marked == {
        "reads_per_s_total": True,
        "writes_per_s_total": True,
        "fsyncs_per_s_total": False,
    }
    reads = next(d for d in result.deltas if d.metric == "reads_per_s_total")
    assert (reads.workload, reads.delta, reads.verdict) == ("rnd", pytest.approx(-0.2), "worse")


def _faulted(step_figures, kept_degraded, stall_recovering, healed_s, rate):
    phases = [
        {"state": "healthy", "iops": 900.0, "kept_pct": 100.0, "longest_stall_s": 0.0},
        {"state": "degraded", "iops": 9 * kept_degraded, "kept_pct": kept_degraded},
        {"state": "recovering", "iops": 500.0, "longest_stall_s": stall_recovering},
    ]
    return {
        **step_figures,
        "phases": {"sum": phases, "fault_to_healed_s": healed_s},
        "ceph_recovery": {"seconds": 10.0, "bytes": 35e6, "bytes_per_s": rate},
    }


def test_faulted_steps_compare_each_phase_and_how_they_healed():
    baseline = [_faulted(step(1, 800, 1.0), 147.0, 1.9, 37.0, 3.5e6)]
    other = [_faulted(step(1, 800, 1.0), 60.0, 4.0, 25.0, 7.0e6)]
    deltas = {(d.direction, d.metric): d for d in compare(baseline, other).deltas}
    kept = deltas[("phase degraded", "kept_pct")]
    assert (kept.baseline, kept.other, kept.verdict) == (147.0, 60.0, "worse")
    stall = deltas[("phase recovering", "longest_stall_s")]
    # a single run's stall: no floor is known for maxima on this target
    assert (stall.baseline, stall.other, stall.verdict) == (1.9, 4.0, "spread unknown")
    healed = deltas[("recovery", "fault_to_healed_s")]
    assert (healed.baseline, healed.other, healed.verdict) == (37.0, 25.0, "spread unknown")
    assert deltas[("recovery", "bytes_per_s")].verdict == "better"
    assert ("recovery", "bytes") not in deltas
    # a step without phases on one side: its phases are listed, not judged
    plain = {(d.direction, d.metric): d for d in compare([step(1, 800, 1.0)], other).deltas}
    assert plain[("phase degraded", "kept_pct")].verdict == "–"


def _rally_faulted(degraded_median_s, failed, healed_s):
    phases = [
        {"state": "healthy", "seconds": 2.0, "iterations": 8, "failed": 0, "median_s": 0.5},
        {
            "state": "degraded",
            "seconds": 7.0,
            "iterations": 20,
            "failed": failed,
            "median_s": degraded_median_s,
            "max_s": 3.0,
        },
    ]
    workload = {
        "scenario": "CinderVolumes.create_and_delete_volume",
        "concurrency": 2,
        "actions": {},
        "phases": {"phases": phases, "faults": [], "fault_to_healed_s": healed_s},
    }
    return {"step": "001", "workload": "cp", "concurrency": 2, "rally": {"workloads": [workload]}}


def test_rally_workloads_given_faults_compare_each_phase_and_how_they_healed():
    baseline = [_rally_faulted(0.5, 0, 12.0)]
    other = [_rally_faulted(0.9, 4, 20.0)]
    deltas = {(d.direction, d.metric): d for d in compare(baseline, other).deltas}
    where = "CinderVolumes.create_and_delete_volume at 2"
    median = deltas[(f"{where}: phase degraded", "median_s")]
    assert (median.baseline, median.other) == (0.5, 0.9)
    failed = deltas[(f"{where}: phase degraded", "failed")]
    # none failed before: a change from zero has no ratio, and is shown, not judged
    assert (failed.baseline, failed.other, failed.note) == (0, 4, "baseline is zero")
    healed = deltas[(f"{where}: recovery", "fault_to_healed_s")]
    assert (healed.baseline, healed.other) == (12.0, 20.0)
    assert (f"{where}: phase healthy", "max_s") not in deltas  # neither side has it
