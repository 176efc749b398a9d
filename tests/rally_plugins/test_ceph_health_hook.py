"""The volperf_ceph_health hook run the way Rally runs a hook (run_sync, then result()),
against the session's real Ceph testbed, and against a cluster that does not exist."""

from __future__ import annotations

import json

from rally_plugins.hooks.ceph_health import SAMPLE_PREFIX, SAMPLE_TITLE, CephHealthHook


def _hook(config: dict) -> dict:
    hook = CephHealthHook(task=None, config=config, triggered_by={"event_type": "time", "value": 1})
    hook.run_sync()
    return hook.result()


def test_a_sample_of_the_real_cluster_lands_in_the_hook_result(ceph_testbed):
    result = _hook({"ceph_conf": str(ceph_testbed.conf), "user": "cinder"})
    assert result["status"] == "success", result.get("error")
    [output] = result["output"]["complete"]
    assert output["title"] == SAMPLE_TITLE and output["chart_plugin"] == "TextArea"
    sample = json.loads(output["data"][-1].removeprefix(SAMPLE_PREFIX))
    assert sample["status"] == output["data"][0] == "HEALTH_OK"
    assert sample["osds"]["num_up_osds"] >= 1
    assert result["finished_at"] >= result["started_at"] > 0


def test_a_cluster_that_is_not_there_fails_the_hook_with_the_reason(tmp_path):
    result = _hook({"ceph_conf": str(tmp_path / "ceph.conf")})
    assert result["status"] == "failed"
    assert result["error"]["etype"] == "CephError"
    assert "no such Ceph configuration file" in result["error"]["details"]
