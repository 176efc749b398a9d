"""Container images for the Kubernetes testbed, built locally (no registry is reachable)
and cached as OCI archives that `ctr images import` takes:

- registry.local/pause:3.10 — a static C program that sleeps until signalled;
- registry.local/fio:3.33 — busybox-static (sh, mkdir, rm …) plus this host's fio and the
  shared libraries it loads.

An archive is one uncompressed layer, written with fixed times and owners, so the same
files give the same digest.
"""

from __future__ import annotations

import hashlib
import io
import json
import shutil
import subprocess
import tarfile
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from harness.testbeds import TestbedError

REGISTRY = "registry.local"
PAUSE = f"{REGISTRY}/pause:3.10"
FIO = f"{REGISTRY}/fio:3.33"
PAUSE_C = r"""
#include <signal.h>
#include <unistd.h>
static void done(int sig) { (void)sig; _exit(0); }
int main(void) {
    signal(SIGINT, done); signal(SIGTERM, done);
    for (;;) pause();
}
"""


@dataclass(frozen=True)
class Image:
    name: str  # registry.local/NAME:TAG
    entrypoint: list[str]
    build: Callable[[Path], None]  # fills a root directory

    @property
    def archive_name(self) -> str:
        return self.name.split("/", 1)[1].replace(":", "-") + ".tar"


def _run(argv: list[str], what: str) -> None:
    done = subprocess.run(argv, capture_output=True, text=True, timeout=600, check=False)
    if done.returncode != 0:
        raise TestbedError(f"{what}: {' '.join(argv[:3])} exited {done.returncode}: "
                           f"{done.stderr.strip()[-500:]}")  # fmt: skip


def build_pause(root: Path) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        source = Path(tmp) / "pause.c"
        source.write_text(PAUSE_C)
        _run(["gcc", "-Os", "-static", "-o", str(root / "pause"), str(source)], "pause")


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


def build_fio(root: Path) -> None:
    busybox = Path("/bin/busybox")
    if not busybox.exists():
        raise TestbedError("the fio image needs busybox-static (tools/debian-packages.txt)")
    (root / "bin").mkdir()
    shutil.copy2(busybox, root / "bin" / "busybox")
    applets = subprocess.run([str(busybox), "--list"], capture_output=True, text=True,
                             check=True).stdout.split()  # fmt: skip
    for applet in applets:
        link = root / "bin" / applet
        if not link.exists():
            link.symlink_to("busybox")
    fio = shutil.which("fio")
    if fio is None:
        raise TestbedError("the fio image needs fio (tools/debian-packages.txt)")
    copy_program(root, Path(fio))
    for folder in ("tmp", "data", "etc"):
        (root / folder).mkdir(exist_ok=True)
    (root / "tmp").chmod(0o1777)
    (root / "etc" / "passwd").write_text("root:x:0:0:root:/root:/bin/sh\n")


IMAGES = (
    Image(PAUSE, ["/pause"], build_pause),
    Image(FIO, ["/bin/sh"], build_fio),
)


def _reset(info: tarfile.TarInfo) -> tarfile.TarInfo:
    info.mtime, info.uid, info.gid, info.uname, info.gname = 0, 0, 0, "root", "root"
    return info


def _layer(root: Path) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for path in sorted(root.rglob("*")):
            tar.add(path, arcname=str(path.relative_to(root)), recursive=False, filter=_reset)
    return buffer.getvalue()


def _blob(tar: tarfile.TarFile, data: bytes) -> dict[str, object]:
    digest = hashlib.sha256(data).hexdigest()
    info = _reset(tarfile.TarInfo(f"blobs/sha256/{digest}"))
    info.size = len(data)
    tar.addfile(info, io.BytesIO(data))
    return {"digest": f"sha256:{digest}", "size": len(data)}


def write_archive(image: Image, root: Path, archive: Path) -> None:
    """An OCI image layout archive of root/ as a single layer, named for containerd."""
    layer = _layer(root)
    config = {"architecture": "amd64", "os": "linux",
              "config": {"Entrypoint": image.entrypoint,
                         "Env": ["PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin"]},
              "rootfs": {"type": "layers",
                         "diff_ids": [f"sha256:{hashlib.sha256(layer).hexdigest()}"]}}  # fmt: skip
    partial = archive.with_suffix(".partial")
    with tarfile.open(partial, "w", format=tarfile.PAX_FORMAT) as tar:
        layer_ref = {"mediaType": "application/vnd.oci.image.layer.v1.tar", **_blob(tar, layer)}
        config_ref = {"mediaType": "application/vnd.oci.image.config.v1+json",
                      **_blob(tar, json.dumps(config).encode())}  # fmt: skip
        manifest = {"schemaVersion": 2, "mediaType": "application/vnd.oci.image.manifest.v1+json",
                    "config": config_ref, "layers": [layer_ref]}  # fmt: skip
        manifest_ref = {"mediaType": manifest["mediaType"],
                        **_blob(tar, json.dumps(manifest).encode()),
                        "annotations": {"io.containerd.image.name": image.name,
                                        "org.opencontainers.image.ref.name":
                                        image.name.rsplit(":", 1)[1]}}  # fmt: skip
        index = {"schemaVersion": 2, "manifests": [manifest_ref]}
        for name, data in (("oci-layout", {"imageLayoutVersion": "1.0.0"}),
                           ("index.json", index)):  # fmt: skip
            text = json.dumps(data).encode()
            info = _reset(tarfile.TarInfo(name))
            info.size = len(text)
            tar.addfile(info, io.BytesIO(text))
    partial.replace(archive)


def ensure_images(folder: Path, say: Callable[[str], None]) -> list[Path]:
    """The archives of every image, built into folder/ when missing."""
    folder.mkdir(parents=True, exist_ok=True)
    archives = []
    for image in IMAGES:
        archive = folder / image.archive_name
        if not archive.exists():
            with tempfile.TemporaryDirectory(dir=folder) as tmp:
                image.build(Path(tmp))
                write_archive(image, Path(tmp), archive)
            say(f"built image {image.name} ({archive.stat().st_size / 2**20:.0f} MiB)")
        archives.append(archive)
    return archives
