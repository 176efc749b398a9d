"""What the real guests' tests give a guest: an OpenStack config drive as Nova writes one
(label config-2; meta_data.json, the RAW user_data and, for a static network, the
interfaces(5) file Nova injects with flat_injected)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path


def config_drive(folder: Path, user_data: str, interfaces: str = "") -> Path:
    """The ISO 9660 image of a config drive, written under ``folder``."""
    openstack = folder / "cd" / "openstack"
    latest = openstack / "latest"
    latest.mkdir(parents=True)
    meta: dict[str, object] = {
        "uuid": "00000000-0000-4000-8000-000000000001",
        "hostname": "volperf-test-guest.novalocal",
    }
    if interfaces:
        (openstack / "content").mkdir()
        (openstack / "content" / "0000").write_text(interfaces)
        meta["network_config"] = {"content_path": "/content/0000", "name": "interfaces"}
    (latest / "meta_data.json").write_text(json.dumps(meta))
    (latest / "user_data").write_text(user_data)
    iso = folder / "config.iso"
    subprocess.run(
        ["genisoimage", "-quiet", "-o", str(iso), "-V", "config-2", "-r", "-J", str(folder / "cd")],
        check=True,
    )
    return iso
