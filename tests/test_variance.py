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


def test_pair_changes_by_hand():
    x = np.array([[1, 0, 0], [1, 1, 0], [0, 1, 1]], dtype=bool)
    # pairs (0,1) differ on record 2 only; (0,2) on all three; (1,2) on records 1 and 3
    assert V.pair_changes(x).tolist() == [1, 3, 2]


def test_flip_probability_by_hand():
    """k of S runs block a record: 2 k (S - k) / (S (S - 1))."""
    x = np.array([[1, 1, 0], [0, 1, 0], [0, 1, 0], [0, 1, 0]], dtype=bool)
    assert V.flip_probability(x).tolist() == [0.5, 0.0, 0.0]


@settings(derandomize=True, max_examples=30, deadline=None)
@given(arrays(bool, st.tuples(st.integers(2, 12), st.integers(1, 9))))
def test_flip_probabilities_sum_to_the_mean_pair_change(x):
    assert V.flip_probability(x).sum() == pytest.approx(V.pair_changes(x).mean())


def test_claims_on_the_lessons_pair():
    """On the lesson's two runs: criteria fp 23 (0.1565 x 147), judge fp 24 and 29."""
    runs = L.run_judge_many(RECORDS, [L.SEED, L.SEED + 1])
    fbr = V.fbr_comparison(RECORDS, runs)
    assert fbr["criteria fp"] == 23 and fbr["criteria"] == 0.1565
    assert fbr["share judge above"] == 1.0
    assert (fbr["fp difference low"], fbr["fp difference high"]) == (1, 6)
    gap = V.recall_gap(RECORDS, runs)
    assert gap["criteria"] == 0.7957 and gap["share judge higher"] == 1.0
    assert gap["gap high"] == 0.1613 and gap["gap low"] == 0.1290


def test_temperature_sweep_zero_has_no_band():
    rows = V.temperature_sweep(RECORDS[:60], [0.0, 0.3], range(20))
    assert [r["temperature"] for r in rows] == [0.0, 0.3]
    assert rows[0]["recall width"] == 0.0 and rows[0]["mean changes"] == 0.0
    assert rows[1]["mean changes"] > 0.0


def test_plots_draw_without_error():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    runs = L.run_judge_many(RECORDS, range(30))
    assert len(V.plot_figures(RECORDS, runs).axes) == 4
    assert len(V.plot_changes(V.pair_changes(runs.harmful), mark=16).axes) == 1
    rows = V.temperature_sweep(RECORDS, [0.0, 1.0], range(10))
    assert len(V.plot_sweep(rows, RECORDS).axes) == 2
    plt.close("all")


def test_single_flag_records_hesitate():
    """One flag: scores 0.75 (clean) against 0.15 + 1.0; at T = 0.3 the chance of 'zararli'
    is 1 / (1 + exp(-0.4 / 0.3)) = 0.7914, so such a record flips with about 2 p (1 - p) = 0.33
    (notebook 06 groups flip_probability by the number of flags)."""
    import math

    runs = L.run_judge_many(RECORDS, range(2000))
    flags = np.array([len(r.features.on()) for r in RECORDS])
    flip = V.flip_probability(runs.harmful)
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
    assert not V.flip_probability(zero.harmful).any()


def test_pair_changes_in_blocks_equals_direct_count():
    rng = np.random.default_rng(7)
    x = rng.random((600, 9)) < 0.4
    i, j = np.triu_indices(600, k=1)
    assert V.pair_changes(x).tolist() == np.count_nonzero(x[i] != x[j], axis=1).tolist()
    with pytest.raises(ValueError, match="at most"):
        V.pair_changes(np.zeros((V.MAX_PAIR_RUNS + 1, 2), dtype=bool))


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


def test_key_figures_fit_80_columns():
    runs = L.run_judge_many(RECORDS, range(L.SEED, L.SEED + 40))
    text = V.key_figures(RECORDS, runs)
    assert max(map(len, text.splitlines())) <= 80
    assert "run band" in text and "interval" not in text


def test_key_figures_quote_run_band_and_expected_changed():
    """key_figures prints the same band and expected changed records as the two functions."""
    runs = L.run_judge_many(RECORDS, range(L.SEED, L.SEED + 40))
    text = V.key_figures(RECORDS, runs)
    lo, hi = V.run_band(V.figures(runs)["recall"])
    assert f"{lo:.4f} .. {hi:.4f}" in text.splitlines()[3]
    assert f"expected {V.expected_changed(runs.harmful):.4f}" in text


# ---------------------------------------------------------------- bad input at the doors
# The functions notebooks 04 and 06 (and 09/08/10) call check their arguments: one bad
# argument per row, the error it must raise and the parameter its message must name.

SMALL = RECORDS[:6]


def small_runs():
    return L.run_judge_many(SMALL, range(3))


DOORS = [
    ("fbr_comparison records", lambda: V.fbr_comparison([], small_runs()), ValueError, "records"),
    (
        "temperature_sweep seeds",
        lambda: V.temperature_sweep(SMALL, [0.3], []),
        ValueError,
        "seeds",
    ),
]


@pytest.mark.parametrize("name, call, error, word", DOORS, ids=[d[0] for d in DOORS])
def test_foreign_records_or_no_seeds_are_refused_naming_the_parameter(name, call, error, word):
    with pytest.raises(error) as info:
        call()
    assert word in str(info.value), str(info.value)


def test_percentile_is_the_share_below_plus_half_the_ties():
    values = [0.5, 0.1, 0.5, 0.9, 0.2]
    assert V.percentile(values, 0.5) == pytest.approx(60.0)  # 2 below, 2 equal of 5
    assert V.percentile(values, 0.05) == 0.0 and V.percentile(values, 1.0) == 100.0
    assert V.percentile([0.3] * 4, 0.3) == 50.0  # all tied: a typical run
    # the percentiles 06 and 07 print are this one function's
    records = L.make_records(40)
    runs = L.run_judge_many(records, range(30))
    agreement = runs.figures()["agreement"]
    line = next(s for s in V.key_figures(records, runs).splitlines() if s.startswith("agree"))
    assert f"({V.percentile(agreement, agreement[0]):4.1f})" in line
