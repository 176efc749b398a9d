"""Make Debian's python3-rados/python3-rbd (and python3-libvirt, for Nova's libvirt driver
and the real guests' checks) importable in a virtualenv of another Python 3.11 (pyenv's
venvs do not see /usr/lib/python3/dist-packages): link just their modules into a folder
of the venv and add that folder to its path with a .pth file."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

DEBIAN_DIST = Path("/usr/lib/python3/dist-packages")
MODULES = ("rados", "rbd")
# python3-libvirt: pure-Python wrappers over its extension modules
LIBVIRT_FILES = ("libvirt.py", "libvirt_qemu.py", "libvirtaio.py")
LIBVIRT_MODULES = ("libvirtmod", "libvirtmod_qemu")


def link(venv: Path) -> None:
    """Link the bindings into ``venv``; RuntimeError naming what is missing."""
    venv = venv.absolute()
    python = venv / "bin" / "python"
    site, suffix = subprocess.run(
        [
            str(python),
            "-c",
            "import sysconfig; print(sysconfig.get_path('purelib')); "
            "print(sysconfig.get_config_var('EXT_SUFFIX'))",
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    links = venv / "debian-ceph-bindings"
    links.mkdir(exist_ok=True)
    sources = [DEBIAN_DIST / f"{module}{suffix}" for module in MODULES]
    sources += [DEBIAN_DIST / name for name in LIBVIRT_FILES]
    sources += [DEBIAN_DIST / f"{module}{suffix}" for module in LIBVIRT_MODULES]
    for source in sources:
        if not source.exists():
            package = "python3-libvirt" if "libvirt" in source.name else "python3-rados/-rbd"
            raise RuntimeError(f"{source} missing ({package} for this Python?)")
        target = links / source.name
        target.unlink(missing_ok=True)
        target.symlink_to(source)
    (Path(site) / "volperf-debian-ceph-bindings.pth").write_text(f"{links}\n")
    check = subprocess.run(
        [str(python), "-c", "import rados, rbd, libvirt, libvirt_qemu"], capture_output=True
    )
    if check.returncode != 0:
        raise RuntimeError(f"the rados/rbd/libvirt bindings do not import in {venv}")


if __name__ == "__main__":
    try:
        link(Path(sys.argv[1]))
    except (RuntimeError, subprocess.CalledProcessError) as exc:
        sys.exit(f"volperf setup: {exc}")
