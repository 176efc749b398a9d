"""Every option of `volperf run` applies to the spec that runs (as `--dry-run` prints it,
which is what campaign.yaml keeps) or is refused naming the option and why."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click
import pytest
import yaml
from click.testing import CliRunner

from harness.cli.main import main
from harness.cli.run_options import TARGET_OPTIONS

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"


def dry_run(*args: str) -> dict[str, Any]:
    result = CliRunner().invoke(main, ["run", *args, "--dry-run"])
    assert result.exit_code == 0, result.output
    return yaml.safe_load(result.output)


def refused(*args: str) -> str:
    result = CliRunner().invoke(main, ["run", *args, "--dry-run"])
    assert result.exit_code == 2, result.output
    return result.output


def spec_file(tmp_path: Path, target: dict[str, Any], name: str = "mine") -> Path:
    path = tmp_path / f"{name}.yaml"
    workloads = [{"name": "w", "rw": "randread", "size": "8M", "runtime": 5}]
    path.write_text(
        yaml.safe_dump({"name": name, "target": target, "workloads": workloads, "sweep": [1]})
    )
    return path


def openstack(tmp_path: Path) -> Path:
    heat = {"image": "debian", "flavor": "m1.small", "network": "private", "key_name": ""}
    return spec_file(tmp_path, {"type": "openstack", "cloud": "mycloud", "heat": heat})


def test_cloud_clouds_yaml_and_name_override_the_spec_s(tmp_path):
    spec = openstack(tmp_path)
    for args in (("heat", str(spec)), (str(spec),)):
        saved = dry_run(*args, "--cloud", "other", "--clouds-yaml", "c.yaml", "--name", "other-run")
        assert saved["name"] == "other-run"
        assert saved["target"]["cloud"] == "other"
        assert saved["target"]["clouds_yaml"] == str(Path("c.yaml").resolve())
        assert saved["target"]["heat"]["key_name"] == ""  # a key pair's name, no secret


def test_without_options_the_spec_runs_as_written(tmp_path):
    saved = dry_run(str(openstack(tmp_path)))
    assert (saved["name"], saved["target"]["cloud"]) == ("mine", "mycloud")


def test_storage_class_and_kubeconfig_override_a_k8s_spec_s(tmp_path):
    spec = spec_file(tmp_path, {"type": "k8s", "storage_class": "standard"})
    saved = dry_run(str(spec), "--storage-class", "fast", "--kubeconfig", "kc")
    assert saved["target"]["storage_class"] == "fast"
    assert saved["target"]["kubeconfig"] == str(Path("kc").resolve())


def test_local_options_override_a_local_spec_s(tmp_path):
    spec = spec_file(tmp_path, {"type": "local", "dir": str(tmp_path)})
    saved = dry_run(
        str(spec), "--dir", str(tmp_path / "other"), "--allow-device", "--allow-existing"
    )
    assert saved["target"] == {
        "type": "local",
        "dir": str(tmp_path / "other"),
        "allow_device": True,
        "allow_existing": True,
    }


def test_ceph_options_override_an_rbd_spec_s(tmp_path):
    spec = spec_file(tmp_path, {"type": "rbd", "ceph_conf": "/etc/ceph/ceph.conf"})
    conf = tmp_path / "ceph.conf"
    saved = dry_run(str(spec), "--ceph-conf", str(conf), "--ceph-user", "bench", "--pool", "p2")
    assert {k: saved["target"][k] for k in ("ceph_conf", "user", "pool")} == {
        "ceph_conf": str(conf),
        "user": "bench",
        "pool": "p2",
    }
    saved = dry_run(str(openstack(tmp_path)), "--ceph-conf", str(conf), "--ceph-user", "c")
    assert (saved["target"]["ceph_conf"], saved["target"]["ceph_user"]) == (str(conf), "c")


def test_workload_options_override_a_spec_s_workloads_and_sweep(tmp_path):
    spec = spec_file(tmp_path, {"type": "local", "dir": str(tmp_path)})
    saved = dry_run(
        str(spec),
        "--runtime",
        "7",
        "--size",
        "16M",
        "--sweep",
        "1,2",
        "--set",
        "iodepth=8",
        "--prefill",
    )
    (workload,) = saved["workloads"]
    assert (workload["runtime"], workload["size"], workload["iodepth"]) == (7, "16M", 8)
    assert workload["prefill"] is True
    assert saved["sweep"] == [1, 2]
    assert dry_run(str(spec), "--no-prefill")["workloads"][0]["prefill"] is False


# each target option, given for a target that has no such field: (target, option, value)
NOT_THEIRS = [
    ({"type": "local", "dir": "/tmp"}, "--storage-class", "fast"),
    ({"type": "local", "dir": "/tmp"}, "--kubeconfig", "kc"),
    ({"type": "local", "dir": "/tmp"}, "--cloud", "other"),
    ({"type": "local", "dir": "/tmp"}, "--clouds-yaml", "c.yaml"),
    ({"type": "local", "dir": "/tmp"}, "--ceph-conf", "ceph.conf"),
    ({"type": "local", "dir": "/tmp"}, "--ceph-user", "u"),
    ({"type": "local", "dir": "/tmp"}, "--pool", "p"),
    ({"type": "rbd"}, "--dir", "/tmp"),
    ({"type": "rbd"}, "--allow-device", None),
    ({"type": "k8s", "storage_class": "s"}, "--allow-existing", None),
]


@pytest.mark.parametrize(("target", "option", "value"), NOT_THEIRS)
def test_an_option_the_spec_s_target_has_not_is_refused_naming_it(tmp_path, target, option, value):
    spec = spec_file(tmp_path, target)
    said = refused(str(spec), option, *([value] if value else []))
    assert f"Invalid value for '{option}'" in said
    assert f"the campaign's target is {target['type']}, which has none" in said


def test_storage_class_on_a_plane_without_storage_classes_says_so(tmp_path):
    said = refused(str(openstack(tmp_path)), "--storage-class", "fast")
    assert "'--storage-class': it sets the StorageClass of the PVCs of the k8s target" in said
    assert "target is openstack, which has none" in said


def test_every_target_option_is_refused_somewhere_and_applies_somewhere():
    """The table of target options covers every target option of `volperf run`."""
    run = main.commands["run"]
    flags = {o.opts[0] for o in run.params if isinstance(o, click.Option)}
    handled = {o.flag for o in TARGET_OPTIONS.values()}
    workload = {"--runtime", "--size", "--sweep", "--set", "--prefill"}
    rest = {"--profile", "--name", "--results", "--json", "--dry-run"}
    assert flags - handled - workload - rest == set()


def test_profile_with_a_spec_is_refused(tmp_path):
    said = refused(str(openstack(tmp_path)), "--profile", "quick")
    assert "Invalid value for '--profile'" in said and "built-in profile" in said


def test_a_second_spec_is_only_for_rally_and_heat(tmp_path):
    spec = openstack(tmp_path)
    said = refused(str(spec), str(spec))
    assert "only for `run rally SPEC.yaml`" in said


def test_profile_runs_refuse_what_their_plane_has_not(tmp_path):
    said = refused("local", "--dir", str(tmp_path), "--storage-class", "fast")
    assert "'--storage-class'" in said and "target is local" in said
    said = refused("k8s", "--storage-class", "fast", "--pool", "p")
    assert "'--pool'" in said and "target is k8s" in said
    said = refused("rbd", "--cloud", "c")
    assert "'--cloud'" in said and "target is rbd" in said


def test_profile_runs_apply_their_options(tmp_path):
    saved = dry_run("local", "--dir", str(tmp_path), "--name", "n1", "--runtime", "3")
    assert saved["name"] == "n1" and saved["target"]["dir"] == str(tmp_path)
    assert {w["runtime"] for w in saved["workloads"] if "runtime" in w} == {3}
    saved = dry_run("rbd", "--ceph-user", "client.bench", "--pool", "p1", "--ceph-conf", "c")
    assert (saved["target"]["user"], saved["target"]["pool"]) == ("bench", "p1")
    assert saved["target"]["ceph_conf"] == str(Path("c").resolve())
    saved = dry_run("k8s", "--storage-class", "fast", "--kubeconfig", "kc", "--profile", "quick")
    assert (saved["target"]["storage_class"], saved["target"]["kubeconfig"]) == (
        "fast",
        str(Path("kc").resolve()),
    )
    assert saved["name"].startswith("quick-")


def test_a_value_the_spec_does_not_take_is_refused_by_its_field(tmp_path):
    result = CliRunner().invoke(
        main, ["run", str(openstack(tmp_path)), "--name", "bad name", "--dry-run"]
    )
    assert result.exit_code == 2
    assert "with the command line's options" in result.output
    assert "name: use letters, digits" in result.output


def test_the_example_heat_spec_takes_the_cloud_given():
    saved = dry_run("heat", str(EXAMPLES / "openstack-heat-fio.yaml"), "--cloud", "x")
    assert saved["target"]["cloud"] == "x"
