"""What this machine is: CPU, OS, memory, the mount and device under a path, a tool's
version (the campaign's environment snapshot is made of these)."""

from __future__ import annotations

import os
import platform
import subprocess
from pathlib import Path
from typing import Any

from harness.host.hoststats import device_for_path, parse_meminfo


def _read(path: str) -> str:
    try:
        return Path(path).read_text(encoding="utf-8", errors="replace").strip()
    except OSError:
        return ""


def cpu() -> dict[str, Any]:
    models = [
        line.split(":", 1)[1].strip()
        for line in _read("/proc/cpuinfo").splitlines()
        if line.startswith("model name")
    ]
    return {"model": models[0] if models else platform.processor(), "count": os.cpu_count()}


def os_release() -> str:
    for line in _read("/etc/os-release").splitlines():
        if line.startswith("PRETTY_NAME="):
            return line.split("=", 1)[1].strip('"')
    return platform.platform()


def mount_of(path: Path) -> dict[str, str]:
    """File system type, source and options of the mount holding ``path``."""
    path = path.resolve()
    best: dict[str, str] = {}
    for line in _read("/proc/self/mountinfo").splitlines():
        left, _, right = line.partition(" - ")
        fields, rest = left.split(), right.split()
        mount_point = fields[4].replace("\\040", " ")
        if (path == Path(mount_point) or Path(mount_point) in path.parents) and len(
            mount_point
        ) >= len(best.get("mount_point", "")):
            best = {
                "mount_point": mount_point,
                "fstype": rest[0] if rest else "",
                "source": rest[1] if len(rest) > 1 else "",
                "options": fields[5],
            }
    return best


def storage(path: Path) -> dict[str, Any]:
    info: dict[str, Any] = {"path": str(path.resolve())}
    if path.is_dir():
        info.update(mount_of(path))
        st = os.statvfs(path)
        info["free_bytes"] = st.f_bavail * st.f_frsize
        info["size_bytes"] = st.f_blocks * st.f_frsize
    device = device_for_path(path) if path.exists() else None
    if device is not None:
        sys_block = Path("/sys/class/block") / device.name
        disk = sys_block if (sys_block / "queue").exists() else sys_block.resolve().parent
        info["device"] = {
            "name": device.name,
            "model": _read(f"{disk}/device/model") or _read(f"{disk}/device/vendor"),
            "rotational": _read(f"{disk}/queue/rotational") == "1",
            "scheduler": _read(f"{disk}/queue/scheduler"),
            "size_bytes": int(_read(f"{sys_block}/size") or 0) * 512,
        }
    return info


def tool_version(argv: list[str]) -> str:
    """The first line a tool prints of its version, or why there is none."""
    try:
        out = subprocess.run(argv, capture_output=True, text=True, timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"unknown ({exc})"
    lines = (out.stdout.strip() or out.stderr.strip()).splitlines()
    return lines[0] if lines else ""


def memory_kib() -> int | None:
    """The machine's memory (MemTotal), KiB."""
    return parse_meminfo(_read("/proc/meminfo")).get("MemTotal")


def directory_bytes(path: Path) -> int:
    """Bytes allocated on disk to the files under ``path`` (sparse files count what they
    hold); a file that vanishes while counted is skipped."""
    total = 0
    for root, _dirs, files in os.walk(path):
        for name in files:
            try:
                total += os.lstat(os.path.join(root, name)).st_blocks * 512
            except OSError:
                continue
    return total
