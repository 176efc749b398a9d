"""Local target: N consumers are N fio jobs of one fio process on this machine.

Each consumer has its own file in the directory under test, named after the campaign
and recorded in created.json before it is made; files are reused across steps and
removed when the campaign ends. A block device, or an existing file volperf did not
create, is refused unless the user allowed it explicitly.
"""

from __future__ import annotations

import os
import stat
import threading
from pathlib import Path

from harness.core.plan import Step
from harness.core.spec import CampaignSpec, LocalTarget
from harness.core.store import CampaignStore
from harness.core.units import size_bytes
from harness.core.workloads.registry import family_of
from harness.host.hoststats import device_for_path
from harness.host.machine import mount_of
from harness.host.sampler import HostSampler
from harness.planes.base import StepOutcome, TargetError, Tick, require_space
from harness.planes.fio_step import (
    finished,
    log_dir,
    prefill_note,
    run_measured,
    run_prefill,
)
from harness.tools.fio.render import JobTarget, render_job, render_prefill


def describe_directory(path: Path, is_device: bool = False) -> str:
    """The backend label of a local target: local:<file system>:<device>."""
    if is_device:
        return f"local:{path.name}"
    mount = mount_of(path)
    device = device_for_path(path)
    return ":".join(["local", mount.get("fstype", "?"), device.name if device else "nodev"])


class LocalFioTarget:
    path: Path  # the directory (or device) under test

    def __init__(self, spec: CampaignSpec):
        options: LocalTarget = spec.target
        if options.dir is None:
            raise TargetError("local target needs a directory: give --dir DIR (target.dir)")
        self.spec = spec
        self.path = Path(options.dir)
        self.allow_device = options.allow_device
        self.allow_existing = options.allow_existing
        self.is_device = False
        self.backend = spec.labels.get("backend", "local")

    def tool_versions(self) -> dict[str, str]:
        return {}  # fio only

    # preparation
    def prepare(self, spec: CampaignSpec, store: CampaignStore) -> None:
        try:
            mode = os.stat(self.path).st_mode
        except FileNotFoundError:
            raise TargetError(f"{self.path}: no such directory") from None
        if stat.S_ISBLK(mode):
            if not self.allow_device:
                raise TargetError(
                    f"{self.path} is a block device: fio would overwrite its data. "
                    "Give --allow-device to run on it anyway."
                )
            self.is_device = True
        elif not stat.S_ISDIR(mode):
            raise TargetError(f"{self.path}: not a directory (or a block device)")
        elif not os.access(self.path, os.W_OK):
            raise TargetError(f"{self.path}: directory is not writable")
        self._check_space()
        if "backend" not in spec.labels:
            self.backend = describe_directory(self.path, self.is_device)

    def _needed_bytes(self) -> int:
        fio = [w for w in self.spec.workloads if family_of(w) == "fio"]  # not db ones
        return max(size_bytes(w.size) for w in fio) * self.spec.space_count

    def _check_space(self) -> None:
        needed = self._needed_bytes()
        if self.is_device:
            with open(self.path, "rb") as device:
                available = device.seek(0, os.SEEK_END)
            what = "device size"
        else:
            st = os.statvfs(self.path)
            available = st.f_bavail * st.f_frsize
            # files volperf already made count as available: they are reused
            available += sum(p.stat().st_size for p in self._files_of_campaign() if p.exists())
            what = "free space"
        require_space(
            f"{self.path}: not enough {what} for the campaign",
            needed,
            f"largest size x {self.spec.space_count} consumers",
            available,
        )

    def _files_of_campaign(self) -> list[Path]:
        return list(self.path.glob(f"volperf-{self.spec.name}-c*.dat"))

    # one step
    def _job_targets(self, step: Step) -> list[JobTarget]:
        size = size_bytes(step.workload.size)
        targets = []
        for i, consumer in enumerate(step.consumers):
            if self.is_device:
                targets.append(
                    JobTarget(consumer.jobname, consumer.rw, str(self.path), offset=i * size)
                )
            else:
                filename = self.path / f"volperf-{self.spec.name}-{consumer.name}.dat"
                targets.append(JobTarget(consumer.jobname, consumer.rw, str(filename)))
        return targets

    def _claim_files(self, targets: list[JobTarget], store: CampaignStore) -> None:
        created = store.created()
        for target in targets:
            if self.is_device or target.filename in created:
                continue
            if Path(target.filename).exists():
                if not self.allow_existing:
                    raise TargetError(
                        f"{target.filename} exists and volperf did not create it; "
                        "give --allow-existing to let fio overwrite it"
                    )
                store.record_created(target.filename, kind="file", ours=False)
            else:
                store.record_created(target.filename, kind="file", ours=True)

    def _key(self, target: JobTarget) -> str:
        return f"{target.filename}@{target.offset}" if self.is_device else target.filename

    def _unfilled(
        self, step: Step, targets: list[JobTarget], store: CampaignStore
    ) -> list[JobTarget]:
        """Targets whose blocks have not all been written yet (files are reused)."""
        if not step.workload.prefill:
            return []
        created = store.created()
        size = size_bytes(step.workload.size)
        return [
            t for t in targets if created.get(self._key(t), {}).get("prefilled_bytes", 0) < size
        ]

    def _mark_prefilled(self, step: Step, targets: list[JobTarget], store: CampaignStore) -> None:
        size = size_bytes(step.workload.size)
        for t in targets:
            kind = {"kind": "region"} if self.is_device else {}
            store.record_created(self._key(t), prefilled_bytes=size, **kind)

    def run_step(
        self, step: Step, store: CampaignStore, stop: threading.Event, tick: Tick
    ) -> StepOutcome:
        """One fio process with a job per consumer on its own file (or device region), the
        files written once first where asked (prefill), the host's disk counters sampled."""
        raw = store.raw_dir(step.id)
        targets = self._job_targets(step)
        self._claim_files(targets, store)
        notes: list[str] = []

        unfilled = self._unfilled(step, targets, store)
        if unfilled:
            job = render_prefill(step.workload, unfilled)
            failure, seconds = run_prefill(self.spec, raw, job, stop, tick)
            if failure is not None:
                return failure
            self._mark_prefilled(step, unfilled, store)
            notes.append(prefill_note(len(unfilled), step.workload.size, seconds))

        job = render_job(step.workload, targets, logs=log_dir(raw))
        with HostSampler(raw / "host.jsonl", device_for_path(self.path)) as sampler:
            failure = run_measured(
                self.spec, step.workload, raw, job, stop, tick, None, sampler, len(targets)
            )
        return finished(failure, notes)

    def cleanup(self, store: CampaignStore) -> list[str]:
        return []  # what it made is noted in created.json: the campaign removes it
