"""The figure catalogue: one label and one header per figure, never two figures named
alike in a section, and the comparison, history and repeats all speak its words."""

from __future__ import annotations

from harness.core import figures
from harness.records import compare, history, repeats

CATALOGUES = {
    "fio": figures.FIO,
    "db": figures.DB,
    "times": figures.TIMES,
    "events": figures.EVENTS,
    "rally": figures.RALLY,
    "iterations": figures.ITERATIONS,
    "backend phases": figures.BACKEND_PHASES,
    "rally phases": figures.RALLY_PHASES,
    "recovery": figures.RECOVERY,
}


def test_no_two_figures_of_a_catalogue_share_a_label_or_a_header():
    for name, catalogue in CATALOGUES.items():
        labels = [f.label for f in catalogue.values()]
        headers = [f.column for f in catalogue.values()]
        assert len(set(labels)) == len(labels), name
        assert len(set(headers)) == len(headers), name
        assert all(key == f.name for key, f in catalogue.items()), name


def test_comparison_history_and_repeats_use_the_catalogues_words():
    words = {(f.name, f.label, f.higher_is_better) for c in CATALOGUES.values() for f in c.values()}
    compared = [
        *compare.METRICS,
        *compare.DB_METRICS,
        *compare.TIME_METRICS,
        *compare.EVENT_METRICS,
        *compare.RALLY_METRICS,
        *compare.PHASE_METRICS,
        *compare.RALLY_PHASE_METRICS,
        *compare.RECOVERY_METRICS,
    ]
    used = [
        *((f.name, f.label, f.higher_is_better) for f in compared),
        *history.FIO,
        *history.DB,
        *history.PROVISION,
        *history.RALLY,
    ]
    assert [u for u in used if u not in words] == []
    labels = {(f.name, f.label) for c in CATALOGUES.values() for f in c.values()}
    spread = [(name, label) for section, name, label in repeats.FIGURES if section != "window"]
    assert [
        s for s in [*spread, *((n, lb) for _, n, lb in repeats.DB_FIGURES)] if s not in labels
    ] == []


def test_every_figure_has_a_kind_of_noise_with_a_floor_and_a_key_means_one_kind():
    from harness.records.noise import MEASURED_FLOORS

    for catalogue in CATALOGUES.values():
        for f in catalogue.values():
            assert all(f.noise_kind in floors for floors in MEASURED_FLOORS.values()), f
            # a key several sections share (p95_s, max_s) has one kind
            assert {
                g.noise_kind for c in CATALOGUES.values() for g in c.values() if g.name == f.name
            } == {f.noise_kind}, f
    assert figures.FIO["p99_merged"].noise_kind == figures.FAR_TAIL
    assert figures.FIO["iops_sum"].noise_kind == figures.RATE  # more is better: a rate
    assert figures.DB["latency_avg_ms"].noise_kind == figures.MEAN  # less is better: a time
