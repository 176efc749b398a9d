"""The volperf SLAs on real iterations (the captured control-plane task), checked against
the percentiles recomputed independently from the same iterations."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
from rally import exceptions

from harness.planes.rally.records import load_export, rally_csv, records_of, workloads
from harness.records.aggregate import Warning
from rally_plugins.hooks.ceph_health import CephHealthHook
from rally_plugins.scenarios.fio_output import warnings_table
from rally_plugins.sla.action_percentile import ActionPercentile
from rally_plugins.sla.flagged_iterations import Warnings
from rally_plugins.sla.regression import Regression
from tests.harness.planes.rally.expected import expected_table

FIXTURE = (
    Path(__file__).parents[1]
    / "harness"
    / "planes"
    / "rally"
    / "fixtures"
    / "control-plane-c2.json"
)
SCENARIO = "CinderVolumes.create_and_attach_volume"


def _workload() -> dict:
    return next(w for _, w in workloads(load_export(FIXTURE)) if SCENARIO in w["scenario"])


def _fed(sla, iterations):
    for iteration in iterations:
        sla.add_iteration(iteration)
    return sla


def test_action_percentile_passes_at_the_bound_and_fails_below_it():
    workload = _workload()
    p95 = expected_table(workload)["nova.attach_volume"][3]

    def sla(bound: float) -> ActionPercentile:
        config = {"percentile": 95, "max_seconds": {"nova.attach_volume": bound}}
        return _fed(ActionPercentile(config), workload["data"])

    at, below = sla(p95 + 0.001), sla(p95 - 0.01)
    assert at.result()["success"] is True
    assert below.result()["success"] is False
    assert f"{p95:.3f}" in below.details() or f"{p95 - 0.0005:.3f}" in below.details()


def test_action_percentile_total_and_merge():
    workload = _workload()
    half = len(workload["data"]) // 2
    first = _fed(ActionPercentile({"max_seconds": {"total": 1.0}}), workload["data"][:half])
    second = _fed(ActionPercentile({"max_seconds": {"total": 1.0}}), workload["data"][half:])
    first.merge(second)
    assert first.result()["success"] is False  # iterations take 8 to 16 s here
    generous = _fed(ActionPercentile({"max_seconds": {"total": 60}}), workload["data"])
    assert generous.result()["success"] is True


def test_failed_iterations_do_not_count():
    workload = _workload()
    failed = [dict(i, error=["TimeoutException", "gone"]) for i in workload["data"]]
    sla = _fed(ActionPercentile({"max_seconds": {"nova.boot_server": 0.001}}), failed)
    assert sla.result()["success"] is True
    assert "no successful iteration" in sla.details()


def _baseline(tmp_path: Path, scale: float) -> Path:
    """A baseline campaign's rally.csv: this task's figures times ``scale``."""
    document = json.loads(FIXTURE.read_text())
    for _, workload in workloads(document):
        for element in [
            *workload["statistics"]["durations"]["atomics"],
            workload["statistics"]["durations"]["total"],
        ]:
            data = element["data"]
            for key in ("min", "median", "90%ile", "95%ile", "max", "avg"):
                data[key] = data[key] * scale
    (tmp_path / "rally.csv").write_text(rally_csv(records_of(document, "base")))
    return tmp_path


@pytest.mark.parametrize(
    "scale, allowed, passes",
    [
        (1.0, 0, True),  # the same figures: no regression
        (1.5, 0, True),  # the baseline was slower
        (0.5, 25, False),  # twice as slow as the baseline, 25 % allowed
        (0.5, 150, True),  # twice as slow, but 150 % allowed
    ],
)
def test_regression_against_a_baseline_campaign(tmp_path, scale, allowed, passes):
    baseline = _baseline(tmp_path, scale)
    sla = _fed(
        Regression(
            {
                "baseline": str(baseline),
                "scenario": SCENARIO,
                "concurrency": 2,
                "percentile": 95,
                "max_increase_percent": allowed,
            }
        ),
        _workload()["data"],
    )
    assert sla.result()["success"] is passes, sla.details()
    assert "nova.attach_volume 95%ile" in sla.details()


def test_regression_without_matching_baseline_rows_is_a_clear_error(tmp_path):
    baseline = _baseline(tmp_path, 1.0)
    with pytest.raises(exceptions.RallyException, match="no rows for .* at concurrency 40"):
        Regression({"baseline": str(baseline), "scenario": SCENARIO, "concurrency": 40})
    with pytest.raises(exceptions.RallyException, match="cannot read"):
        Regression({"baseline": str(tmp_path / "nowhere"), "scenario": SCENARIO, "concurrency": 2})


@pytest.mark.parametrize("plugin", [ActionPercentile, Regression, Warnings, CephHealthHook])
def test_config_schemas_are_valid_for_rallys_validator(plugin):
    """Rally checks configs against CONFIG_SCHEMA with its own (draft 4) validator."""
    jsonschema.Draft4Validator.check_schema(plugin.CONFIG_SCHEMA)


def _warned_iteration(codes: list[str]) -> dict:
    """An iteration whose output has the scenario's table of warnings with these codes."""
    table = warnings_table([Warning(code, f"{code}: why") for code in codes], [])
    return {"output": {"complete": [table] if table else []}, "error": []}


def test_the_warnings_sla_fails_on_any_warning_and_names_its_code():
    clean = _fed(Warnings({}), [_warned_iteration([]), _warned_iteration([])])
    assert clean.result()["success"] is True
    assert clean.details() == "No volperf warnings in 2 iterations - Passed"
    warned = _fed(Warnings({}), [_warned_iteration(["unwritten-volumes"]), _warned_iteration([])])
    assert warned.result()["success"] is False
    assert "unwritten-volumes in 1 of 2 iterations" in warned.details()


def test_the_warnings_sla_accepts_the_codes_it_is_told_to_ignore_and_merges():
    ignoring = {"ignore": ["emulated-cpu"]}
    first = _fed(Warnings(ignoring), [_warned_iteration(["emulated-cpu"])])
    assert first.result()["success"] is True and "ignoring emulated-cpu" in first.details()
    second = _fed(Warnings(ignoring), [_warned_iteration(["emulated-cpu", "low-overlap"])])
    assert first.merge(second) is False
    assert "volperf warnings: low-overlap in 1 of 2 iterations (" in first.details()


def test_the_warnings_slas_configuration_is_checked():
    validator = jsonschema.Draft4Validator(Warnings.CONFIG_SCHEMA)
    assert validator.is_valid({}) and validator.is_valid({"ignore": ["late-start"]})
    assert not validator.is_valid({"fail": True}) and not validator.is_valid({"ignore": "x"})


DATA_PLANE = FIXTURE.parent / "data-plane-task" / "rally.json"


def _data_plane_iterations(vm_count: int) -> list[dict]:
    for _, workload in workloads(load_export(DATA_PLANE)):
        if workload["scenario"]["VolPerf.cinder_fio"]["vm_count"] == vm_count:
            return workload["data"]
    raise AssertionError(f"no workload of {vm_count} VMs in {DATA_PLANE}")


def _vm_figures(iteration: dict) -> tuple[float, float]:
    """The slowest VM's IOPS in its own direction and the worse direction's merged p99,
    read here from the iteration's table of every VM and its latency chart alone."""
    (table,) = [c for c in iteration["output"]["complete"] if "consumer" in c["data"]["cols"]]
    columns = table["data"]["cols"]
    slowest = min(
        float(cells[columns.index(f"{'read' if 'read' in job else 'write'}_iops")])
        for cells in table["data"]["rows"]
        for job in [cells[columns.index("jobname")]]
    )
    (latency,) = [c for c in iteration["output"]["additive"] if "latency" in c["title"]]
    return slowest, max(value for name, value in latency["data"] if name.endswith("p99"))


def test_capacity_judges_each_iteration_on_its_slowest_vm_and_merged_p99_together():
    from rally_plugins.sla.capacity import Capacity

    iterations = _data_plane_iterations(4)
    slowest, p99 = _vm_figures(iterations[0])
    # a rate the slowest VM achieved 95 % of, and one it did not
    held, missed = slowest / 0.95 * 0.999, slowest / 0.95 * 1.001
    met = _fed(Capacity({"rate_iops": held, "p99_ms": p99 + 0.001}), iterations[:1])
    assert met.result()["success"] is True, met.details()
    assert met.details().startswith(f"4 VMs × {held:g} IOPS at p99 ≤ {p99 + 0.001:g} ms")
    assert "met in 1 of 1 iterations - Passed" in met.details()
    short = _fed(Capacity({"rate_iops": missed, "p99_ms": p99 + 0.001}), iterations[:1])
    assert short.result()["success"] is False
    assert "iteration 1: a consumer achieved 94.9 % of its asked rate < 95 %" in short.details()
    slow = _fed(Capacity({"rate_iops": held, "p99_ms": p99 - 0.001}), iterations[:1])
    assert slow.result()["success"] is False
    assert f"p99 {p99:.2f} ms > {p99 - 0.001:g} ms" in slow.details()
    # a lower share asked: the same rate is held
    eased = _fed(Capacity({"rate_iops": missed, "p99_ms": p99 + 1, "achieved_pct": 90}), [])
    assert _fed(eased, iterations[:1]).result()["success"] is True


def test_capacity_counts_a_failed_iteration_and_merges():
    from rally_plugins.sla.capacity import Capacity

    iterations = _data_plane_iterations(2)
    failed = {**iterations[0], "error": ["DataPlaneError", "1 of 2 VMs returned no fio result"]}
    config = {"rate_iops": 1.0, "p99_ms": 1000.0}
    first = _fed(Capacity(config), iterations[:1])
    second = _fed(Capacity(config), [failed])
    assert first.result()["success"] is True and second.result()["success"] is False
    assert first.merge(second) is False
    assert "met in 1 of 2 iterations" in first.details()
    assert "iteration 1: the iteration failed: DataPlaneError: 1 of 2 VMs" in first.details()
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"p99_ms": 5}, Capacity.CONFIG_SCHEMA)  # no rate asked
