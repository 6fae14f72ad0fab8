"""lessonlib.variance: distributions over many judge runs (small cases worked by hand)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

import lessonlib as L
from lessonlib import variance as V

RECORDS = L.make_records()


def test_run_band_by_hand():
    """Values 1..40: 2.5% of 40 is one run, so the ends are the 1st and the 39th value."""
    assert V.run_band(range(1, 41)) == (1.0, 39.0)
    assert V.run_band([5.0] * 10) == (5.0, 5.0)
    assert V.run_band(range(1, 11), level=0.8) == (1.0, 9.0)


def test_expected_changed_by_hand():
    """k of S runs block a record: it flips with 2 k (S - k) / (S (S - 1)); 0.5 + 0 + 0."""
    x = np.array([[1, 1, 0], [0, 1, 0], [0, 1, 0], [0, 1, 0]], dtype=bool)
    assert V.expected_changed(x) == 0.5


@settings(derandomize=True, max_examples=30, deadline=None)
@given(arrays(bool, st.tuples(st.integers(2, 12), st.integers(1, 9))))
def test_expected_changed_is_the_mean_pair_change(x):
    i, j = np.triu_indices(len(x), k=1)
    assert V.expected_changed(x) == pytest.approx(np.count_nonzero(x[i] != x[j], axis=1).mean())


def test_plots_draw_without_error():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    runs = L.run_judge_many(RECORDS, range(30))
    assert len(V.plot_figures(RECORDS, runs).axes) == 4
    changes = np.array([int((a != b).sum()) for a, b in zip(runs.harmful, runs.harmful[1:])])
    assert len(V.plot_changes(changes, mark=16).axes) == 1
    rows = [
        {
            "temperature": t,
            "mean changes": 0.0,
            **{f"{n} {e}": 0.5 for n in L.FIGURES for e in ("low", "high")},
        }
        for t in (0.0, 1.0)
    ]
    assert len(V.plot_sweep(rows, RECORDS).axes) == 2
    plt.close("all")


def test_single_flag_records_hesitate():
    """One flag: scores 0.75 (clean) against 0.15 + 1.0; at T = 0.3 the chance of 'zararli'
    is 1 / (1 + exp(-0.4 / 0.3)) = 0.7914, so such a record flips with about 2 p (1 - p) = 0.33
    (notebook 06 groups flip_probability by the number of flags)."""
    import math

    runs = L.run_judge_many(RECORDS, range(2000))
    flags = np.array([len(r.features.on()) for r in RECORDS])
    k, s = runs.harmful.sum(axis=0), len(runs)
    flip = 2 * k * (s - k) / (s * (s - 1))
    p = 1 / (1 + math.exp(-0.4 / 0.3))
    one = [
        i
        for i, r in enumerate(RECORDS)
        if r.features.on() and len(r.features.on()) == 1 and not r.features["excessive_length"]
    ]
    share = runs.harmful.mean(axis=0)[one]
    assert abs(share.mean() - p) < 0.02
    assert flip[flags == 1].mean() > 0.25 > flip[flags == 0].mean()
    zero = L.run_judge_many(RECORDS, range(5), temperature=0.0)
    assert V.expected_changed(zero.harmful) == 0.0


def test_expected_changed_is_the_mean_over_pairs_of_runs():
    import itertools

    import numpy as np

    harmful = np.array([[1, 0, 1], [1, 1, 0], [0, 0, 1]], dtype=bool)
    pairs = [int((a != b).sum()) for a, b in itertools.combinations(harmful, 2)]
    assert V.expected_changed(harmful) == pytest.approx(sum(pairs) / len(pairs))


def test_plot_gap_steps_draws_its_rows():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = [
        {"figure": "recall", "count": 93, "gap": 15, "two-run difference": -3},
        {"figure": "false_block_rate", "count": 147, "gap": 1, "two-run difference": 5},
    ]
    fig = V.plot_gap_steps(rows)
    assert len(fig.axes) == 1 and len(fig.axes[0].patches) == 4
    plt.close("all")


def test_percentile_is_the_share_below_plus_half_the_ties():
    values = [0.5, 0.1, 0.5, 0.9, 0.2]
    assert V.percentile(values, 0.5) == pytest.approx(60.0)  # 2 below, 2 equal of 5
    assert V.percentile(values, 0.05) == 0.0 and V.percentile(values, 1.0) == 100.0
    assert V.percentile([0.3] * 4, 0.3) == 50.0  # all tied: a typical run
