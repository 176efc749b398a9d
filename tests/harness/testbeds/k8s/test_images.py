"""harness/testbeds/k8s/images.py: an OCI archive containerd can import: its index names
the image, every blob is where its digest says, the config's diff_id is the layer's."""

from __future__ import annotations

import hashlib
import io
import json
import tarfile

from harness.testbeds.k8s.images import Image, write_archive


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
