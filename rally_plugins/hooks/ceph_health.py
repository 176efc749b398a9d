"""Hook ``volperf_ceph_health``: one Ceph health sample each time its trigger fires (give it
a periodic trigger: ``{periodic: {unit: time, step: 2}}``), taken the way volperf's health
capture takes them (librados, the monitors' ``status``), kept in the task's results."""

from __future__ import annotations

import json
import time
from pathlib import Path

from rally import consts
from rally.task import hook

from harness.planes.ceph.access import CephAccess, CephError, default_conf, mon_command
from harness.planes.ceph.health import sample_of
from harness.planes.rally.phases import HEALTH_PREFIX as SAMPLE_PREFIX
from harness.planes.rally.phases import HEALTH_TITLE as SAMPLE_TITLE


@hook.configure(name="volperf_ceph_health")
class CephHealthHook(hook.HookAction):
    """Samples Ceph health (status, checks, PG states) into the task's results."""

    CONFIG_SCHEMA = {
        "$schema": consts.JSON_SCHEMA,
        "type": "object",
        "properties": {
            "ceph_conf": {"type": "string", "description": "default: $CEPH_CONF"},
            "user": {"type": "string", "description": "cephx user (default admin)"},
        },
        "additionalProperties": False,
    }

    def run(self) -> None:
        conf = Path(self.config.get("ceph_conf") or default_conf())
        access = CephAccess(conf, self.config.get("user", "admin"), pool="")
        try:
            with access.cluster() as cluster:
                sample = sample_of(mon_command(cluster, "status"), time.time())
        except CephError as exc:
            self.set_error("CephError", "Ceph did not answer", str(exc))
            return
        checks = [f"{code}: {check['message']}" for code, check in sample["checks"].items()]
        self.add_output(
            complete={
                "title": SAMPLE_TITLE,
                "description": f"{sample['status']} at {sample['t']:.3f}",
                "chart_plugin": "TextArea",
                "data": [sample["status"], *checks, SAMPLE_PREFIX + json.dumps(sample)],
            }
        )
        if sample["status"] == "HEALTH_ERR":
            self.set_error("HEALTH_ERR", "Ceph reported HEALTH_ERR", "; ".join(checks))
