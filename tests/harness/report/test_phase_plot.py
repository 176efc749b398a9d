"""The phases' picture (report/plots.py: phase_plot) drawn from the kept Kubernetes node
crash (results/k8s-node-crash/): what is on it, read from the figure itself."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from matplotlib.colors import to_hex

from harness.report import plots

KEPT = Path(__file__).parents[3] / "results" / "k8s-node-crash" / "k8s-node-crash"


def _drawn(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, steps: list[dict]) -> Any:
    """The figure phase_plot draws, taken where it would be saved (and saved too)."""
    drawn = []
    save = plots.save

    def keep(fig: Any, directory: Path, stem: str) -> str:
        drawn.append(fig)
        return save(fig, directory, stem)

    monkeypatch.setattr(plots, "save", keep)
    assert plots.phase_plot(steps, tmp_path, "phases") == "phases"
    assert (tmp_path / "phases.png").stat().st_size > 10_000
    [fig] = drawn
    return fig


def _crash_step() -> dict:
    [step] = json.loads((KEPT / "summary.json").read_text())["steps"]
    return step


def test_the_phases_are_bands_the_faults_marks_and_the_sum_a_line(monkeypatch, tmp_path):
    step = _crash_step()
    [ax] = _drawn(monkeypatch, tmp_path, [step]).axes
    phases = step["phases"]["phases"]
    # a band per phase, where the phase is, in its state's colour
    bands = list(ax.patches)  # axvspan's: a rectangle (a polygon before matplotlib 3.9)
    assert len(bands) == len(phases) == 4
    for band, phase in zip(bands, phases, strict=True):
        xs = [x for x, _ in band.get_patch_transform().transform(band.get_path().vertices)]
        assert min(xs) == pytest.approx(phase["start_s"])
        assert max(xs) == pytest.approx(phase["start_s"] + phase["seconds"])
        assert to_hex(band.get_facecolor()) == plots.PHASE_COLOURS[phase["state"]]
    texts = [t.get_text().strip() for t in ax.texts]
    assert [t for t in texts if t in plots.PHASE_COLOURS] == [p["state"] for p in phases]
    # a dashed mark at each fault given, named by its action and part
    marks = [line for line in ax.lines if line.get_linestyle() == "--"]
    assert [line.get_xdata()[0] for line in marks] == [f["at_s"] for f in step["faults"]]
    assert "crash-node node volperf-node-2" in texts
    assert "restore-node node volperf-node-2" in texts
    # one consumer: its IOPS second by second is the sum, the one solid line
    [summed] = [line for line in ax.lines if line.get_label() == "all consumers"]
    [(name, points)] = step["phases"]["per_second"].items()
    assert list(summed.get_ydata()) == [iops for _, iops in points]
    assert len([line for line in ax.lines if line.get_linestyle() == "-"]) == 1


def test_with_two_consumers_each_has_its_line_and_the_sum_adds_them(monkeypatch, tmp_path):
    """The kept consumer and a second one whose seconds are half of its own."""
    step = copy.deepcopy(_crash_step())
    per_second = step["phases"]["per_second"]
    [points] = per_second.values()
    per_second["c99"] = [[t, iops / 2] for t, iops in points]
    [ax] = _drawn(monkeypatch, tmp_path, [step]).axes
    solid = [line for line in ax.lines if line.get_linestyle() == "-"]
    assert len(solid) == 3  # each consumer's and the sum
    [summed] = [line for line in solid if line.get_label() == "all consumers"]
    assert list(summed.get_ydata()) == pytest.approx([1.5 * iops for _, iops in points])
    each = sorted(list(line.get_ydata()) for line in solid if line is not summed)
    assert each == sorted([[iops for _, iops in points], [iops / 2 for _, iops in points]])
