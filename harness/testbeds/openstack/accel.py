"""Which accelerator the testbed's guests run on, chosen by a probe boot, not by whether
/dev/kvm exists: on a machine whose /dev/kvm is a paravirtual hypervisor (PVM, as on this
project's build machines) libvirt reports kvm and a stock kernel under ``-accel kvm``
never prints a line and dies after a minute with "KVM internal error … emulation failure".
So the guest image is booted under KVM for at most ``PROBE_S`` s; when it reaches its
init, Nova's ``virt_type`` is ``kvm``, else ``qemu`` (TCG, QEMU's software CPU: real
QEMU, virtio, librbd and guest kernel, but an emulated CPU, so figures that depend on the
guest's CPU are functional, not performance). The answer is kept per machine, keyed by
what decides it (the host's kernel, QEMU's version and the image)."""

from __future__ import annotations

import json
import os
import platform
import subprocess
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from harness.testbeds.openstack.guest_image import COMMAND_LINE, GuestImage

PROBE_S = 30.0  # a guest under hardware KVM reaches its init in a few seconds
REACHED = "volperf guest:"  # what the image's init prints first on the console
Say = Callable[[str], None]


@dataclass(frozen=True)
class Accel:
    virt_type: str  # Nova's [libvirt] virt_type: kvm or qemu
    reason: str

    @property
    def words(self) -> str:
        """How a page or a status line says what the guests ran on."""
        if self.virt_type == "kvm":
            return "real guests under KVM"
        return "real guests, emulated CPU (TCG): functional figures, not performance"


def boots(image: GuestImage, accel: str, timeout_s: float, work: Path) -> tuple[bool, str]:
    """Whether the image reaches its init under ``accel`` within ``timeout_s`` s, and the
    console's last line (or QEMU's error)."""
    console = work / f"probe-{accel}.log"
    overlay = work / f"probe-{accel}.qcow2"
    subprocess.run(
        ["qemu-img", "create", "-q", "-f", "qcow2", "-b", str(image.root), "-F", "qcow2"]
        + [str(overlay)],
        check=True,
    )
    cpu = ["-cpu", "host"] if accel == "kvm" else ["-cpu", "Nehalem"]
    argv = [
        "qemu-system-x86_64", "-machine", f"pc,accel={accel}", *cpu, "-m", "256",
        "-nographic", "-no-reboot", "-serial", f"file:{console}", "-monitor", "none",
        "-kernel", str(image.kernel), "-initrd", str(image.ramdisk), "-append", COMMAND_LINE,
        "-drive", f"file={overlay},if=virtio,format=qcow2",
    ]  # fmt: skip
    qemu = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + timeout_s
    try:
        while time.monotonic() < deadline and qemu.poll() is None:
            if console.exists() and REACHED in console.read_text(errors="replace"):
                return True, _last_line(console)
            time.sleep(0.5)
        if qemu.poll() is not None:
            error = (qemu.stderr.read() if qemu.stderr else "").strip()
            return False, error.splitlines()[-1] if error else _last_line(console)
        return False, f"no init within {timeout_s:.0f} s; console: {_last_line(console)!r}"
    finally:
        if qemu.poll() is None:
            qemu.kill()
        qemu.wait()


def _last_line(console: Path) -> str:
    lines = console.read_text(errors="replace").strip().splitlines() if console.exists() else []
    return lines[-1][-200:] if lines else "(nothing)"


def _qemu_version() -> str:
    done = subprocess.run(
        ["qemu-system-x86_64", "--version"], capture_output=True, text=True, check=False
    )
    return done.stdout.splitlines()[0] if done.stdout else "?"


def choose(image: GuestImage, cache: Path, say: Say) -> Accel:
    """kvm when /dev/kvm is usable and a probe boot under it reaches the init, else qemu;
    kept in ``cache`` for this host kernel, QEMU and image."""
    key = f"{platform.release()} | {_qemu_version()} | {image.folder.name}"
    try:
        kept = json.loads(cache.read_text())
        if kept.get("key") == key:
            return Accel(kept["virt_type"], kept["reason"])
    except (OSError, ValueError, KeyError):
        pass
    if not os.access("/dev/kvm", os.R_OK | os.W_OK):
        chosen = Accel("qemu", "no usable /dev/kvm")
    else:
        say(f"probing KVM: booting the guest image under it (at most {PROBE_S:.0f} s)")
        with tempfile.TemporaryDirectory() as tmp:
            ok, last = boots(image, "kvm", PROBE_S, Path(tmp))
        if ok:
            chosen = Accel("kvm", "a probe boot under KVM reached the guest's init")
        else:
            chosen = Accel("qemu", f"/dev/kvm is there but a probe boot under it failed: {last}")
    cache.parent.mkdir(parents=True, exist_ok=True)
    cache.write_text(json.dumps({"key": key, **chosen.__dict__}, indent=2) + "\n")
    say(f"guests will run as {chosen.words} ({chosen.reason})")
    return chosen
