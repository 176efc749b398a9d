from __future__ import annotations

import pytest

from harness.records.compare import (
    ComparedCampaign,
    Comparison,
    compare_campaigns,
    headlines,
    judge,
    percent,
    verdict,
)
from harness.records.method import CampaignMethod

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


def test_verdict_of_one_figure():
    assert verdict(100, 125, True, 0.02) == (pytest.approx(0.25), "better", "")
    assert verdict(100, 125, False, 0.02)[1] == "worse"
    assert verdict(100, 101, True, 0.02) == (pytest.approx(0.01), "same", "within ±2 %")
    # the run-to-run spread, when larger than the tolerance, is what "same" is within
    assert verdict(100, 105, True, 0.02, spread=0.06) == (
        pytest.approx(0.05),
        "same",
        "within ±6 %, the run-to-run spread",
    )
    assert verdict(100, 110, True, 0.02, spread=0.06)[1] == "better"
    # a figure one side lacks is never "same"
    assert verdict(None, 3.0, False, 0.02) == (None, "–", "not in the baseline")
    assert verdict(3.0, None, False, 0.02) == (None, "–", "not in the other")
    assert verdict(0.0, 3.0, True, 0.02) == (None, "–", "baseline is zero")
    assert verdict(100, 101, True, 0.02, comparable=False) == (
        pytest.approx(0.01),
        "not comparable",
        "",
    )
    assert verdict(100, 101, True, 0.02, ceiling="at a ceiling")[1:] == ("–", "at a ceiling")


def test_deltas_signs_and_verdicts():
    baseline = [step(2, 1000, 1.0), step(4, 800, 2.0)]
    other = [step(2, 1250, 0.83, workload="x"), step(4, 805, 2.5, workload="x")]
    result = compare(baseline, other)
    deltas = {(d.concurrency, d.metric): d for d in result.deltas}
    iops = deltas[(2, "iops_sum")]
    assert iops.delta == pytest.approx(0.25) and iops.better is True and iops.verdict == "better"
    latency = deltas[(2, "p95_merged")]
    assert latency.delta == pytest.approx(-0.17) and latency.verdict == "better"
    assert (
        deltas[(4, "p95_merged")].verdict == "worse" and deltas[(4, "p95_merged")].better is False
    )
    same = deltas[(4, "iops_avg")]
    assert same.verdict == "same" and same.better is None and same.note == "within ±2 %"
    assert not result.unmatched and not result.not_comparable


def test_a_missing_metric_is_never_same():
    baseline = [step(2, 1000, None)]
    other = [step(2, 1000, 3.0)]
    deltas = {d.metric: d for d in compare(baseline, other).deltas}
    assert deltas["iops_sum"].verdict == "same"
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


def test_same_is_within_the_run_to_run_spread_of_repeats():
    baseline = [step(2, 1000, 1.0, repeat=1), step(2, 1100, 1.0, repeat=2)]
    other = [step(2, 1080, 1.0, repeat=1), step(2, 1080, 1.0, repeat=2)]
    deltas = [d for d in compare(baseline, other).deltas if d.metric == "iops_sum"]
    # repeats 1000 and 1100: ±4.8 % around their mean; +8 % and −2 % against each repeat
    assert [d.verdict for d in deltas] == ["better", "same"]
    assert deltas[1].note == "within ±5 %, the run-to-run spread"


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
    assert deltas[("t1", "pvc-bound", "p50_s")].verdict == "same"
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
    assert deltas[("git", "iteration_s")].verdict == "same"
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
        campaign("pvc", [fileio(900.0, 700.0)], **rndrw),
    )
    marked = {d.metric: d.headline for d in result.deltas}
    assert marked == {
        "reads_per_s_total": True,
        "writes_per_s_total": True,
        "fsyncs_per_s_total": False,
    }
    reads = next(d for d in result.deltas if d.metric == "reads_per_s_total")
    assert (reads.workload, reads.delta, reads.verdict) == ("rnd", pytest.approx(-0.1), "worse")
