"""A Rally workload's faults (core/faults.py) as volperf fault hooks (volperf_ceph_fault
for an OSD's, volperf_service_fault for a Cinder service's): one hook per fault, fired
by Rally's time trigger ``at`` seconds into each of the task's workloads (the runner puts
them on every workload of the rendered task: runner.add_hooks); what they left changed
at the step's end put back (planes/faults.py's ledger, from the hooks' notes in
created.json), the images Cinder lost of the volumes the stops caught in hand removed
(planes/rally/lost_volumes.py), and what was asked, what the hooks gave (each action's
commands and times, from the task's report), what was undone and what images were left
written to raw/faults.json, for the step's warnings."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.core.faults import OsdFault, RallyFault, ServiceFault
from harness.core.store import CampaignStore, atomic_write_json
from harness.planes.ceph.faults import OsdSwitch
from harness.planes.faults import FaultLedger
from harness.planes.rally import lost_volumes
from harness.planes.rally.phases import faults_given
from harness.planes.rally.records import RallyResultError, load_export, scenario_of, workloads
from harness.planes.rally.runner import HTML_REPORT, JSON_REPORT
from harness.planes.rally.service_faults import ServiceSwitch
from harness.records.phases import FAULTS_FILE, faults_record

HOOKS = {OsdFault: "volperf_ceph_fault", ServiceFault: "volperf_service_fault"}
UNDONE_LABEL = "undone at the step's end"


@dataclass(frozen=True)
class Switches:
    """What gives a Rally target's faults: its Ceph cluster's OSDs (none without
    ceph_conf), the OpenStack testbed's services."""

    osds: OsdSwitch | None
    services: ServiceSwitch
    clouds_yaml: Path | None
    allow_faults: bool

    def of(self, fault: RallyFault) -> OsdSwitch | ServiceSwitch:
        if isinstance(fault, ServiceFault):
            return self.services
        assert self.osds is not None  # the spec's check: OSD faults need ceph_conf
        return self.osds

    def check(self, faults: list[RallyFault]) -> list[str]:
        """Refuse faults that may not be given; else, under where each acts, each one's
        commands, in order."""
        osd = [f for f in faults if isinstance(f, OsdFault)]
        service = [f for f in faults if isinstance(f, ServiceFault)]
        planned = []
        if osd:
            assert self.osds is not None
            self.osds.check(osd, self.allow_faults)
            planned += [f"on {self.osds.where}:", *(f"  {p}" for p in self.osds.plan(osd))]
        if service:
            self.services.check(service)
            planned += [f"on {self.services.where}:"]
            planned += [f"  {line}" for line in self.services.plan(service)]
        return planned

    def config(self, fault: RallyFault, campaign: Path) -> dict[str, Any]:
        """The fault's hook's config."""
        if isinstance(fault, ServiceFault):
            return {
                "action": fault.action,
                "service": fault.service,
                "clouds_yaml": str(self.clouds_yaml),
                "campaign": str(campaign),
            }
        assert self.osds is not None
        config: dict[str, Any] = {
            "action": fault.action,
            "osd": fault.osd,
            "ceph_conf": str(self.osds.conf),
            "user": self.osds.user,
            "allow_faults": self.allow_faults,
            "campaign": str(campaign),
        }
        if fault.seconds is not None:
            config["seconds"] = fault.seconds
        return config


def fault_hooks(
    faults: list[RallyFault], switches: Switches, campaign: Path
) -> list[dict[str, Any]]:
    """Rally's hook entries (task format 2) that give ``faults``."""
    return [
        {
            "description": f"volperf fault {fault.label}",
            "action": {HOOKS[type(fault)]: switches.config(fault, campaign)},
            "trigger": {"event": {"unit": "time", "at": [int(fault.at)]}},  # whole s
        }
        for fault in faults
    ]


def undo_left(
    faults: list[RallyFault], switches: Switches, store: CampaignStore, raw: Path
) -> list[dict[str, Any]]:
    """Put back what the hooks left changed of the faults' parts (as their notes say) and
    write raw/faults.json: the actions asked of each workload, those the hooks gave
    (None: the runner wrote no report, as when it was killed) and those undone."""
    ledgers: dict[int, FaultLedger] = {}
    for fault in faults:
        switch = switches.of(fault)
        ledger = ledgers.setdefault(id(switch), FaultLedger(switch, store))
        ledger.state(fault.subject)
    undone = []
    for ledger in ledgers.values():
        ledger.undo(UNDONE_LABEL)
        undone += ledger.given
    asked = [
        {"fault": f.label, "action": action, "on": f.on, "due_s": due}
        for f in faults
        for due, action in f.schedule
    ]
    where = "; ".join(ledger.switch.where for ledger in ledgers.values())
    record = {"where": where, "asked": asked, "given": given_by_hooks(raw), "undone": undone}
    record[lost_volumes.LEFT_FIELD] = images_left(store)
    atomic_write_json(raw / FAULTS_FILE, record)
    if record[lost_volumes.LEFT_FIELD] and (raw / JSON_REPORT).exists():
        report_again(raw)
    return undone


def report_again(raw: Path) -> None:
    """Rally's report of the step made again, with the images left (in a process of its
    own: it imports Rally)."""
    module = "harness.planes.rally.phased_report"
    argv = [sys.executable, "-m", module, str(raw), JSON_REPORT, HTML_REPORT]
    subprocess.run(argv, check=False, timeout=300)


def images_left(store: CampaignStore) -> list[dict[str, Any]]:
    """The images of the volumes Cinder lost in the stops' hands, found and removed (each
    with why it could not be, and the command that removes it)."""
    notes = lost_volumes.noted(store)
    try:
        found = lost_volumes.resolve_noted(store, notes) if notes else []
    except Exception as exc:  # said; the notes kept for `volperf cleanup`
        return [{"volume": None, "error": f"{type(exc).__name__}: {exc}"}]
    return [f.record() for f in found]


def given_by_hooks(raw: Path) -> list[dict[str, Any]] | None:
    """Each action the fault hooks gave, with its workload's scenario, its commands and
    when it was given and done, as the task's report has them (None: no report)."""
    try:
        document = load_export(raw / JSON_REPORT)
    except RallyResultError:
        return None
    return [
        {"scenario": scenario_of(workload), **given}
        for _, workload in workloads(document)
        for given in faults_given(workload)
    ]


def asked(raw: Path) -> list[dict[str, Any]]:
    """The actions each workload of the step was to be given (none: no faults file)."""
    return faults_record(raw).get("asked") or []
