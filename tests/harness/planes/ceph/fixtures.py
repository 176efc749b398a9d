"""Real `ceph -s -f json` output captured from the testbed (fixtures/ceph/capture.sh)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

CEPH_FIXTURES = Path(__file__).parent / "fixtures"


def ceph_status(name: str) -> dict[str, Any]:
    """status-ok, status-peering, status-slow-ops, status-laggy or status-cephfs-*."""
    return json.loads((CEPH_FIXTURES / f"{name}.json").read_text())
