"""Targets: where a campaign's consumers run (one module per target)."""

from harness.targets.base import StepOutcome, Target

__all__ = ["StepOutcome", "Target"]
