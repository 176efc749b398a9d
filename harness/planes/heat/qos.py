"""Cinder QoS of a Heat step's volumes, checked against what fio measured in each VM.

A volume type's QoS specs with consumer ``front-end`` (or ``both``) are limits Nova hands
to the hypervisor with the volume's connection (libvirt's ``<iotune>``), so QEMU throttles
the VM's disk to them; ``back-end`` ones are left to the storage driver. Each VM's volume,
its type and the type's QoS specs are read from Cinder after the step and kept as Cinder
answered them (raw/heat/NAME/qos.json); per-GiB specs (``total_iops_sec_per_gb``) count
at the volume's size, as Cinder hands them out. A consumer whose rate exceeds a limit by
more than TOLERANCE is flagged, and so is a limit asked for that the run's path could not
apply: fio on the volume's RBD image from the host (the testbed's stand-in), or a volume
that did not get the asked type."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

QOS_FILE = "qos.json"  # raw/heat/NAME/qos.json: per consumer, its volume, type and QoS
TOLERANCE = 0.05  # a rate this much above its limit was not held to it
RATE_KEYS = tuple(
    f"{scope}_{unit}_sec" for unit in ("iops", "bytes") for scope in ("total", "read", "write")
)
PER_GB = "_per_gb"
APPLIED_BY = {"front-end": "QEMU", "both": "QEMU", "back-end": "the storage back end"}


def rate_limits(specs: dict[str, Any], size_gib: int) -> dict[str, float]:
    """The rate limits among a QoS spec's keys (IOPS and bytes per second, total, read
    and write), per-GiB ones times the volume's size; bursts (``*_max``) left out."""
    limits: dict[str, float] = {}
    for key in RATE_KEYS:
        values = []
        if specs.get(key) not in (None, ""):
            values.append(float(specs[key]))
        if specs.get(key + PER_GB) not in (None, ""):
            values.append(float(specs[key + PER_GB]) * size_gib)
        positive = [v for v in values if v > 0]
        if positive:
            limits[key] = min(positive)
    return limits


def measured_rate(key: str, read: tuple[float, float], write: tuple[float, float]) -> float:
    """The rate a limit bounds, from a consumer's (IOPS, bytes/s) read and written."""
    unit = 0 if "_iops_" in key else 1
    if key.startswith("read"):
        return read[unit]
    if key.startswith("write"):
        return write[unit]
    return read[unit] + write[unit]


@dataclass(frozen=True)
class QosCheck:
    """One consumer's volume, its type's QoS and how its figures stood against them."""

    consumer: str
    volume_type: str
    qos_consumer: str  # front-end, back-end, both; "" when the type has no QoS
    limits: dict[str, float]
    measured: dict[str, float]
    exceeded: tuple[str, ...]  # keys whose measured rate is above limit x (1 + TOLERANCE)

    def summary(self) -> dict[str, Any]:
        return {
            "volume_type": self.volume_type,
            "qos_consumer": self.qos_consumer,
            "limits": self.limits,
            "measured": {k: round(v, 1) for k, v in self.measured.items()},
            "exceeded": list(self.exceeded),
        }


def check(
    consumer: str, kept: dict[str, Any], read: tuple[float, float], write: tuple[float, float]
) -> QosCheck:
    """A consumer's QoS check from its entry of qos.json and its (IOPS, bytes/s) figures."""
    volume = kept.get("volume") or {}
    specs = kept.get("qos_specs") or {}
    limits = rate_limits(specs.get("specs") or {}, int(volume.get("size") or 0))
    measured = {key: measured_rate(key, read, write) for key in limits}
    exceeded = tuple(k for k, v in measured.items() if v > limits[k] * (1 + TOLERANCE))
    return QosCheck(
        consumer,
        volume.get("volume_type") or "",
        specs.get("consumer", "") if limits else "",
        limits,
        measured,
        exceeded,
    )


def _number(value: float) -> str:
    return f"{value:,.0f}"


def warnings_of(
    checks: list[QosCheck], kept: dict[str, dict[str, Any]], asked_type: str, device_mode: str
) -> list[tuple[str, str]]:
    """(code, text) of each way the step's QoS misled: a limit not held to, a limit the
    run's path bypassed, a volume without the asked type, limits that could not be read."""
    found: list[tuple[str, str]] = []
    for c in checks:
        for key in c.exceeded:
            over = c.measured[key] / c.limits[key] - 1
            by = APPLIED_BY.get(c.qos_consumer, "nothing")
            found.append(
                (
                    "qos-exceeded",
                    f"{c.consumer}: {_number(c.measured[key])} against its volume type "
                    f"{c.volume_type}'s {key} of {_number(c.limits[key])} (+{over:.0%}): "
                    f"the limit ({c.qos_consumer}, applied by {by}) did not hold",
                )
            )
    limited = [c.consumer for c in checks if c.limits and c.qos_consumer != "back-end"]
    if limited and device_mode == "rbd":
        found.append(
            (
                "qos-bypassed",
                f"{', '.join(limited)}: front-end QoS limits asked but not applied: fio "
                "ran on each volume's RBD image from the host (device_mode rbd, the "
                "testbed's stand-in), not on a VM's disk, which QEMU throttles",
            )
        )
    other = [c.consumer for c in checks if asked_type and c.volume_type != asked_type]
    if other:
        found.append(
            (
                "qos-type",
                f"{', '.join(other)}: the volume is not of the asked type {asked_type}",
            )
        )
    unread = sorted({entry["error"] for entry in kept.values() if entry.get("error")})
    if unread and asked_type:  # none asked: a user who may not read them is not told
        found.append(("qos-unread", f"QoS limits not checked: {'; '.join(unread)}"))
    return found


def console_line(kept: dict[str, dict[str, Any]]) -> str:
    """One line for the terminal: each VM's measured rates over its limits, and whether
    every limit held (from the step's summary, heat.qos)."""
    parts = []
    for consumer, c in sorted(kept.items()):
        pairs = [f"{k} {c['measured'][k]:,.0f}/{v:,.0f}" for k, v in c["limits"].items()]
        parts.append(f"{consumer} {', '.join(pairs) or 'no limit'}")
    exceeded = sorted(n for n, c in kept.items() if c["exceeded"])
    verdict = "no limits" if not any(c["limits"] for c in kept.values()) else "held"
    if exceeded:
        verdict = f"not held by {', '.join(exceeded)}"
    return f"volume QoS, measured/limit: {'; '.join(parts)}: {verdict}"
