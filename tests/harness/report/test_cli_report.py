"""`volperf report` and `volperf compare` on real campaigns."""

from __future__ import annotations

import json
import shutil
import statistics
from pathlib import Path

import pytest
from scipy import stats as scipy_stats

from harness.campaign.run import run_campaign
from harness.core.figures import FIO
from harness.planes.local.fio_target import LocalFioTarget
from harness.records.noise import MEASURED_FLOORS
from tests.harness.helpers import tiny_spec, volperf

pytestmark = [pytest.mark.functional, pytest.mark.quiet]  # qd16's speed against qd1's
REPO = Path(__file__).parents[3]
REFERENCE = REPO / "results" / "reference" / "performance-docs-cinder-ceph"


@pytest.fixture(scope="module")
def two_campaigns(tmp_path_factory) -> Path:
    """The same 4k randread sweep at iodepth 1 and at iodepth 16 (twice), and one consumer
    at each run 5 times, on prefilled files, with the reference study beside them."""
    root = tmp_path_factory.mktemp("cmp")
    (root / "data").mkdir()
    for name, depth in (("qd1", 1), ("qd16", 16), ("qd16-again", 16)):
        spec = tiny_spec(
            root / "data",
            name=name,
            sweep=[1, 2],
            workload={"rw": "randread", "iodepth": depth, "runtime": 2},
        )
        assert run_campaign(spec, root / "results", LocalFioTarget).ok
    for name, depth in (("qd1-x5", 1), ("qd16-x5", 16)):
        spec = tiny_spec(
            root / "data",
            name=name,
            sweep=[1],
            repeats=5,
            workload={"rw": "randread", "iodepth": depth},
        )
        assert run_campaign(spec, root / "results", LocalFioTarget).ok
    shutil.copytree(REFERENCE, root / "results" / "reference" / REFERENCE.name)
    shutil.copytree(
        REPO / "doc" / "source",
        root / "doc" / "source",
        ignore=shutil.ignore_patterns("test_results"),
    )
    (root / "doc" / "source" / "test_results").mkdir()
    shutil.copy(
        REPO / "doc" / "source" / "test_results" / "index.rst",
        root / "doc" / "source" / "test_results",
    )
    return root


def compared(root: Path, *args: str) -> dict:
    result = volperf("compare", *args, "--json", "--no-page", cwd=root)
    assert result.returncode == 0, result.stderr
    [comparison] = json.loads(result.stdout).values()
    return comparison


def test_compare_iodepth_1_against_16_has_the_right_signs_and_sizes(two_campaigns):
    root = two_campaigns
    comparison = compared(root, "results/qd1", "results/qd16", "--accept-differences")
    deltas = comparison["deltas"]
    summaries = {
        n: json.loads((root / "results" / n / "summary.json").read_text())["steps"]
        for n in ("qd1", "qd16")
    }

    def section(step: dict, direction: str) -> dict:
        # "read, common window": the figures over the time every consumer ran
        return step["window"]["read"] if direction.endswith("common window") else step["read"]

    for d in deltas:
        if d["delta"] is None:
            continue
        index = [s["step"] for s in summaries["qd1"]].index(d["step"])
        base = section(summaries["qd1"][index], d["direction"])[d["metric"]]
        other = section(summaries["qd16"][index], d["direction"])[d["metric"]]
        assert d["delta"] == pytest.approx((other - base) / base)  # the magnitude
    assert {d["direction"] for d in deltas} == {"read", "read, common window"}
    by_metric = {(d["concurrency"], d["metric"]): d for d in deltas if d["direction"] == "read"}
    # 16 I/Os in flight instead of 1: more IOPS (better) at a higher latency (worse)
    assert by_metric[(1, "iops_sum")]["delta"] > 0.5 and by_metric[(1, "iops_sum")]["better"]
    assert by_metric[(1, "iops_sum")]["verdict"] == "better"
    assert by_metric[(1, "p95_merged")]["delta"] > 0
    assert by_metric[(1, "p95_merged")]["verdict"] == "worse"
    assert comparison["accept_differences"] and not comparison["not_comparable"]

    table = volperf("compare", "results/qd1", "results/qd16", "--accept-differences", cwd=root)
    assert table.returncode == 0, table.stderr
    assert "qd16 against qd1" in table.stderr and "better" in table.stderr
    assert "were accepted (--accept-differences)" in table.stderr
    page = root / "doc" / "source" / "test_results" / "compare-qd1-vs-qd16" / "index.rst"
    assert page.exists() and "IOPS, sum" in page.read_text()


def test_iodepth_1_against_16_is_not_comparable_unless_accepted(two_campaigns):
    comparison = compared(two_campaigns, "results/qd1", "results/qd16")
    assert comparison["not_comparable"]
    for match in comparison["matches"]:
        assert match["differences"] == [
            {"setting": "iodepth", "baseline": "1", "other": "16", "changes_meaning": True}
        ]
    assert {d["verdict"] for d in comparison["deltas"]} == {"not comparable"}
    assert all(d["delta"] is not None for d in comparison["deltas"])  # numbers still shown
    table = volperf("compare", "results/qd1", "results/qd16", "--no-page", cwd=two_campaigns)
    assert "not comparable" in table.stderr and "--accept-differences" in table.stderr
    assert "better" not in table.stderr.replace("“better”", "")


def test_the_reference_study_against_a_quick_campaign(two_campaigns):
    root = two_campaigns
    reference = f"results/reference/{REFERENCE.name}"
    comparison = compared(root, reference, "results/qd16")
    [match] = comparison["matches"]  # 2 consumers: the only sweep point both have
    assert match["concurrency"] == 2
    found = {d["setting"]: (d["baseline"], d["other"]) for d in match["differences"]}
    assert found["iodepth"] == ("64", "16")
    assert found["runtime"] == ("600 s", "2 s")
    assert found["target type"] == ("openstack", "local")
    assert found["size"] == ("40G", "8M")
    assert found["rw"] == ("randread+randwrite", "randread")
    assert comparison["not_comparable"]
    verdicts = {(d["direction"], d["metric"]): d["verdict"] for d in comparison["deltas"]}
    assert verdicts[("read", "iops_sum")] == "not comparable"
    # the study publishes no merged percentiles and no mean latency: "–", never "same"
    assert verdicts[("read", "p95_merged")] == "–"
    assert verdicts[("read", "clat_mean_avg")] == "–"
    assert "same" not in verdicts.values()
    unmatched = {(u["campaign"], u["concurrency"]) for u in comparison["unmatched"]}
    assert unmatched == {
        ("baseline", 4),
        ("baseline", 10),
        ("baseline", 20),
        ("baseline", 40),
        ("other", 1),
    }
    table = volperf("compare", reference, "results/qd16", cwd=root)
    assert table.returncode == 0, table.stderr
    for text in ("what differs in the method", "changes the figures' meaning", "only one"):
        assert text in table.stderr
    page = root / "doc/source/test_results" / f"compare-{REFERENCE.name}-vs-qd16" / "index.rst"
    text = page.read_text()
    assert "What differs in the method" in text and "Steps only one campaign has" in text
    assert "not comparable" in text


def test_two_single_runs_of_the_same_spec_claim_no_change_within_the_noise_floor(
    two_campaigns,
):
    comparison = compared(two_campaigns, "results/qd16", "results/qd16-again")
    assert [m["differences"] for m in comparison["matches"]] == [[], []]
    assert not comparison["not_comparable"] and not comparison["unmatched"]
    judged = [d for d in comparison["deltas"] if d["delta"] is not None]
    assert judged and {d["verdict"] for d in judged} <= {"better", "worse", "spread unknown"}
    for d in judged:  # better or worse only beyond the floor of the figure's kind
        kind = FIO[d["metric"]].noise_kind
        assert d["runs"] == [1, 1] and d["floor"] == max(MEASURED_FLOORS["local"][kind], 0.02)
        assert (abs(d["delta"]) > d["floor"]) == (d["verdict"] in ("better", "worse")), d
    table = volperf("compare", "results/qd16", "results/qd16-again", cwd=two_campaigns)
    assert "measured the same way" in table.stderr
    if any(d["verdict"] == "spread unknown" for d in judged):
        words = " ".join(table.stderr.split())
        assert "run-to-run spread is unknown" in words and "“repeats: 5”" in words
        page = two_campaigns / "doc/source/test_results/compare-qd16-vs-qd16-again/index.rst"
        assert "“repeats: 5”" in " ".join(page.read_text().split())


def welch(a: list[float], b: list[float]) -> tuple[float, float]:
    """Welch's 95 % interval of mean(b) − mean(a), over mean(a), by its formula."""
    ma, mb = statistics.fmean(a), statistics.fmean(b)
    va, vb = statistics.variance(a) / len(a), statistics.variance(b) / len(b)
    freedom = (va + vb) ** 2 / (va**2 / (len(a) - 1) + vb**2 / (len(b) - 1))
    half = scipy_stats.t.ppf(0.975, freedom) * (va + vb) ** 0.5
    return (mb - ma - half) / ma, (mb - ma + half) / ma


def test_five_repeats_each_of_iodepth_1_and_16_give_the_verdict_and_its_interval(two_campaigns):
    root = two_campaigns
    comparison = compared(root, "results/qd1-x5", "results/qd16-x5", "--accept-differences")
    steps = {
        n: json.loads((root / "results" / n / "summary.json").read_text())["steps"]
        for n in ("qd1-x5", "qd16-x5")
    }
    assert [len(s) for s in steps.values()] == [5, 5]
    deltas = {(d["direction"], d["metric"]): d for d in comparison["deltas"]}
    whole = [d for d in deltas.values() if not d["direction"].endswith("common window")]
    assert whole and {tuple(d["runs"]) for d in whole} == {(5, 5)}
    # a run's common window of a second or two holds its figures only if a log interval
    # fell inside it: each figure's interval is over the runs that have it, as it says
    for (direction, metric), d in deltas.items():
        if direction.endswith("common window"):
            side = direction.split(",")[0]
            counts = [
                sum(
                    1
                    for s in steps[n]
                    if ((s.get("window") or {}).get(side) or {}).get(metric) is not None
                )
                for n in ("qd1-x5", "qd16-x5")
            ]
            assert d["runs"] == counts, d
            if min(counts) >= 2:  # Welch's interval over them; else the single runs' floor
                assert f"{counts[0]} and {counts[1]} runs" in d["note"], d
            else:
                assert "noise floor" in d["note"] or "spread unknown" in d["verdict"], d
    for metric, verdict in (("iops_sum", "better"), ("clat_mean_avg", "worse")):
        d = deltas[("read", metric)]
        a = [s["read"][metric] for s in steps["qd1-x5"]]
        b = [s["read"][metric] for s in steps["qd16-x5"]]
        low, high = welch(a, b)
        assert (d["low"], d["high"]) == (pytest.approx(low), pytest.approx(high)), d
        assert d["delta"] == pytest.approx(statistics.fmean(b) / statistics.fmean(a) - 1)
        assert low > 0.02 and d["verdict"] == verdict and "5 and 5 runs" in d["note"]
    page = volperf("compare", "results/qd1-x5", "results/qd16-x5", "--accept-differences", cwd=root)
    assert page.returncode == 0, page.stderr
    text = (root / "doc/source/test_results/compare-qd1-x5-vs-qd16-x5/index.rst").read_text()
    assert "95 % interval" in text and "Welch's t" in " ".join(text.split())


def test_report_builds_and_prints_the_page(two_campaigns):
    root = two_campaigns
    result = volperf("report", "results/qd16", "--build", "doc/build/html", cwd=root)
    assert result.returncode == 0, result.stderr
    assert "report: doc/build/html/test_results/qd16/index.html" in result.stderr
    assert (root / "doc/build/html/test_results/qd16/index.html").exists()
    # the host's load beside the figures: its table, its plot over time, nodes.csv
    source = root / "doc/source/test_results/qd16"
    page = (source / "index.rst").read_text()
    assert "Load on the nodes (mean / peak)" in page and "     - host\n" in page
    assert (source / "nodes.png").exists() and (source / "nodes.csv").exists()
    # with -W: the comparison pages the tests above wrote are valid too
    assert (root / "doc/build/html/test_results/compare-qd1-vs-qd16/index.html").exists()


def test_report_needs_a_sphinx_source(two_campaigns, tmp_path):
    result = volperf(
        "report",
        str(two_campaigns / "results" / "qd1"),
        "--doc-source",
        str(tmp_path),
        cwd=tmp_path,
    )
    assert result.returncode == 1 and "no conf.py" in result.stderr


def test_reference_campaigns_cannot_be_reparsed(tmp_path):
    result = volperf("reparse", str(REFERENCE), cwd=tmp_path)
    assert result.returncode == 1 and "reference campaign" in result.stderr
