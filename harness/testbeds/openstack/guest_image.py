"""The real guests' image, built from Debian packages and this host's programs, cached and
keyed like the Kubernetes testbed's images. AMI-style, three files:

- ``vmlinuz``: Debian's cloud kernel (linux-image-cloud-amd64's current package, fetched
  with ``apt-get download`` from this machine's package sources);
- ``ramdisk.gz``: busybox-static, the kernel modules a guest needs to find its disks and
  network (virtio PCI, disk and net; the config drive's IDE CD-ROM and ISO 9660: modules in
  that kernel) and an /init that loads them and mounts the root disk (guest/ramdisk-init.sh);
- ``root.qcow2``: an ext4 root disk of busybox-static, this host's fio and curl with their
  libraries, and a small init (guest/boot.sh, guest/user-data.sh under busybox init) that
  does for the image what cloud-init does for a RAW ``#!`` user_data: hostname, the static
  network Nova writes on the config drive, /dev/disk/by-id links from virtio serials, then
  the user_data once, its output on the console.

cloud-init itself is not used: it is Python, the guest's CPU here is emulated (TCG, about
5.6 times slower than the host's), and the template's user_data is a plain ``#!`` script.
"""

from __future__ import annotations

import gzip
import hashlib
import re
import shutil
import subprocess
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from harness.host.buildlock import build_lock
from harness.host.gotool import cache_base
from harness.testbeds import TestbedError
from harness.testbeds.rootfs import busybox_root, copy_program

Say = Callable[[str], None]
KERNEL_PACKAGE = "linux-image-cloud-amd64"  # Debian's metapackage: its Depends is the kernel
# what the ramdisk loads (with what they depend on, dependencies first)
MODULES = ("virtio_pci", "virtio_blk", "virtio_net", "ata_piix", "sr_mod", "isofs")
PROGRAMS = ("fio", "curl")
GUEST_FILES = Path(__file__).with_name("guest")
COMMAND_LINE = "root=LABEL=volperf-root console=ttyS0"
# under TCG, Nova's own kernel command line adds no_timer_check (nova/virt/libvirt/driver.py
# _set_guest_for_inst_kernel), which the image's os_command_line replaces: without it a
# guest starved of CPU fails the kernel's IO-APIC timer check and panics at boot ("IO-APIC +
# timer doesn't work!"; a cold suite on a loaded machine, stop 63)
EMULATED_CPU_OPTIONS = "no_timer_check"
ROOT_SPARE_MIB = 64  # free room on the root disk beyond its files (logs, the agent's files)
BUILD_TIMEOUT_S = 600


@dataclass(frozen=True)
class GuestImage:
    """A built image: its folder holds vmlinuz, ramdisk.gz and root.qcow2."""

    folder: Path
    kernel_release: str  # what `uname -r` says in the guest

    @property
    def kernel(self) -> Path:
        return self.folder / "vmlinuz"

    @property
    def ramdisk(self) -> Path:
        return self.folder / "ramdisk.gz"

    @property
    def root(self) -> Path:
        return self.folder / "root.qcow2"


def kernel_command_line(virt_type: str) -> str:
    """The guests' kernel command line (the image's os_command_line) for Nova's virt_type."""
    return f"{COMMAND_LINE} {EMULATED_CPU_OPTIONS}" if virt_type == "qemu" else COMMAND_LINE


def _run(argv: list[str], what: str, cwd: Path | None = None) -> str:
    try:
        done = subprocess.run(
            argv, capture_output=True, text=True, cwd=cwd, timeout=BUILD_TIMEOUT_S, check=False
        )
    except FileNotFoundError:
        missing = f"{argv[0]} is not installed (tools/debian-packages.txt)"
        raise TestbedError(f"{what}: {missing}") from None
    except subprocess.TimeoutExpired:
        raise TestbedError(f"{what}: {' '.join(argv[:3])} took over {BUILD_TIMEOUT_S} s") from None
    if done.returncode != 0:
        raise TestbedError(
            f"{what}: {' '.join(argv[:3])} exited {done.returncode}: {done.stderr.strip()[-500:]}"
        )
    return done.stdout


def kernel_package() -> tuple[str, str]:
    """The cloud kernel's package and its version, as this machine's apt knows them."""
    depends = _run(["apt-cache", "depends", KERNEL_PACKAGE], "the guest kernel")
    found = re.search(r"Depends: (linux-image-\S+)", depends)
    if not found:
        raise TestbedError(f"the guest kernel: apt knows no {KERNEL_PACKAGE} (apt-get update?)")
    package = found.group(1)
    policy = _run(["apt-cache", "policy", package], "the guest kernel")
    version = re.search(r"Candidate: (\S+)", policy)
    if not version or version.group(1) == "(none)":
        raise TestbedError(f"the guest kernel: no installable version of {package}")
    return package, version.group(1)


def _program_versions() -> str:
    versions = [_run(["fio", "--version"], "the guest image").strip()]
    versions.append(_run(["curl", "--version"], "the guest image").splitlines()[0])
    versions.append(_run(["busybox"], "the guest image").splitlines()[0])
    return "\n".join(versions)


def image_key(package: str, version: str) -> str:
    """What the image is made of: the kernel package, the programs' versions and the
    init scripts; a change in any of them makes a new image."""
    digest = hashlib.sha256(f"{package}={version}\n{_program_versions()}\n".encode())
    for path in sorted(GUEST_FILES.iterdir()):
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return f"{package.removeprefix('linux-image-')}-{digest.hexdigest()[:12]}"


def cache_folder() -> Path:
    return cache_base() / "guest"


def ensure_guest_image(say: Say, folder: Path | None = None) -> GuestImage:
    """The guest image, built into ``folder`` (volperf's cache) when missing."""
    package, version = kernel_package()
    release = package.removeprefix("linux-image-")
    image = GuestImage((folder or cache_folder()) / image_key(package, version), release)
    if not image.root.exists():
        with build_lock(image.folder, say):
            if not image.root.exists():  # or built while this one waited
                _build(image, package, say)
    return image


def _build(image: GuestImage, package: str, say: Say) -> None:
    say(f"building the guest image ({package}, busybox, fio, curl)")
    image.folder.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=image.folder.parent) as tmp:
        work = Path(tmp)
        _run(["apt-get", "download", package], "the guest kernel", cwd=work)
        (deb,) = work.glob("linux-image-*.deb")
        kernel_tree = work / "kernel"
        _run(["dpkg-deb", "-x", str(deb), str(kernel_tree)], "the guest kernel")
        built = work / "image"
        built.mkdir()
        shutil.copy2(kernel_tree / "boot" / f"vmlinuz-{image.kernel_release}", built / "vmlinuz")
        _write_ramdisk(kernel_tree / "lib" / "modules" / image.kernel_release, built)
        _write_root(work / "root", built)
        built.replace(image.folder)
    size = sum(p.stat().st_size for p in image.folder.iterdir()) / 2**20
    say(f"built the guest image {image.folder.name} ({size:.0f} MiB)")


def module_order(modules_dep: str, wanted: tuple[str, ...]) -> list[str]:
    """The modules' paths (as modules.dep names them) that loading ``wanted`` takes, each
    after every module it depends on."""
    depends: dict[str, list[str]] = {}
    by_name: dict[str, str] = {}
    for line in modules_dep.splitlines():
        module, _, needs = line.partition(":")
        depends[module] = needs.split()
        by_name[Path(module).name.split(".ko")[0].replace("-", "_")] = module
    order: list[str] = []

    def add(module: str) -> None:
        if module in order:
            return
        for need in depends.get(module, []):
            add(need)
        order.append(module)

    for name in wanted:
        if name not in by_name:
            raise TestbedError(f"the guest kernel has no module {name}")
        add(by_name[name])
    return order


def _write_ramdisk(modules: Path, built: Path) -> None:
    # modules.dep is made by depmod at the package's installation: busybox's depmod here
    root = built.parent / "ramdisk"
    root.mkdir()
    busybox_root(root, "guest ramdisk")
    for folder in ("proc", "sys", "dev"):
        (root / folder).mkdir()
    _run(["busybox", "depmod", "-b", str(modules.parents[2]), modules.name], "the guest ramdisk")
    order = module_order((modules / "modules.dep").read_text(), MODULES)
    for module in order:
        target = root / "lib" / "modules" / module
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(modules / module, target)
    (root / "modules.list").write_text("".join(f"{m}\n" for m in order))
    shutil.copy2(GUEST_FILES / "ramdisk-init.sh", root / "init")
    files = sorted(str(p.relative_to(root)) for p in root.rglob("*"))
    archive = subprocess.run(
        ["busybox", "cpio", "-o", "-H", "newc"],
        input="\n".join(files).encode(),
        cwd=root,
        capture_output=True,
        check=True,
    ).stdout
    (built / "ramdisk.gz").write_bytes(gzip.compress(archive, mtime=0))


def _write_root(root: Path, built: Path) -> None:
    root.mkdir()
    busybox_root(root, "guest root")
    for program in PROGRAMS:
        found = shutil.which(program)
        if found is None:
            raise TestbedError(f"the guest image needs {program} (tools/debian-packages.txt)")
        copy_program(root, Path(found))
    for folder in ("proc", "sys", "dev", "run", "root", "sbin", "etc/volperf", "mnt"):
        (root / folder).mkdir(parents=True, exist_ok=True)
    (root / "sbin" / "init").symlink_to("/bin/busybox")
    shutil.copy2(GUEST_FILES / "inittab", root / "etc" / "inittab")
    for script in ("boot.sh", "user-data.sh"):
        shutil.copy2(GUEST_FILES / script, root / "etc" / "volperf" / script)
    (root / "etc" / "group").write_text("root:x:0:\n")
    (root / "etc" / "hosts").write_text("127.0.0.1 localhost\n")
    files_mib = sum(p.stat().st_size for p in root.rglob("*") if p.is_file()) / 2**20
    raw = built.parent / "root.raw"
    size = f"{int(files_mib * 1.2) + ROOT_SPARE_MIB}M"
    _run(["mkfs.ext4", "-q", "-L", "volperf-root", "-d", str(root), str(raw), size], "root disk")
    _run(["qemu-img", "convert", "-c", "-O", "qcow2", str(raw), str(built / "root.qcow2")], "qcow2")
    raw.unlink()
