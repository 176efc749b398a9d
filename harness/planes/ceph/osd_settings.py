"""The OSDs' own settings that decide how client I/O and recovery share them, as each OSD
says it runs with them at a campaign's start (`ceph tell osd.N config get NAME`), wherever
they were set: its ceph.conf, the monitors' configuration or its command line.

A study of recovery varies them (mClock's profiles), so a campaign keeps them in its
environment and `volperf compare` lists a difference. An OSD that is down or does not
answer (a user without the caps to ask) is left out; OSDs that disagree are each named.
"""

from __future__ import annotations

from typing import Any

from harness.planes.ceph.access import CephError, mon_command, osd_config_get

# the scheduler between client I/O, recovery and scrub, and mClock's share of them
OSD_SETTINGS = ("osd_op_queue", "osd_mclock_profile")
TIMEOUT_S = 5


def up_osds(cluster: Any) -> list[int]:
    """The OSDs the monitors have as up (a down one would not answer before the timeout)."""
    osds = mon_command(cluster, "osd dump").get("osds", [])
    return [int(o["osd"]) for o in osds if o.get("up")]


def agreed(values: dict[int, str]) -> str | None:
    """One value where every OSD that answered gives it; else each value with its OSDs."""
    if not values:
        return None
    by_value: dict[str, list[int]] = {}
    for osd, value in sorted(values.items()):
        by_value.setdefault(value, []).append(osd)
    if len(by_value) == 1:
        return next(iter(by_value))
    return "; ".join(
        f"{value} ({', '.join(f'osd.{o}' for o in osds)})" for value, osds in by_value.items()
    )


def osd_settings(cluster: Any, names: tuple[str, ...] = OSD_SETTINGS) -> dict[str, str]:
    """Each setting's value as the up OSDs say it; a setting none of them gave is absent."""
    try:
        osds = up_osds(cluster)
    except (CephError, ValueError):
        return {}
    found: dict[str, str] = {}
    for name in names:
        values: dict[int, str] = {}
        for osd in osds:
            try:
                values[osd] = osd_config_get(cluster, osd, name, TIMEOUT_S)
            except (CephError, ValueError, KeyError):
                continue
        value = agreed(values)
        if value is not None:
            found[name] = value
    return found
