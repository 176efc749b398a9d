"""RBD target: N consumers are N RBD images volperf creates, driven by fio's rbd engine.

Images are named volperf-<campaign>-<consumer>, tagged with the campaign in their
metadata and noted in created.json before they are made; they are reused across steps
and removed when the campaign ends (or by `volperf cleanup` after a crash, which also
finds tagged images the notes missed). An image volperf did not create is never written.
The cluster's health is sampled during every step (raw/ceph-health.jsonl).
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from harness.core.faults import OsdFault
from harness.core.plan import Step
from harness.core.spec import RW_MODES, WRITE_MODES, CampaignSpec, RbdTarget
from harness.core.store import CampaignStore, atomic_write_json
from harness.core.units import size_bytes
from harness.core.workloads.fio import SET_BY_TARGET
from harness.host.sampler import HostSampler
from harness.planes.base import StepOutcome, TargetError, Tick, require_space
from harness.planes.ceph import images
from harness.planes.ceph.access import CephAccess, CephError, bindings, mon_command, resolve
from harness.planes.ceph.faults import OsdSwitch, osd_faults, started_prerun
from harness.planes.ceph.health_sampler import CephHealthSampler
from harness.planes.ceph.osd_settings import osd_settings
from harness.planes.ceph.step import HEALTH_FILE
from harness.planes.fio_step import finished, log_dir, prefill_note, run_measured, run_prefill
from harness.tools.fio.render import JobTarget, render_job, render_prefill

READING_MODES = RW_MODES - WRITE_MODES  # read, randread and the mixed modes


class RbdFioTarget:
    path: Path | None = None  # its storage is not a folder of this host

    def __init__(self, spec: CampaignSpec):
        options: RbdTarget = resolve(spec).target
        assert options.ceph_conf is not None
        self.spec = spec
        self.options = options
        self.access = CephAccess(options.ceph_conf, options.user, options.pool)
        self.backend = spec.labels.get("backend", f"rbd:{options.pool}")
        self._versions: dict[str, str] = {}
        self.switch = OsdSwitch(self.access.conf, self.access.user)
        # what the campaign will do to the cluster, told before it starts
        self.announcements: list[str] = []
        # how the OSDs share themselves between client I/O and recovery, as they said
        self.backend_settings: dict[str, str] = {}

    # preparation
    def prepare(self, spec: CampaignSpec, store: CampaignStore) -> None:
        try:
            with self.access.cluster() as cluster:
                self.access.check_pool(cluster)
                pools = mon_command(cluster, "df", detail="detail").get("pools", [])
                version = mon_command(cluster, "version").get("version", "")
                fsid = cluster.get_fsid()
                self.backend_settings = osd_settings(cluster)
        except CephError as exc:
            raise TargetError(str(exc)) from None
        self._versions = {"ceph cluster": version, "ceph fsid": fsid}
        self._check_space(pools)
        self._check_faults(spec)
        if "backend" not in spec.labels:
            self.backend = f"rbd:{self.access.pool}:{version.split()[2] if version else '?'}"
        # a standing note: cleanup scans the pool for images tagged with this campaign
        store.record_created(
            f"rbd-pool:{self.access.conf}:{self.access.pool}",
            **self._note(),
            kind="rbd-pool",
            campaign=spec.name,
        )

    def _check_faults(self, spec: CampaignSpec) -> None:
        faults = [f for w in spec.workloads for f in getattr(w, "faults", [])]
        if not faults:
            return
        self.switch.check(faults, self.options.allow_faults)
        self.announcements = [
            f"faults on {self.switch.where}, in each step of their workload, each undone "
            "at the step's end:",
            *(f"  {line}" for line in self.switch.plan(faults)),
        ]

    def _note(self) -> dict[str, Any]:
        return {
            "ours": True,
            "conf": str(self.access.conf),
            "user": self.access.user,
            "pool": self.access.pool,
        }

    def _check_space(self, pools: list[dict[str, Any]]) -> None:
        stats = next((p["stats"] for p in pools if p.get("name") == self.access.pool), None)
        if stats is None:
            return
        needed = max(size_bytes(w.size) for w in self.spec.workloads) * self.spec.space_count
        available = int(stats.get("max_avail", 0)) + int(stats.get("stored", 0))
        require_space(
            f"pool {self.access.pool!r} cannot hold the campaign",
            needed,
            f"largest size x {self.spec.space_count} consumers",
            available,
            " (max_avail + stored, after replication)",
        )

    def tool_versions(self) -> dict[str, str]:
        _, rbd = bindings()
        librbd = ".".join(str(n) for n in rbd.RBD().version())
        return {**self._versions, "librbd": librbd}

    # one step
    def _targets(self, step: Step) -> list[JobTarget]:
        return [
            JobTarget(c.jobname, c.rw, rbdname=images.image_name(self.spec.name, c.name))
            for c in step.consumers
        ]

    def _key(self, target: JobTarget) -> str:
        return f"rbd:{self.access.pool}/{target.rbdname}"

    def _engine(self) -> dict[str, str]:
        engine = SET_BY_TARGET["rbd"]  # what the method section says it ran
        return {**engine, "clientname": self.access.user, "pool": self.access.pool}

    def _ensure_images(self, targets: list[JobTarget], size: int, store: CampaignStore) -> None:
        created = store.created()
        try:
            with self.access.pool_io() as ioctx:
                there = images.existing(ioctx)
                for target in targets:
                    name, key = str(target.rbdname), self._key(target)
                    if name in there:
                        if key not in created:
                            raise TargetError(
                                f"RBD image {self.access.pool}/{name} exists and volperf did not "
                                "create it for this campaign: remove it or choose another --name"
                            )
                        images.grow(ioctx, name, size)
                    else:
                        store.record_created(key, kind="rbd-image", image=name, **self._note())
                        images.create(ioctx, name, size, self.spec.name)
        except CephError as exc:
            raise TargetError(str(exc)) from None

    def _unfilled(
        self, step: Step, targets: list[JobTarget], store: CampaignStore
    ) -> list[JobTarget]:
        created, size = store.created(), size_bytes(step.workload.size)
        return [
            t for t in targets if created.get(self._key(t), {}).get("prefilled_bytes", 0) < size
        ]

    def _write_images_note(
        self, step: Step, targets: list[JobTarget], store: CampaignStore
    ) -> None:
        """raw/images.json: which consumers read images not written in full first (RBD
        answers reads of never-written blocks with zeros, without reaching the OSDs)."""
        unfilled = {t.rbdname for t in self._unfilled(step, targets, store)}
        size = size_bytes(step.workload.size)
        note = [
            {
                "consumer": consumer.name,
                "image": target.rbdname,
                "pool": self.access.pool,
                "size_bytes": size,
                "written_in_full": target.rbdname not in unfilled,
                "reads": consumer.rw in READING_MODES,
            }
            for consumer, target in zip(step.consumers, targets, strict=True)
        ]
        atomic_write_json(store.raw_dir(step.id) / "images.json", note)

    def run_step(
        self, step: Step, store: CampaignStore, stop: threading.Event, tick: Tick
    ) -> StepOutcome:
        """One fio process with an rbd-engine job per consumer on its own RBD image (made and
        tagged first, written once where asked), the cluster's health sampled meanwhile."""
        raw = store.raw_dir(step.id)
        workload = step.workload
        targets = self._targets(step)
        self._ensure_images(targets, size_bytes(workload.size), store)
        env = self.access.env()
        notes: list[str] = []
        health = CephHealthSampler(raw / HEALTH_FILE, self.access, self.options.health_interval)
        with health:
            unfilled = self._unfilled(step, targets, store) if workload.prefill else []
            if unfilled:
                job = render_prefill(workload, unfilled, self._engine())
                failure, seconds = run_prefill(self.spec, raw, job, stop, tick, env)
                if failure is not None:
                    return failure
                for t in unfilled:
                    store.record_created(self._key(t), prefilled_bytes=size_bytes(workload.size))
                notes.append(prefill_note(len(unfilled), workload.size, seconds))
            self._write_images_note(step, targets, store)
            prerun = started_prerun(raw) if workload.faults else None
            job = render_job(workload, targets, self._engine(), log_dir(raw), prerun=prerun)
            given = [f for f in workload.faults if isinstance(f, OsdFault)]  # the spec's check
            faults = osd_faults(given, self.switch, store, raw)
            with HostSampler(raw / "host.jsonl", None) as sampler, faults:
                failure = run_measured(
                    self.spec, workload, raw, job, stop, tick, env, sampler, len(targets)
                )
        return finished(failure, notes)

    def cleanup(self, store: CampaignStore) -> list[str]:
        return []  # what it made is noted in created.json: the campaign removes it
