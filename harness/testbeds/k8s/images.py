"""Container images for the Kubernetes testbed, built locally (no registry is reachable)
and cached as OCI archives that `ctr images import` takes:

- registry.local/pause:3.10 — a static C program that sleeps until signalled;
- registry.local/fio:3.33 — busybox-static (sh, mkdir, rm …) plus this host's fio and the
  shared libraries it loads;
- registry.local/apps:bookworm-3 — the application workloads' (git, build, redis, broker):
  busybox-static (sh, awk, tar, gzip, df …) plus this host's git (its builtins under
  /usr/lib/git-core; no scripts, no remote helpers), make, redis-server and redis-cli, with
  their libraries, volperf's YCSB client (harness/tools/ycsb) and NATS's server and bench
  client (harness/tools/nats), static;
- registry.local/mariadb-sysbench:bookworm and registry.local/postgresql-pgbench:bookworm —
  Debian bookworm minbase with mariadb-server and sysbench, or postgresql-15 (pgbench
  included), made by debootstrap from Debian's mirror ($VOLPERF_DEBIAN_MIRROR, else the
  one this machine's apt uses for bookworm) with the downloaded packages kept beside the
  archives.

An archive is one uncompressed layer, written with fixed times (and, for the small images,
fixed owners), so the same files give the same digest. Database images keep their files'
owners: the servers' own users own their folders.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import shutil
import subprocess
import tarfile
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from harness.host.buildlock import build_lock
from harness.host.process import BuildTimeout, run_build
from harness.testbeds import TestbedError
from harness.testbeds.mounts import unmount_under
from harness.testbeds.rootfs import busybox_root, copy_program
from harness.tools.gobuilt import GoProgramError
from harness.tools.nats.build import CLIENT, SERVER, ensure_nats
from harness.tools.ycsb.build import NAME as YCSB
from harness.tools.ycsb.build import ensure_ycsb

REGISTRY = "registry.local"
PAUSE = f"{REGISTRY}/pause:3.10"
FIO = f"{REGISTRY}/fio:3.33"
GIT_CORE = Path("/usr/lib/git-core")
MARIADB = f"{REGISTRY}/mariadb-sysbench:bookworm"
POSTGRESQL = f"{REGISTRY}/postgresql-pgbench:bookworm"
SUITE = "bookworm"
APPS = f"{REGISTRY}/apps:{SUITE}-3"  # this host's git, make and redis: bookworm's
DEBOOTSTRAP_TIMEOUT_S = 1800

Say = Callable[[str], None]
# what a container never needs: package lists and caches, docs, translations, the data
# directory the package made (volperf initializes its own on the PVC)
DROPPED = (
    "var/cache/apt",
    "var/lib/apt/lists",
    "usr/share/doc",
    "usr/share/man",
    "usr/share/locale",
    "usr/share/info",
    "var/lib/mysql",
    "var/lib/postgresql",
    "var/log",
    "dev",
    "proc",
    "sys",
    "run",
)
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
    build: Callable[[Path, Say], None]  # fills a root directory, saying how it goes
    keep_owners: bool = False

    @property
    def archive_name(self) -> str:
        return self.name.split("/", 1)[1].replace(":", "-") + ".tar"


def _run(argv: list[str], what: str, say: Say, timeout: float = 600) -> None:
    try:
        done = run_build(argv, what, say, timeout, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    except BuildTimeout as exc:
        raise TestbedError(str(exc)) from None
    if done.returncode != 0:
        raise TestbedError(
            f"{what}: {' '.join(argv[:3])} exited {done.returncode}: {done.stderr.strip()[-500:]}"
        )


def build_pause(root: Path, say: Say) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        source = Path(tmp) / "pause.c"
        source.write_text(PAUSE_C)
        _run(["gcc", "-Os", "-static", "-o", str(root / "pause"), str(source)], "pause", say)


def build_fio(root: Path, say: Say) -> None:
    busybox_root(root, "fio")
    fio = shutil.which("fio")
    if fio is None:
        raise TestbedError("the fio image needs fio (tools/debian-packages.txt)")
    copy_program(root, Path(fio))


def build_apps(root: Path, say: Say) -> None:
    busybox_root(root, "applications'")
    programs = [shutil.which(name) for name in ("make", "redis-server", "redis-cli")]
    if not (GIT_CORE / "git").exists() or None in programs:
        raise TestbedError(
            "the applications' image needs git, make and redis-server (tools/debian-packages.txt)"
        )
    for program in programs:
        copy_program(root, Path(str(program)))
    try:
        ycsb = ensure_ycsb(say)
        nats = ensure_nats(say)
    except GoProgramError as exc:
        raise TestbedError(f"the applications' image: {exc}") from None
    local = root / "usr" / "local" / "bin"
    local.mkdir(parents=True)
    shutil.copy2(ycsb, local / YCSB)
    for name in (SERVER, CLIENT):
        shutil.copy2(nats / name, local / name)
    copy_program(root, GIT_CORE / "git")
    (root / "usr" / "bin").mkdir(parents=True, exist_ok=True)
    (root / "usr" / "bin" / "git").symlink_to(GIT_CORE / "git")
    for entry in GIT_CORE.iterdir():  # its builtins: git-upload-pack, git-index-pack …
        if entry.is_symlink() and os.readlink(entry) == "git":
            (root / GIT_CORE.relative_to("/") / entry.name).symlink_to("git")


INDEXTARGETS = ["apt-get", "indextargets", "--format", "$(REPO_URI) $(CODENAME) $(TARGET_OF)"]


def mirror_in(indextargets: str, suite: str = SUITE) -> str | None:
    """The first repository apt fetches SUITE's binary packages from, in the output of
    ``apt-get indextargets --format '$(REPO_URI) $(CODENAME) $(TARGET_OF)'``."""
    for line in indextargets.splitlines():
        fields = line.split()
        if len(fields) == 3 and fields[1] == suite and fields[2] == "deb":
            return fields[0].rstrip("/")
    return None


def debian_mirror() -> str:
    """$VOLPERF_DEBIAN_MIRROR, else the mirror this machine's apt already uses for
    bookworm (as tools/debian-mirror.sh finds it), fetching apt's lists once if it has
    none yet; TestbedError when apt knows no bookworm mirror."""
    if os.environ.get("VOLPERF_DEBIAN_MIRROR"):
        return os.environ["VOLPERF_DEBIAN_MIRROR"].rstrip("/")

    def indextargets() -> str:
        done = subprocess.run(INDEXTARGETS, capture_output=True, text=True, timeout=60)
        return done.stdout if done.returncode == 0 else ""

    mirror = mirror_in(indextargets())
    if mirror is None and os.geteuid() == 0:  # apt's lists not fetched yet
        subprocess.run(["apt-get", "update", "-qq"], capture_output=True, timeout=600)
        mirror = mirror_in(indextargets())
    if mirror is None:
        raise TestbedError(
            f"no Debian {SUITE} mirror in apt's sources (apt-get indextargets) for the "
            "database images' debootstrap: set VOLPERF_DEBIAN_MIRROR"
        )
    return mirror


def debootstrap(root: Path, packages: list[str], debs: Path, say: Say) -> None:
    """Debian minbase with the packages into root/, trimmed to what a container runs."""
    if shutil.which("debootstrap") is None:
        raise TestbedError("the database images need debootstrap (tools/debian-packages.txt)")
    debs.mkdir(parents=True, exist_ok=True)
    mirror = debian_mirror()
    try:
        _run(
            [
                "debootstrap",
                "--variant=minbase",
                f"--cache-dir={debs}",
                f"--include={','.join(packages)}",
                SUITE,
                str(root),
                mirror,
            ],
            f"debootstrap of {', '.join(packages)} from {mirror}",
            say,
            DEBOOTSTRAP_TIMEOUT_S,
        )
    finally:  # a failed debootstrap can leave its /proc mounted: never remove through it
        unmount_under(root)
    for name in DROPPED:
        shutil.rmtree(root / name, ignore_errors=True)
    for name in ("dev", "proc", "sys", "run", "var/log", "var/lib/mysql", "var/lib/postgresql"):
        (root / name).mkdir(parents=True, exist_ok=True)


def _debs() -> Path:
    from harness.testbeds.k8s.build import cache_root

    return cache_root() / "debs"


def build_mariadb(root: Path, say: Say) -> None:
    debootstrap(root, ["mariadb-server", "mariadb-client", "sysbench"], _debs(), say)


def build_postgresql(root: Path, say: Say) -> None:
    debootstrap(root, ["postgresql-15"], _debs(), say)


IMAGES = (
    Image(PAUSE, ["/pause"], build_pause),
    Image(FIO, ["/bin/sh"], build_fio),
    Image(APPS, ["/bin/sh"], build_apps),
    Image(MARIADB, ["/bin/sh"], build_mariadb, keep_owners=True),
    Image(POSTGRESQL, ["/bin/sh"], build_postgresql, keep_owners=True),
)


def _reset(info: tarfile.TarInfo) -> tarfile.TarInfo:
    info.mtime, info.uid, info.gid, info.uname, info.gname = 0, 0, 0, "root", "root"
    return info


def _fixed_time(info: tarfile.TarInfo) -> tarfile.TarInfo:
    info.mtime, info.uname, info.gname = 0, "", ""  # numeric owners: the image's own users
    return info


def _layer(root: Path, target: Path, keep_owners: bool) -> str:
    """root/ as a tar file at target; its sha256."""
    reset = _fixed_time if keep_owners else _reset
    with tarfile.open(target, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for path in sorted(root.rglob("*")):
            tar.add(path, arcname=str(path.relative_to(root)), recursive=False, filter=reset)
    digest = hashlib.sha256()
    with target.open("rb") as layer:
        while chunk := layer.read(2**20):
            digest.update(chunk)
    return digest.hexdigest()


def _blob(tar: tarfile.TarFile, data: bytes) -> dict[str, object]:
    digest = hashlib.sha256(data).hexdigest()
    info = _reset(tarfile.TarInfo(f"blobs/sha256/{digest}"))
    info.size = len(data)
    tar.addfile(info, io.BytesIO(data))
    return {"digest": f"sha256:{digest}", "size": len(data)}


def _file_blob(tar: tarfile.TarFile, path: Path, digest: str) -> dict[str, object]:
    info = _reset(tarfile.TarInfo(f"blobs/sha256/{digest}"))
    info.size = path.stat().st_size
    with path.open("rb") as data:
        tar.addfile(info, data)
    return {"digest": f"sha256:{digest}", "size": info.size}


def write_archive(image: Image, root: Path, archive: Path) -> None:
    """An OCI image layout archive of root/ as a single layer, named for containerd."""
    layer = archive.with_suffix(".layer")
    layer_digest = _layer(root, layer, image.keep_owners)
    config = {
        "architecture": "amd64",
        "os": "linux",
        "config": {
            "Entrypoint": image.entrypoint,
            "Env": ["PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin"],
        },
        "rootfs": {"type": "layers", "diff_ids": [f"sha256:{layer_digest}"]},
    }
    partial = archive.with_suffix(".partial")
    with tarfile.open(partial, "w", format=tarfile.PAX_FORMAT) as tar:
        layer_ref = {
            "mediaType": "application/vnd.oci.image.layer.v1.tar",
            **_file_blob(tar, layer, layer_digest),
        }
        config_ref = {
            "mediaType": "application/vnd.oci.image.config.v1+json",
            **_blob(tar, json.dumps(config).encode()),
        }
        manifest = {
            "schemaVersion": 2,
            "mediaType": "application/vnd.oci.image.manifest.v1+json",
            "config": config_ref,
            "layers": [layer_ref],
        }
        manifest_ref = {
            "mediaType": manifest["mediaType"],
            **_blob(tar, json.dumps(manifest).encode()),
            "annotations": {
                "io.containerd.image.name": image.name,
                "org.opencontainers.image.ref.name": image.name.rsplit(":", 1)[1],
            },
        }
        index = {"schemaVersion": 2, "manifests": [manifest_ref]}
        for name, data in (("oci-layout", {"imageLayoutVersion": "1.0.0"}), ("index.json", index)):
            text = json.dumps(data).encode()
            info = _reset(tarfile.TarInfo(name))
            info.size = len(text)
            tar.addfile(info, io.BytesIO(text))
    layer.unlink()
    partial.replace(archive)


def ensure_images(folder: Path, say: Say) -> list[Path]:
    """The archives of every image, built into folder/ when missing."""
    folder.mkdir(parents=True, exist_ok=True)
    archives = []
    for image in IMAGES:
        archive = folder / image.archive_name
        if not archive.exists():
            with build_lock(archive, say):
                if not archive.exists():  # or built while this one waited
                    _build_image(image, folder, archive, say)
        archives.append(archive)
    return archives


def _build_image(image: Image, folder: Path, archive: Path, say: Say) -> None:
    if image.keep_owners:
        say(f"building image {image.name} (debootstrap: a minute or two)")
    with tempfile.TemporaryDirectory(dir=folder) as tmp:
        (Path(tmp) / "root").mkdir()
        image.build(Path(tmp) / "root", say)
        write_archive(image, Path(tmp) / "root", archive)
    say(f"built image {image.name} ({archive.stat().st_size / 2**20:.0f} MiB)")
