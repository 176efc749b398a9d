"""Root filesystems made of this host's programs: busybox-static with its applets, and host
programs copied with every shared library they load (the Kubernetes testbed's small
images, the OpenStack testbed's guest image)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from harness.testbeds import TestbedError


def _shared_libraries(program: Path) -> list[Path]:
    done = subprocess.run(["ldd", str(program)], capture_output=True, text=True, check=False)
    found = []
    for line in done.stdout.splitlines():
        parts = line.split()
        path = parts[2] if "=>" in parts and len(parts) > 2 else parts[0]
        if path.startswith("/"):
            found.append(Path(path))
    return found


def copy_program(root: Path, program: Path) -> None:
    """A host program with every shared library it loads, at the same paths."""
    for path in [program, *_shared_libraries(program)]:
        target = root / path.relative_to("/")
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(path.resolve(), target)


def busybox_root(root: Path, image: str) -> None:
    """busybox-static with a link for each of its applets, /tmp and root's passwd line."""
    busybox = Path("/bin/busybox")
    if not busybox.exists():
        raise TestbedError(f"the {image} image needs busybox-static (tools/debian-packages.txt)")
    (root / "bin").mkdir()
    shutil.copy2(busybox, root / "bin" / "busybox")
    applets = subprocess.run(
        [str(busybox), "--list"], capture_output=True, text=True, check=True
    ).stdout.split()
    for applet in applets:
        link = root / "bin" / applet
        if not link.exists():
            link.symlink_to("busybox")
    for folder in ("tmp", "data", "etc"):
        (root / folder).mkdir(exist_ok=True)
    (root / "tmp").chmod(0o1777)
    (root / "etc" / "passwd").write_text("root:x:0:0:root:/root:/bin/sh\n")
