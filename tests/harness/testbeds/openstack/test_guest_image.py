"""harness/testbeds/openstack/guest_image.py: the real guests' image is built from Debian's
cloud kernel and this host's programs, and boots for real under QEMU's software CPU (TCG,
the accelerator that works on this machine) as Nova would boot it: the kernel and ramdisk
given to QEMU, the root disk a qcow2 overlay, an OpenStack config drive on an IDE CD-ROM
and a virtio disk with a serial, its network a macvtap on a veth pair that goes nowhere
else. The guest's init sets up the network from the config drive and runs the user_data,
which runs fio on the disk it finds by its serial and posts fio's JSON to the host with
curl, as the cinder-fio agent signals Heat."""

from __future__ import annotations

import http.server
import json
import os
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from harness.testbeds.openstack.guest_image import (
    ensure_guest_image,
    kernel_command_line,
    module_order,
)
from tests.harness.testbeds.openstack.guest_helpers import config_drive

BOOT_TIMEOUT_S = 240
SUBNET = "10.250.9"  # a range this host does not use; the veth pair routes nowhere
MAC = "52:54:00:7e:57:01"
SERIAL = "volperf-image-test"
USER_DATA = f"""#!/bin/sh
fio --name=probe --filename=/dev/disk/by-id/virtio-{SERIAL} --ioengine=libaio --direct=1 \\
  --rw=randread --bs=4k --runtime=2 --time_based --output-format=json > /tmp/fio.json
printf '{{"uname": "%s", "fio": %s}}' "$(uname -r)" "$(cat /tmp/fio.json)" > /tmp/post.json
curl -sS --max-time 30 --fail --data-binary @/tmp/post.json http://{SUBNET}.1:$PORT/signal
poweroff -f
"""
INTERFACES = f"""auto lo
iface lo inet loopback

auto eth0
iface eth0 inet static
    hwaddress ether {MAC}
    address {SUBNET}.10
    netmask 255.255.255.0
    gateway {SUBNET}.1
"""


def test_module_order_puts_dependencies_first() -> None:
    modules_dep = (
        "kernel/drivers/block/virtio_blk.ko: kernel/drivers/virtio/virtio.ko "
        "kernel/drivers/virtio/virtio_ring.ko\n"
        "kernel/drivers/virtio/virtio_ring.ko:\n"
        "kernel/drivers/virtio/virtio.ko: kernel/drivers/virtio/virtio_ring.ko\n"
    )
    assert module_order(modules_dep, ("virtio_blk",)) == [
        "kernel/drivers/virtio/virtio_ring.ko",
        "kernel/drivers/virtio/virtio.ko",
        "kernel/drivers/block/virtio_blk.ko",
    ]


class _Signals(http.server.BaseHTTPRequestHandler):
    posted: list[bytes] = []

    def do_POST(self) -> None:  # noqa: N802 - the name http.server calls
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        _Signals.posted.append(body)
        self.send_response(200)
        self.end_headers()

    def log_message(self, *args: object) -> None:
        pass


def _ip(*args: str) -> None:
    subprocess.run(["ip", *args], check=True, capture_output=True)


@pytest.fixture
def guest_network() -> Iterator[tuple[Path, int]]:
    """A veth pair (the host's end {SUBNET}.1, no forwarding), a macvtap on its other end
    as Nova's libvirt driver makes one, and an HTTP server on the host's end: the tap's
    device and the server's port."""
    tag = f"vgi{os.getpid() % 100000}"
    lower, host, tap = f"{tag}l", f"{tag}h", f"{tag}m"
    _ip("link", "add", lower, "type", "veth", "peer", "name", host)
    server = None
    try:
        _ip("addr", "add", f"{SUBNET}.1/24", "dev", host)
        _ip("link", "set", lower, "up")
        _ip("link", "set", host, "up")
        _ip("link", "add", "link", lower, "name", tap, "type", "macvtap", "mode", "bridge")
        _ip("link", "set", tap, "address", MAC, "up")
        index = Path(f"/sys/class/net/{tap}/ifindex").read_text().strip()
        server = http.server.HTTPServer((f"{SUBNET}.1", 0), _Signals)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        yield Path(f"/dev/tap{index}"), server.server_address[1]
    finally:
        if server is not None:
            server.shutdown()
        subprocess.run(["ip", "link", "del", lower], check=False, capture_output=True)


def test_the_image_boots_and_runs_fio_on_a_disk_found_by_its_serial(
    tmp_path: Path, guest_network: tuple[Path, int]
) -> None:
    if os.geteuid() != 0:
        pytest.fail("the guest's network (a veth pair and a macvtap) needs root")
    tap, port = guest_network
    image = ensure_guest_image(print)
    overlay = tmp_path / "root.qcow2"
    subprocess.run(
        ["qemu-img", "create", "-q", "-f", "qcow2", "-b", str(image.root), "-F", "qcow2"]
        + [str(overlay)],
        check=True,
    )
    disk = tmp_path / "volume.raw"
    disk.write_bytes(b"")
    os.truncate(disk, 64 * 2**20)
    iso = config_drive(tmp_path, USER_DATA.replace("$PORT", str(port)), INTERFACES)
    console = tmp_path / "console.log"
    _Signals.posted.clear()
    with tap.open("r+b", buffering=0) as tap_file:
        fd = tap_file.fileno()
        argv = [
            "qemu-system-x86_64",
            "-machine", "pc,accel=tcg", "-cpu", "Nehalem", "-m", "256", "-smp", "1",
            "-nographic", "-no-reboot", "-serial", f"file:{console}", "-monitor", "none",
            "-kernel", str(image.kernel), "-initrd", str(image.ramdisk),
            "-append", kernel_command_line("qemu"),
            "-drive", f"file={overlay},if=virtio,format=qcow2",
            "-drive", f"file={iso},media=cdrom,if=ide",
            "-drive", f"file={disk},if=none,id=volume,format=raw,cache=none,aio=native",
            "-device", f"virtio-blk-pci,drive=volume,serial={SERIAL}",
            "-netdev", f"tap,id=net0,fd={fd}",
            "-device", f"virtio-net-pci,netdev=net0,mac={MAC}",
        ]  # fmt: skip
        done = subprocess.run(
            argv, pass_fds=(fd,), timeout=BOOT_TIMEOUT_S, capture_output=True, text=True
        )
    log = console.read_text(errors="replace")
    assert done.returncode == 0, f"QEMU exited {done.returncode}: {done.stderr[-500:]}\n{log}"
    assert f"network: eth0 {SUBNET}.10/24" in log, log[-3000:]
    assert len(_Signals.posted) == 1, f"the guest posted {len(_Signals.posted)} times\n{log}"
    posted = json.loads(_Signals.posted[0])
    # the guest's own kernel and the image's fio ran, and fio read the disk by its serial
    assert posted["uname"] == image.kernel_release
    host_fio = subprocess.run(["fio", "--version"], capture_output=True, text=True).stdout
    assert posted["fio"]["fio version"] == host_fio.strip()
    (job,) = posted["fio"]["jobs"]
    assert job["job options"]["filename"] == f"/dev/disk/by-id/virtio-{SERIAL}"
    assert job["error"] == 0
    assert job["read"]["io_bytes"] > 0
