"""`volperf spec schema` and `volperf spec check`, on every spec of examples/."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
import yaml

from tests.harness.helpers import volperf

REPO = Path(__file__).parents[3]
EXAMPLES = sorted((REPO / "examples").glob("*.yaml"))
TARGET_TYPES = {"local", "rbd", "openstack", "k8s", "hosts"}


@pytest.fixture(scope="module")
def schema(tmp_path_factory) -> dict:
    printed = volperf("spec", "schema", cwd=tmp_path_factory.mktemp("schema"))
    assert printed.returncode == 0, printed.stderr
    document = json.loads(printed.stdout)
    jsonschema.Draft202012Validator.check_schema(document)
    return document


def test_there_are_examples_for_every_target_type():
    kinds = {yaml.safe_load(p.read_text())["target"]["type"] for p in EXAMPLES}
    assert kinds == TARGET_TYPES


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.stem)
def test_every_example_is_valid_by_the_schema_and_by_volperf(example, schema):
    jsonschema.validate(yaml.safe_load(example.read_text()), schema)
    checked = volperf("spec", "check", str(example), cwd=REPO)
    assert checked.returncode == 0, checked.stderr
    assert checked.stdout.startswith(f"{example}: valid: campaign '{example.stem}'")
    if example.stem == "openstack-heat-fio":  # its 5 steps, a readers' and a writers' stack
        assert "10 Heat stacks of " in checked.stdout and "main.yaml checked" in checked.stdout


def test_the_schema_documents_fields_defaults_and_constraints(schema):
    fio = schema["$defs"]["FioWorkload"]["properties"]
    assert fio["iodepth"]["default"] == 1 and fio["iodepth"]["minimum"] == 1
    assert "seconds" in fio["runtime"]["description"]
    assert set(schema["required"]) == {"name", "target", "workloads", "sweep"}
    assert schema["additionalProperties"] is False


def test_a_bad_spec_is_named_with_its_field_and_the_good_ones_still_checked(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text(
        yaml.safe_dump(
            {
                "name": "bad",
                "target": {"type": "local"},
                "workloads": [{"name": "w", "rw": ["randread"], "iodepth": 0}],
                "sweep": [1],
            }
        )
    )
    unknown_task = tmp_path / "task.yaml"
    unknown_task.write_text(
        yaml.safe_dump(
            {
                "name": "task",
                "target": {"type": "openstack"},
                "workloads": [{"name": "r", "tool": "rally", "task": "no-such-task"}],
                "sweep": [2],
            }
        )
    )
    good = EXAMPLES[0]
    checked = volperf("spec", "check", str(bad), str(good), str(unknown_task), cwd=tmp_path)
    assert checked.returncode == 1
    assert "workloads[0].iodepth: Input should be greater than or equal to 1 (got 0)" in (
        checked.stderr
    )
    assert "Rally task 'no-such-task': no such file" in checked.stderr
    assert checked.stdout.startswith(f"{good}: valid")


def test_a_search_too_short_for_its_achieved_share_is_warned_with_the_runtime_it_needs(tmp_path):
    """20 IOPS for 10 s is 200 I/Os a consumer: Poisson arrivals alone leave one of 24
    consumers below 95 % of its rate in nearly every step (records/capacity.py)."""
    document = yaml.safe_load((REPO / "examples" / "local-capacity.yaml").read_text())
    document["workloads"][0].update(rate_iops=20, runtime=10)
    document["sweep"].update(start=3, max=24)
    short = tmp_path / "short.yaml"
    short.write_text(yaml.safe_dump(document))
    example = REPO / "examples" / "local-capacity.yaml"
    checked = volperf("spec", "check", str(short), str(example), cwd=tmp_path)
    assert checked.returncode == 0, checked.stderr
    first, warning, other = checked.stdout.strip().splitlines()
    assert first.startswith(f"{short}: valid: campaign 'local-capacity'")
    assert warning.startswith("  warning: tenants: 20 IOPS for 10 s is 200 I/Os a consumer")
    assert "one of 24 consumers achieves less than 95 % of its rate in 99.8 % of steps" in warning
    assert "a runtime of " in warning and "warning" not in other
