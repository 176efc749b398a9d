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
