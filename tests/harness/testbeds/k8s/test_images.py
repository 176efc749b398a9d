"""harness/testbeds/k8s/images.py: an OCI archive containerd can import: its index names
the image, every blob is where its digest says, the config's diff_id is the layer's."""

from __future__ import annotations

import hashlib
import io
import json
import subprocess
import tarfile
from pathlib import Path

from harness.testbeds.k8s.images import Image, debian_mirror, mirror_in, write_archive
from tests.harness.helpers import REPO


def test_an_archive_is_an_oci_layout_with_the_images_name(tmp_path):
    root = tmp_path / "root"
    (root / "bin").mkdir(parents=True)
    (root / "bin" / "hello").write_text("#!/bin/sh\necho hello\n")
    image = Image("registry.local/hello:1.0", ["/bin/hello"], lambda _: None)
    archive = tmp_path / image.archive_name
    write_archive(image, root, archive)
    with tarfile.open(archive) as tar:
        files = {m.name: tar.extractfile(m).read() for m in tar.getmembers() if m.isfile()}
    assert json.loads(files["oci-layout"]) == {"imageLayoutVersion": "1.0.0"}
    [entry] = json.loads(files["index.json"])["manifests"]
    assert entry["annotations"]["io.containerd.image.name"] == "registry.local/hello:1.0"
    for name, data in files.items():
        if name.startswith("blobs/sha256/"):
            assert hashlib.sha256(data).hexdigest() == name.rsplit("/", 1)[1]
    manifest = json.loads(files[f"blobs/sha256/{entry['digest'].split(':')[1]}"])
    config = json.loads(files[f"blobs/sha256/{manifest['config']['digest'].split(':')[1]}"])
    layer = files[f"blobs/sha256/{manifest['layers'][0]['digest'].split(':')[1]}"]
    assert config["rootfs"]["diff_ids"] == [f"sha256:{hashlib.sha256(layer).hexdigest()}"]
    assert config["config"]["Entrypoint"] == ["/bin/hello"]
    with tarfile.open(fileobj=io.BytesIO(layer)) as inner:
        assert inner.extractfile("bin/hello").read() == b"#!/bin/sh\necho hello\n"
    again = tmp_path / "again.tar"
    write_archive(image, root, again)  # same files, same digests
    assert again.read_bytes() == archive.read_bytes()


FIXTURES = Path(__file__).parent / "fixtures" / "apt-indextargets"


def test_the_mirror_is_the_one_apt_uses_for_bookworm_packages():
    captured = (FIXTURES / "indextargets.txt").read_text()
    assert mirror_in(captured) == "http://deb.debian.org/debian"
    # a source list that names bookworm only for its sources, or only other suites
    assert mirror_in("http://m.example/debian/ bookworm deb-src\n") is None
    assert mirror_in("http://a.example/debian/ trixie deb\nhttp://b.example/d/ bookworm deb") == (
        "http://b.example/d"
    )


def test_the_images_use_the_mirror_the_setup_script_finds(monkeypatch):
    monkeypatch.delenv("VOLPERF_DEBIAN_MIRROR", raising=False)
    script = subprocess.run(
        [str(REPO / "tools" / "debian-mirror.sh")], capture_output=True, text=True, check=True
    )
    assert debian_mirror() == script.stdout.strip()
    monkeypatch.setenv("VOLPERF_DEBIAN_MIRROR", "http://mirror.example/debian/")
    assert debian_mirror() == "http://mirror.example/debian"
