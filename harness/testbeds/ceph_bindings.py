"""Make Debian's python3-rados/python3-rbd importable in a virtualenv of another Python 3.11
(pyenv's venvs do not see /usr/lib/python3/dist-packages): link just the two extension
modules into a folder of the venv and add that folder to its path with a .pth file."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

DEBIAN_DIST = Path("/usr/lib/python3/dist-packages")
MODULES = ("rados", "rbd")


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
    for module in MODULES:
        source = DEBIAN_DIST / f"{module}{suffix}"
        if not source.exists():
            raise RuntimeError(f"{source} missing (python3-{module} for this Python?)")
        target = links / source.name
        target.unlink(missing_ok=True)
        target.symlink_to(source)
    (Path(site) / "volperf-debian-ceph-bindings.pth").write_text(f"{links}\n")
    check = subprocess.run([str(python), "-c", "import rados, rbd"], capture_output=True)
    if check.returncode != 0:
        raise RuntimeError(f"the rados/rbd bindings do not import in {venv}")


if __name__ == "__main__":
    try:
        link(Path(sys.argv[1]))
    except (RuntimeError, subprocess.CalledProcessError) as exc:
        sys.exit(f"volperf setup: {exc}")
