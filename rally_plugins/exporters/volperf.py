"""Exporter ``volperf``: `rally task export --uuid UUID --type volperf --to results/NAME`
writes the task into a new volperf campaign (Rally's JSON report under each step's raw/,
and Rally's HTML report of it with the phases of a workload given faults; rally.csv and
summary.json built from them), ready for `volperf report`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from rally import exceptions
from rally.env import env_mgr
from rally.plugins.task.exporters.json_exporter import JSONExporter
from rally.task import exporter

from harness.campaign.rally_export import write_campaign
from harness.core import secrets
from harness.core.store import CampaignError


@exporter.configure("volperf")
class VolperfExporter(exporter.TaskExporter):
    """Writes tasks into a volperf campaign: raw JSON, Rally's HTML report and rally.csv."""

    def generate(self) -> dict[str, Any]:
        if not self.output_destination:
            raise exceptions.RallyException("the volperf exporter needs --to results/NAME")
        document = json.loads(JSONExporter(self.tasks_results, None).generate()["print"])
        destination = Path(self.output_destination).expanduser()
        self._register_secrets()
        try:
            store = write_campaign(destination, document)
        except CampaignError as exc:
            raise exceptions.RallyException(str(exc)) from exc
        return {
            "print": f"volperf campaign written to {store.root} (rally.csv, summary.json); "
            f"render it with `volperf report {store.root}`"
        }

    def _register_secrets(self) -> None:
        """The tasks' environments' credentials (and the process's OS_PASSWORD and the
        like) are redacted by value wherever they would appear in the campaign."""
        secrets.register_environment()
        for env_uuid in {task.get("env_uuid") for task in self.tasks_results} - {None}:
            try:
                secrets.register_named(env_mgr.EnvManager.get(env_uuid).data)
            except exceptions.RallyException:
                continue  # an environment deleted since: its credentials are not here
