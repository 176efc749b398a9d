"""The changes a verdict calls "same" or flags, alone: the command line shows them as its
options' defaults without importing the comparison (and every tool's declaration)."""

from __future__ import annotations

TOLERANCE = 0.02  # a change within ±2 % (or the run-to-run spread, if larger) is "same"
HISTORY_THRESHOLD = 0.10  # a change beyond ±10 % from the previous campaign is flagged
