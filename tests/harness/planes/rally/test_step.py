"""A Rally step's records and warnings from what the runner kept in raw/."""

from __future__ import annotations

from pathlib import Path

from harness.planes.rally.step import rally_step


def test_a_task_rally_refused_says_why_in_its_warning():
    raw = Path(__file__).parent / "fixtures" / "refused-task"
    [warning] = rally_step(raw, "001").warnings
    assert warning.message == (
        "Rally task status crashed (aborted or crashed: figures cover part of the task): "
        "There is no Scenario plugin `no such scenario in control-plane.yaml: bogus` in any "
        "platform."
    )
