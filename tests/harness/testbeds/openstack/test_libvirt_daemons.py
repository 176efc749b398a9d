"""harness/testbeds/openstack/libvirt_daemons.py and accel.py: libvirtd and virtlogd run
from a state directory of their own, boot the guest image on the accelerator a probe
boot chose, attach an RBD image of the suite's Ceph testbed through QEMU's librbd with the
Ceph secret defined in libvirt (the path Nova takes for a Cinder volume), and leave no
process behind when stopped. The guest writes a marker to the volume it finds by its
serial; the host reads it back from the RBD image."""

from __future__ import annotations

import fcntl
import re
import subprocess
import time
import uuid
from pathlib import Path

import pytest

from harness.host.process import command_line, pids_naming
from harness.testbeds import TestbedError
from harness.testbeds.ceph import CINDER_USER
from harness.testbeds.openstack import accel, libvirt_daemons
from harness.testbeds.openstack.guest_image import (
    cache_folder,
    ensure_guest_image,
    kernel_command_line,
)
from tests.conftest import CephTestbedInfo
from tests.harness.testbeds.openstack.guest_helpers import config_drive

SERIAL = "volperf-libvirt-test"
MARKER = b"volperf wrote this from a guest"
GUEST_S = 240
USER_DATA = f"""#!/bin/sh
until [ -b /dev/disk/by-id/virtio-{SERIAL} ]; do sleep 0.5; done
printf '{MARKER.decode()}' | dd of=/dev/disk/by-id/virtio-{SERIAL} bs=512 conv=sync oflag=direct
sync
echo "volperf test: marker written"
poweroff -f
"""


def _domain(name: str, virt_type: str, image: object, overlay: Path, iso: Path, console: Path):
    return f"""<domain type='{virt_type}'><name>{name}</name>
<memory unit='MiB'>256</memory><vcpu>1</vcpu>
<os><type arch='x86_64' machine='pc'>hvm</type><kernel>{image.kernel}</kernel>
<initrd>{image.ramdisk}</initrd><cmdline>{kernel_command_line(virt_type)}</cmdline></os>
<features><acpi/><apic/></features>
<cpu mode='custom' match='exact'><model fallback='allow'>Nehalem</model></cpu>
<on_poweroff>destroy</on_poweroff>
<devices>
<disk type='file' device='disk'><driver name='qemu' type='qcow2'/>
<source file='{overlay}'/><target dev='vda' bus='virtio'/></disk>
<disk type='file' device='cdrom'><driver name='qemu' type='raw'/>
<source file='{iso}'/><target dev='hdc' bus='ide'/><readonly/></disk>
<serial type='file'><source path='{console}'/></serial>
</devices></domain>"""  # type: ignore[attr-defined]


def _rbd_disk(pool: str, name: str, ports: str, secret: str) -> str:
    host, port = ports.rsplit(":", 1)
    return f"""<disk type='network' device='disk'><driver name='qemu' type='raw' cache='none'/>
<source protocol='rbd' name='{pool}/{name}'><host name='{host}' port='{port}'/></source>
<auth username='{CINDER_USER}'><secret type='ceph' uuid='{secret}'/></auth>
<target dev='vdb' bus='virtio'/><serial>{SERIAL}</serial></disk>"""


def _v1_monitor(conf: Path) -> str:
    found = re.search(r"v1:([\d.]+:\d+)", conf.read_text())
    assert found, f"no v1 monitor address in {conf}"
    return found.group(1)


def _processes_naming(path: Path) -> list[str]:
    """The command lines of the processes that name ``path`` (a state directory's)."""
    return [command_line(pid) for pid in pids_naming(str(path))]


def test_libvirt_boots_a_guest_that_writes_to_an_rbd_volume_through_qemu(
    ceph_testbed: CephTestbedInfo, tmp_path: Path
) -> None:
    import libvirt
    import rbd

    state = tmp_path / "state"
    image = ensure_guest_image(print)
    chosen = accel.choose(image, cache_folder() / "accel.json", print)
    libvirt_daemons.start(state, tmp_path / "libvirtd.out")
    access = ceph_testbed.access()
    volume = f"volperf-libvirt-{uuid.uuid4().hex[:8]}"
    try:
        with access.pool_io() as ioctx:
            rbd.RBD().create(ioctx, volume, 64 * 2**20)
        keyring = (ceph_testbed.state / f"ceph.client.{CINDER_USER}.keyring").read_text()
        key = re.search(r"key = (\S+)", keyring).group(1)  # type: ignore[union-attr]
        secret = str(uuid.uuid4())
        libvirt_daemons.define_ceph_secret(state, secret, CINDER_USER, key)
        overlay = tmp_path / "root.qcow2"
        subprocess.run(
            ["qemu-img", "create", "-q", "-f", "qcow2", "-b", str(image.root), "-F", "qcow2"]
            + [str(overlay)],
            check=True,
        )
        iso = config_drive(tmp_path / "drive", USER_DATA)
        console = tmp_path / "console.log"
        connection = libvirt.open(libvirt_daemons.uri(state))
        domain = connection.createXML(
            _domain("volperf-test", chosen.virt_type, image, overlay, iso, console), 0
        )
        (qemu,) = libvirt_daemons.guest_processes(state)
        accelerator = "tcg" if chosen.virt_type == "qemu" else "kvm"
        assert re.search(rf"-accel {accelerator}\b|accel={accelerator}\b", command_line(qemu))
        domain.attachDeviceFlags(
            _rbd_disk("volumes", volume, _v1_monitor(ceph_testbed.conf), secret),
            libvirt.VIR_DOMAIN_AFFECT_LIVE,
        )
        deadline = time.monotonic() + GUEST_S
        while time.monotonic() < deadline and libvirt_daemons.guest_processes(state):
            time.sleep(1)  # the guest powers itself off when done
        log = console.read_text(errors="replace")
        assert "volperf test: marker written" in log, log[-3000:]
        with access.pool_io() as ioctx, rbd.Image(ioctx, volume, read_only=True) as written:
            assert written.read(0, len(MARKER)) == MARKER
        connection.close()
    finally:
        stopped = libvirt_daemons.stop(state)
        with access.pool_io() as ioctx:
            rbd.RBD().remove(ioctx, volume)
    assert stopped
    assert not libvirt_daemons.guest_processes(state)
    assert not _processes_naming(state)


def test_two_state_directories_run_a_libvirtd_each_at_the_same_time(tmp_path: Path) -> None:
    """Two testbeds' libvirtd (or a test's beside a testbed's) side by side: each takes
    its pid files in its own state, not root's /run/libvirtd.pid, so the second one
    starts and answers on its own socket, and both stop leaving nothing."""
    states = [tmp_path / "one", tmp_path / "two"]
    try:
        for state in states:
            libvirt_daemons.start(state, tmp_path / f"{state.name}.out")
        for state in states:
            done = subprocess.run(
                ["virsh", "-c", libvirt_daemons.uri(state), "uri"],
                capture_output=True,
                text=True,
                check=False,
                timeout=30,
            )
            assert done.returncode == 0, done.stderr
            for name in ("libvirtd", "virtlogd"):
                pid = int((libvirt_daemons.root(state) / "run" / f"{name}.pid").read_text())
                assert str(state) in command_line(pid), (name, command_line(pid))
    finally:
        stopped = [libvirt_daemons.stop(state) for state in states]
    assert stopped == [True, True]
    assert not _processes_naming(tmp_path)


def test_a_libvirtd_that_cannot_start_is_named_with_its_own_logs_reason(tmp_path: Path) -> None:
    """libvirtd writes why it stopped to its own log, not its output: when its pid file is
    held (here by the test, as another libvirtd would), the error quotes that log, and
    the virtlogd started beside it is stopped too."""
    state = tmp_path / "state"
    pid_file = libvirt_daemons.root(state) / "run" / "libvirtd.pid"
    pid_file.parent.mkdir(parents=True)
    with pid_file.open("w") as held:
        fcntl.lockf(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
        with pytest.raises(TestbedError) as failed:
            libvirt_daemons.start(state, tmp_path / "libvirtd.out")
        assert not _processes_naming(state)  # nor the virtlogd started beside it
    message = str(failed.value)
    assert message.startswith("libvirtd exited 1: "), message
    assert "pid" in message.lower() and "libvirtd.log" in message, message
