"""SLA ``volperf_warnings``: fail when an iteration of the data-plane scenario carries a
volperf warning (the table ``volperf warnings`` of its output: unwritten volumes, emulated
CPUs, low overlap, QoS limits exceeded, ...), e.g. ``volperf_warnings: {}``, or
``volperf_warnings: {ignore: [emulated-cpu]}`` to accept some codes. Failed iterations
count too: their output is added before they fail."""

from __future__ import annotations

import collections
from typing import Any

from rally import consts
from rally.task import sla

from harness.planes.rally.data_plane import warning_rows


@sla.configure(name="volperf_warnings")
class Warnings(sla.SLA):
    """No iteration carries a volperf warning, beyond the codes ``ignore`` lists."""

    CONFIG_SCHEMA = {
        "type": "object",
        "$schema": consts.JSON_SCHEMA,
        "properties": {
            "ignore": {
                "type": "array",
                "items": {"type": "string"},
                "description": "warning codes that do not fail the SLA",
            },
        },
        "additionalProperties": False,
    }

    def __init__(self, criterion_value: dict[str, Any]) -> None:
        super().__init__(criterion_value)
        self.ignored = set((criterion_value or {}).get("ignore") or [])
        self.codes: collections.Counter[str] = collections.Counter()
        self.iterations = 0

    def add_iteration(self, iteration: dict[str, Any]) -> bool:
        self.iterations += 1
        codes = {row["code"] for row in warning_rows(iteration)} - self.ignored
        self.codes.update(codes)
        self.success = not self.codes
        return self.success

    def merge(self, other: Warnings) -> bool:
        self.iterations += other.iterations
        self.codes.update(other.codes)
        self.success = not self.codes
        return self.success

    def details(self) -> str:
        if not self.codes:
            ignoring = f" (ignoring {', '.join(sorted(self.ignored))})" if self.ignored else ""
            return f"No volperf warnings in {self.iterations} iterations{ignoring} - Passed"
        found = ", ".join(
            f"{code} in {n} of {self.iterations} iterations"
            for code, n in sorted(self.codes.items())
        )
        return f"volperf warnings: {found} (their 'volperf warnings' tables say why) - Failed"
