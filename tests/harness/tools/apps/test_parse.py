"""The application workloads' output parsed, on real runs (fixtures/apps/capture.sh,
capture-redis.sh, capture-broker.sh)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from harness.tools.apps.parse import PHASES, AppOutputError, parse

APPS = Path(__file__).parents[1] / "fixtures" / "apps"


def _read(name: str) -> str:
    return (APPS / name).read_text()


def _printed(name: str, phase: str = r"\w+") -> list[float]:
    """The seconds the fixture's lines print, read with a regular expression."""
    return [float(s) for s in re.findall(rf"phase={phase} .*seconds=([\d.]+)", _read(name))]


def test_a_git_run_has_every_phase_of_every_iteration_as_printed():
    run = parse(_read("git-run.out"))
    assert [(p.iteration, p.phase) for p in run.phases] == [
        (i, n) for i in (1, 2) for n in PHASES["git"]
    ]
    assert [p.seconds for p in run.phases] == _printed("git-run.out")
    assert all(p.ok for p in run.phases)
    assert run.finished and run.failed_iterations() == 0 and run.errors == ()


def test_a_build_run_and_what_each_source_is():
    run = parse(_read("build-run.out"))
    assert [(p.iteration, p.phase) for p in run.phases] == [
        (i, n) for i in (1, 2) for n in PHASES["build"]
    ]
    assert [p.seconds for p in run.phases if p.phase == "build"] == _printed(
        "build-run.out", "build"
    )
    assert parse(_read("git-generate.out")).source == {
        "files": 300,
        "size": 4096,
        "commits": 3,
        "pack_kib": 478,
    }
    assert parse(_read("build-generate.out")).source == {
        "files": 200,
        "size": 4096,
        "tar_kib": 1040,
    }


def test_a_full_file_system_fails_a_phase_each_iteration_quoting_the_tool():
    run = parse(_read("git-no-space.out"))
    assert [(p.iteration, p.phase, p.ok) for p in run.phases] == [
        (1, "clone", True),
        (1, "tar", False),
        (2, "clone", True),
        (2, "tar", False),
    ]
    assert run.failed_iterations() == 2 and run.finished
    assert "Wrote only 8192 of 10240 bytes" in run.errors[0]
    assert run.errors[0].startswith("iteration=1 phase=tar: tar: <work>/small/git/clone.tar")
    assert run.errors[0].endswith("its file system is out of space (0 KiB free)")
    build = parse(_read("build-no-space.out"))
    assert [(p.phase, p.ok) for p in build.phases] == [("unpack", True), ("build", False)] * 2
    assert build.failed_iterations() == 2  # the seed study's failed builds
    assert "make: *** [Makefile:85: obj/" in build.errors[0]


def test_a_killed_run_has_no_done_line_and_its_last_iteration_failed():
    run = parse(_read("git-killed.out"))
    assert not run.finished and run.failed_iterations() == 1
    assert run.phases[-1].iteration == 2 and run.phases[-1].ok  # stopped inside it
    assert parse("").failed_iterations() == 1  # stopped before its first phase


def test_other_lines_are_skipped_and_a_broken_line_is_named():
    assert parse("warning: something\n").phases == ()
    with pytest.raises(AppOutputError, match=r"line 2 is not an application workload's: 'volp"):
        parse("x\nvolperf-app iteration=1 phase=clone seconds=abc status=ok\n")
    with pytest.raises(AppOutputError, match="line 1"):
        parse("volperf-app iteration=1 phase=push seconds=1 status=ok\n")


def _totals(name: str) -> list[dict[str, str]]:
    """go-ycsb's JSON of each measured phase of a fixture, in order, read by hand."""
    lines = [x for x in _read(name).splitlines() if x.startswith("volperf-app measurements ")]
    return [json.loads(line[line.index("[") :]) for line in lines]


def test_a_redis_run_has_go_ycsbs_figures_of_each_phase():
    run = parse(_read("redis-run.out"))
    assert [(p.iteration, p.phase, p.ok) for p in run.phases] == [
        (i, n, True) for i in (1, 2) for n in PHASES["redis"]
    ]
    assert [p.seconds for p in run.phases] == _printed("redis-run.out")
    assert run.finished and run.failed_iterations() == 0 and run.errors == ()
    printed = [
        (m["Operation"], m["Count"], m["OPS"], m["95th(us)"])
        for t in _totals("redis-run.out")
        for m in t
    ]
    assert [
        (m.operation, str(m.count), f"{m.ops_per_s:.1f}", str(m.p95_us)) for m in run.measured
    ] == printed
    run_1 = {m.operation: m for m in run.measured if (m.iteration, m.phase) == (1, "run")}
    assert set(run_1) == {"READ", "UPDATE", "TOTAL"}  # workload a: half reads, half updates
    assert run_1["TOTAL"].count == run_1["READ"].count + run_1["UPDATE"].count == 4000
    assert parse(_read("redis-generate.out")).source == {
        "records": 2000,
        "operations": 4000,
        "field_length": 100,
    }


def test_redis_on_a_full_file_system_fails_with_the_operations_it_lost():
    run = parse(_read("redis-no-space.out"))
    assert [(p.phase, p.ok) for p in run.phases] == [("load", False), ("run", False)]
    assert run.failed_iterations() == 1
    lost = next(m for m in run.measured if m.operation == "INSERT_ERROR")
    kept = next(m for m in run.measured if m.operation == "TOTAL")
    assert lost.count + kept.count == 2000  # every record tried: those the AOF took, and not
    assert run.errors[0] == f"iteration=1 phase=load: operations failed (INSERT_ERROR {lost.count})"
    assert "MISCONF Errors writing to the AOF file: No space left on device" in run.errors[1]


def test_a_broken_measurements_line_is_named():
    with pytest.raises(AppOutputError, match="line 1"):
        parse('volperf-app measurements iteration=1 phase=run [{"Operation":"TOTAL"}]\n')
    with pytest.raises(AppOutputError, match="line 1"):
        parse("volperf-app measurements iteration=1 phase=run [not json\n")


def _bench_lines(name: str) -> list[dict[str, str]]:
    """nats bench's figures as the fixture prints them, read with regular expressions."""
    return [
        {
            "iteration": i,
            "phase": p,
            "messages": n,
            "rate": rate.replace(",", ""),
            "avg": (re.search(r"avg:? ([\d,.]+)us", rest) or [None, ""])[1].replace(",", ""),
            "p99": (re.search(r"P99:? ([\d,.]+)us", rest) or [None, ""])[1].replace(",", ""),
        }
        for i, p, n, rate, rest in re.findall(
            r"bench iteration=(\d) phase=(\w+) messages=(\d+) .*?stats: ([\d,]+) msgs/sec(.*)",
            _read(name),
        )
    ]


@pytest.mark.parametrize("name", ["broker-run.out", "broker-one.out"])
def test_a_broker_run_has_nats_benchs_figures_of_each_phase(name: str):
    run = parse(_read(name))
    iterations = 2 if name == "broker-run.out" else 1
    assert [(p.iteration, p.phase, p.ok) for p in run.phases] == [
        (i, n, True) for i in range(1, iterations + 1) for n in PHASES["broker"]
    ]
    assert [p.seconds for p in run.phases] == _printed(name)
    assert run.finished and run.failed_iterations() == 0 and run.errors == ()
    printed = _bench_lines(name)
    assert len(printed) == 2 * iterations
    for m, line in zip(run.measured, printed, strict=True):
        assert (str(m.iteration), m.phase, str(m.count)) == (
            line["iteration"],
            line["phase"],
            line["messages"],
        )
        assert (m.operation, m.ops_per_s) == ("TOTAL", float(line["rate"]))
        assert m.avg_us == (float(line["avg"]) if line["avg"] else None)
        assert m.p99_us == (float(line["p99"]) if line["p99"] else None)
        assert m.p95_us is None  # nats bench gives P90 and P99
    publish = [m for m in run.measured if m.phase == "publish"]
    assert all(m.avg_us and m.p99_us and m.max_us for m in publish)  # publishing's latencies
    assert all(m.avg_us is None for m in run.measured if m.phase == "consume")
    assert parse(_read("broker-generate.out")).source == {"messages": 10000, "size": 1024}


def test_a_broker_whose_stream_does_not_fit_fails_saying_so():
    run = parse(_read("broker-no-space.out"))
    assert [(p.phase, p.ok) for p in run.phases] == [("publish", False)]
    assert run.failed_iterations() == 1 and run.measured == ()
    assert run.errors[0].startswith("iteration=1 phase=publish: ")
    assert "insufficient storage resources available" in run.errors[0]


def test_a_broken_bench_line_is_named():
    with pytest.raises(AppOutputError, match="line 2"):
        parse("\nvolperf-app bench iteration=1 phase=publish messages=10 no figures here\n")
    with pytest.raises(AppOutputError, match="line 1"):
        parse("volperf-app bench iteration=1 phase=publish stats: 5 msgs/sec\n")
