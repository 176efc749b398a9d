from __future__ import annotations

import pytest

from harness.core.units import size_bytes


def test_fio_and_kubernetes_sizes():
    assert size_bytes("4k") == size_bytes("4KiB") == size_bytes("4Ki") == 4096
    assert size_bytes("64M") == size_bytes("64Mi") == 64 * 2**20
    assert size_bytes("2Gi") == size_bytes("2g") == 2 * 2**30
    for bad in ("2i", "Gi", "2 GB x"):
        with pytest.raises(ValueError, match="not a size"):
            size_bytes(bad)
