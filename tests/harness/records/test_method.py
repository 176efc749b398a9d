from __future__ import annotations

import copy
from pathlib import Path

import yaml

from harness.campaign import profiles
from harness.records.db import engine_of
from harness.records.method import CampaignMethod, differences, shown, step_method

REFERENCE = Path(__file__).parents[3] / "results/reference/performance-docs-cinder-ceph"
QUICK_ENVIRONMENT = {"tools": {"volperf": "0.1.0", "python": "3.11.7", "fio": "fio-3.33"}}


def reference() -> CampaignMethod:
    document = yaml.safe_load((REFERENCE / "campaign.yaml").read_text())
    return CampaignMethod.of(document["spec"], document["backend"], document["environment"])


def quick(name: str = "quick", **overrides) -> CampaignMethod:
    spec = profiles.local_spec("quick", Path("/srv/data"), name, **overrides).to_dict()
    return CampaignMethod.of(spec, "local:ext4:vda", QUICK_ENVIRONMENT)


def fio_step(workload: str, readers: int = 1, writers: int = 1, **extra) -> dict:
    return {"workload": workload, "readers": readers, "writers": writers, **extra}


def by_setting(found) -> dict[str, tuple[str, str, bool]]:
    return {d.setting: (d.baseline, d.other, d.changes_meaning) for d in found}


def test_the_reference_study_against_the_quick_profile():
    found = by_setting(
        differences(
            step_method(fio_step("randrw-4k-qd64"), reference()),
            step_method(fio_step("randrw-4k", fio_version="fio-3.33"), quick()),
        )
    )
    assert found["iodepth"] == ("64", "16", True)
    assert found["runtime"] == ("600 s", "3 s", True)
    assert found["target type"] == ("openstack", "local", True)
    assert found["size"] == ("40G", "64M", False)
    assert found["backend"][1] == "local:ext4:vda" and not found["backend"][2]
    assert found["fio version"] == ("2.2.10", "3.33", False)
    # what the study does not state is said so, and does not change the meaning
    assert found["direct"] == ("not stated", "yes", False)
    assert found["ioengine"] == ("not stated", "libaio", False)
    # the same in both: not listed; tools only one side names: not listed
    assert not {"rw", "bs", "prefill", "mode", "consumers' split"} & found.keys()
    assert not {"python version", "volperf version", "ceph version"} & found.keys()


def test_two_campaigns_of_the_same_spec_differ_in_nothing():
    step = fio_step("randrw-4k", fio_version="fio-3.33")
    assert differences(step_method(step, quick("a")), step_method(step, quick("b"))) == []


def test_runtime_changes_the_meaning_beyond_twice():
    step = fio_step("randrw-4k")
    base = step_method(step, quick())
    assert not by_setting(differences(base, step_method(step, quick(runtime=6))))["runtime"][2]
    assert by_setting(differences(base, step_method(step, quick(runtime=7))))["runtime"][2]


def test_size_mode_has_no_runtime_and_the_mode_changes_the_meaning():
    spec = profiles.local_spec("quick", Path("/d"), "s").to_dict()
    spec["workloads"][0] |= {"mode": "size"}
    sized = step_method(fio_step("randrw-4k"), CampaignMethod.of(spec, "local", {}))
    assert "runtime" not in sized
    found = by_setting(differences(step_method(fio_step("randrw-4k"), quick()), sized))
    assert found["mode"] == ("time", "size", True)
    assert found["runtime"] == ("3 s", "not stated", True)


def test_the_consumers_split_and_database_server_options():
    spec = profiles.local_spec("multi-tenant-oltp", Path("/d"), "m").to_dict()
    name = spec["workloads"][0]["name"]
    base = CampaignMethod.of(copy.deepcopy(spec), "local", {})
    spec["databases"]["mariadb"]["options"]["innodb_buffer_pool_size"] = "8G"
    spec["databases"]["postgresql"]["options"]["shared_buffers"] = "8GB"
    bigger = CampaignMethod.of(spec, "local", {})
    found = by_setting(
        differences(step_method({"workload": name}, base), step_method({"workload": name}, bigger))
    )
    assert list(found) == ["server options"] and found["server options"][2]
    split = by_setting(
        differences(
            step_method(fio_step("randrw-4k"), quick()),
            step_method(fio_step("randrw-4k", 2, 0), quick()),
        )
    )
    assert split["consumers' split"] == ("1 reading, 1 writing", "2 reading, 0 writing", False)


def test_shown():
    assert shown(["randread", "randwrite"]) == "randread+randwrite"
    assert shown(True) == "yes" and shown(None) == "none" and shown({}) == "none"
    assert shown({"innodb_buffer_pool_size": "128M"}) == "innodb_buffer_pool_size=128M"
    assert shown(600, "s") == "600 s" and shown(1.5, "s") == "1.5 s"


def test_the_heat_volume_size_is_part_of_the_method():
    spec = profiles.local_spec("quick", Path("/d"), "h").to_dict()
    spec["target"] = {"type": "openstack", "heat": {"volume_size": 40}}
    heat = CampaignMethod.of(spec, "cinder", {})
    found = by_setting(
        differences(
            step_method(fio_step("randrw-4k"), quick()), step_method(fio_step("randrw-4k"), heat)
        )
    )
    assert found["volume size"] == ("not stated", "40 GiB", False)
    assert found["target type"] == ("local", "openstack", True)


def test_engine_of_a_stored_workload():
    assert engine_of({"tool": "sysbench-oltp", "engine": "mariadb"}) == "mariadb"
    assert engine_of({"tool": "pgbench"}) == "postgresql"
    assert engine_of({"tool": "sysbench-fileio"}) == "" == engine_of({"name": "fio"})


def test_faults_given_in_one_campaign_and_not_the_other_change_the_meaning():
    spec = profiles.local_spec("quick", Path("/d"), "f").to_dict()
    spec["workloads"][0] |= {"faults": [{"action": "stop-osd", "osd": 1, "at": 1}]}
    faulted = step_method(fio_step("randrw-4k"), CampaignMethod.of(spec, "local", {}))
    found = by_setting(differences(step_method(fio_step("randrw-4k"), quick()), faulted))
    assert found["faults"][2] is True
    assert differences(faulted, faulted) == []


def test_the_backends_own_settings_are_a_difference_that_keeps_the_meaning():
    spec = profiles.local_spec("quick", Path("/srv/data"), "quick").to_dict()

    def with_settings(settings: dict[str, str] | None) -> CampaignMethod:
        environment = {**QUICK_ENVIRONMENT}
        if settings is not None:
            environment["backend_settings"] = settings
        return CampaignMethod.of(spec, "rbd:volumes:16.2.15", environment)

    client = with_settings(
        {"osd_op_queue": "mclock_scheduler", "osd_mclock_profile": "high_client_ops"}
    )
    recovery = with_settings(
        {"osd_op_queue": "mclock_scheduler", "osd_mclock_profile": "high_recovery_ops"}
    )
    step = fio_step("randrw-4k", fio_version="fio-3.33")
    found = by_setting(differences(step_method(step, client), step_method(step, recovery)))
    assert found == {"osd_mclock_profile": ("high_client_ops", "high_recovery_ops", False)}
    # a campaign kept before volperf asked the OSDs: not stated, not a change of meaning
    found = by_setting(
        differences(step_method(step, client), step_method(step, with_settings(None)))
    )
    assert found == {
        "osd_op_queue": ("mclock_scheduler", "not stated", False),
        "osd_mclock_profile": ("high_client_ops", "not stated", False),
    }


def test_an_rbd_steps_method_has_the_engine_the_rbd_target_runs():
    target = {"type": "rbd", "ceph_conf": "/etc/ceph/ceph.conf"}
    spec = profiles.profile_spec("quick", target, "r").to_dict()
    assert spec["workloads"][0]["ioengine"] == "libaio"  # the model's default: not run there
    rbd = step_method(fio_step("randrw-4k"), CampaignMethod.of(spec, "rbd:volumes", {}))
    assert rbd["ioengine"] == "rbd"
    assert step_method(fio_step("randrw-4k"), quick())["ioengine"] == "libaio"
    found = by_setting(differences(step_method(fio_step("randrw-4k"), quick()), rbd))
    assert found["ioengine"] == ("libaio", "rbd", False)
