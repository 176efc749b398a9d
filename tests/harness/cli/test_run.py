"""`volperf run` as a user runs it: the options given are what the campaign ran with (its
saved spec), and a cloud given that clouds.yaml has not is named in the error."""

from __future__ import annotations

import pytest
import yaml
from click.testing import CliRunner

from harness.cli.main import main

pytestmark = pytest.mark.functional


def test_name_dir_and_runtime_given_are_the_saved_spec_s(tmp_path):
    (tmp_path / "spec-dir").mkdir()
    (tmp_path / "given-dir").mkdir()
    spec = tmp_path / "spec.yaml"
    workload = {"name": "r", "rw": "randread", "bs": "4k", "size": "4M", "runtime": 30}
    spec.write_text(
        yaml.safe_dump(
            {
                "name": "from-spec",
                "target": {"type": "local", "dir": str(tmp_path / "spec-dir")},
                "workloads": [workload],
                "sweep": [1],
            }
        )
    )
    args = ["run", str(spec), "--results", str(tmp_path / "results"), "--name", "other"]
    args += ["--dir", str(tmp_path / "given-dir"), "--runtime", "1"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in (tmp_path / "results").iterdir()) == ["other"]
    saved = yaml.safe_load((tmp_path / "results" / "other" / "campaign.yaml").read_text())
    assert saved["spec"]["name"] == "other"
    assert saved["spec"]["target"]["dir"] == str(tmp_path / "given-dir")
    assert saved["spec"]["workloads"][0]["runtime"] == 1


def test_a_cloud_not_in_clouds_yaml_is_named_not_the_spec_s(tmp_path):
    pytest.importorskip("openstack")
    clouds = tmp_path / "clouds.yaml"
    auth = {"auth_url": "http://127.0.0.1:9/v3", "username": "u", "password": "pw-123456"}
    clouds.write_text(yaml.safe_dump({"clouds": {"mycloud": {"auth": auth}}}))
    spec = tmp_path / "spec.yaml"
    heat = {"image": "debian", "flavor": "m1.small", "network": "private"}
    spec.write_text(
        yaml.safe_dump(
            {
                "name": "heat",
                "target": {"type": "openstack", "cloud": "mycloud", "heat": heat},
                "workloads": [{"name": "w", "rw": "randread", "size": "1G", "runtime": 5}],
                "sweep": [1],
            }
        )
    )
    for what in (["heat", str(spec)], [str(spec)]):
        args = ["run", *what, "--cloud", "nosuchcloud", "--clouds-yaml", str(clouds)]
        result = CliRunner().invoke(main, [*args, "--results", str(tmp_path / "results")])
        assert result.exit_code == 2, result.output
        assert "cloud 'nosuchcloud' not found" in result.output
        assert "mycloud" not in result.output.split("not found")[0]


def test_dry_run_runs_nothing(tmp_path):
    result = CliRunner().invoke(
        main,
        ["run", "local", "--dir", str(tmp_path), "--results", str(tmp_path / "r"), "--dry-run"],
    )
    assert result.exit_code == 0, result.output
    assert yaml.safe_load(result.output)["target"]["dir"] == str(tmp_path)
    assert not (tmp_path / "r").exists() and list(tmp_path.iterdir()) == []
