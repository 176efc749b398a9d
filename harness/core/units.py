"""Sizes as fio and the spec write them ("4k", "64M", "1GiB", Kubernetes' "2Gi")."""

from __future__ import annotations

import re

_UNITS = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}
_SIZE = re.compile(r"^(\d+(?:\.\d+)?)([kmgt]?)(?:i?b)?$")


def size_bytes(size: str) -> int:
    """fio's size notation in bytes (fio's default kb_base=1024: 4k is 4096)."""
    text = size.strip().lower()
    if text[-2:] in ("ki", "mi", "gi", "ti"):  # Kubernetes' binary suffixes
        text += "b"
    match = _SIZE.match(text)
    if not match:
        raise ValueError(f"not a size: {size!r}")
    return int(float(match.group(1)) * _UNITS[match.group(2)])
