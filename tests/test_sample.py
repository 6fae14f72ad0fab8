"""lessonlib.sample (notebook 07): the paired table, exact McNemar, the records' band and the
records needed - against statsmodels and scipy, and cases worked by hand.

Bad input for these doors is in tests/test_bad_input.py (ROWS["lessonlib.sample"]).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import lessonlib as L
from conftest import Deferred
from lessonlib import sample as S
from lessonlib.exercises import step07

# the references, imported by the first test that compares with them (not at collection)
stats = Deferred("scipy.stats")
contingency_tables = Deferred("statsmodels.stats.contingency_tables")
proportion = Deferred("statsmodels.stats.proportion")


def mcnemar(*args, **kwargs):
    return contingency_tables.mcnemar(*args, **kwargs)


def samplesize_confint_proportion(*args, **kwargs):
    return proportion.samplesize_confint_proportion(*args, **kwargs)


@pytest.fixture(scope="module")
def lesson():
    records = L.make_records()
    run1 = L.run_judge(records, L.SEED)
    truth = [L.is_harmful(r) for r in records]
    return (records, truth, [L.rule_filter(r) for r in records], [run1.decide(r) for r in records])


def by_hand(truth, a, b):
    """The paired table counted one record at a time, as one would on paper."""
    table = [[0, 0], [0, 0]]
    for t, x, y in zip(truth, a, b):
        table[x != t][y != t] += 1  # row: a wrong?  column: b wrong?
    return [[table[0][0], table[0][1]], [table[1][0], table[1][1]]]


# ---------------------------------------------------------------- paired_table


def test_paired_table_on_five_records_worked_by_hand():
    truth = [True, True, False, False, True]
    a = [True, False, False, True, True]  # right, wrong, right, wrong, right
    b = [True, True, True, True, False]  # right, right, wrong, wrong, wrong
    # both right: record 1; only a: 3, 5; only b: 2; both wrong: 4
    assert S.paired_table(truth, a, b) == [[1, 2], [1, 1]]


def test_paired_table_counts_every_record_once(lesson):
    _, truth, crit, judge = lesson
    table = S.paired_table(truth, crit, judge)
    assert table == by_hand(truth, crit, judge)
    assert sum(map(sum, table)) == len(truth)
    assert all(type(c) is int for row in table for c in row)


def test_paired_table_swapping_a_and_b_transposes(lesson):
    _, truth, crit, judge = lesson
    t = S.paired_table(truth, crit, judge)
    assert S.paired_table(truth, judge, crit) == [[t[0][0], t[1][0]], [t[0][1], t[1][1]]]


def test_paired_table_takes_numpy_bools(lesson):
    _, truth, crit, judge = lesson
    assert S.paired_table(np.array(truth), np.array(crit), judge) == S.paired_table(
        truth, crit, judge
    )


def test_the_issues_worked_figures_hold_class_by_class(lesson):
    """The issue worked run 1 by hand: harmful records judge-only 16, filter-only 1; clean 8 and
    7.  Recounted here record by record, and the p-values against statsmodels."""
    _, truth, crit, judge = lesson
    for harmful in (True, False):
        keep = [i for i, t in enumerate(truth) if t == harmful]
        part = [[x[i] for i in keep] for x in (truth, crit, judge)]
        table = S.paired_table(*part)
        assert table == by_hand(*part)
        want = mcnemar(np.array(table), exact=True).pvalue
        assert S.mcnemar_p(table) == pytest.approx(want, rel=1e-12)


# ---------------------------------------------------------------- mcnemar_p


@pytest.mark.parametrize(
    "only_a, only_b",
    [
        (0, 0),
        (0, 1),
        (1, 16),
        (16, 1),
        (8, 7),
        (7, 8),
        (0, 5),
        (3, 3),
        (10, 30),
        (120, 80),
        (0, 60),
        (500, 560),
    ],
)
def test_mcnemar_p_equals_statsmodels(only_a, only_b):
    table = [[40, only_a], [only_b, 9]]
    want = mcnemar(np.array(table), exact=True).pvalue
    assert S.mcnemar_p(table) == pytest.approx(want, rel=1e-10, abs=1e-300)


def test_mcnemar_p_worked_by_hand():
    # 5 against 0: both tails have chance 1/32 each
    assert S.mcnemar_p([[3, 5], [0, 2]]) == pytest.approx(2 / 32)
    # 1 against 2 of 3: P(X <= 1) = 4/8, doubled is 1
    assert S.mcnemar_p([[0, 1], [2, 0]]) == 1.0
    # 1 against 4 of 5: P(X <= 1) = 6/32, doubled 12/32
    assert S.mcnemar_p([[0, 1], [4, 0]]) == pytest.approx(12 / 32)
    assert S.mcnemar_p([[100, 0], [0, 100]]) == 1.0  # no discordant record


def test_mcnemar_p_reads_only_the_discordant_cells():
    assert S.mcnemar_p([[0, 2], [9, 0]]) == S.mcnemar_p([[500, 2], [9, 77]])


def test_mcnemar_p_is_symmetric_and_takes_numpy_counts():
    assert S.mcnemar_p([[1, 3], [11, 1]]) == S.mcnemar_p([[1, 11], [3, 1]])
    assert S.mcnemar_p(np.array([[1, 3], [11, 1]], dtype=np.int64)) == S.mcnemar_p(
        [[1, 3], [11, 1]]
    )


# ---------------------------------------------------------------- paired_bootstrap


def _figure(name, truth, d, axis=-1):
    tp = np.sum(d & truth, axis=axis)
    fp = np.sum(d & ~truth, axis=axis)
    fn = np.sum(~d & truth, axis=axis)
    tn = np.sum(~d & ~truth, axis=axis)
    part, whole = {
        "agreement": (tp + tn, tp + fp + fn + tn),
        "recall": (tp, tp + fn),
        "false_block_rate": (fp, fp + tn),
        "precision": (tp, tp + fp),
    }[name]
    return np.divide(part, whole, out=np.zeros(np.shape(part)), where=whole > 0)


@pytest.mark.parametrize("figure", S.FIGURES)
def test_paired_bootstrap_matches_scipy_within_monte_carlo_error(lesson, figure):
    _, truth, crit, judge = lesson
    t, a, b = (np.array(x) for x in (truth, judge, crit))

    def diff(t, a, b, axis=-1):
        return _figure(figure, t, a, axis) - _figure(figure, t, b, axis)

    want = stats.bootstrap(
        (t, a, b),
        diff,
        paired=True,
        vectorized=True,
        n_resamples=4000,
        method="percentile",
        confidence_level=0.95,
        random_state=np.random.default_rng(1),
    ).confidence_interval
    got = S.paired_bootstrap(t, a, b, figure, n_resamples=4000, seed=2)
    # two independent draws of each end: a few steps of 1/records at most
    tolerance = 3 / min(np.sum(t), np.sum(~t))
    assert got[0] == pytest.approx(want.low, abs=tolerance)
    assert got[1] == pytest.approx(want.high, abs=tolerance)
    assert got[0] <= diff(t, a, b) <= got[1]


def test_paired_bootstrap_is_reproducible_and_depends_on_the_seed(lesson):
    _, truth, crit, judge = lesson
    first = S.paired_bootstrap(truth, judge, crit, "false_block_rate", 2000, seed=7)
    assert S.paired_bootstrap(truth, judge, crit, "false_block_rate", 2000, seed=7) == first
    others = {
        S.paired_bootstrap(truth, judge, crit, "false_block_rate", 2000, seed=s)
        for s in range(8, 14)
    }
    assert others != {first}


def test_paired_bootstrap_returns_two_floats_low_first(lesson):
    _, truth, crit, judge = lesson
    low, high = S.paired_bootstrap(truth, judge, crit, "recall", 500)
    assert type(low) is float and type(high) is float and low <= high


def test_paired_bootstrap_of_identical_decisions_is_zero(lesson):
    _, truth, crit, _ = lesson
    for figure in S.FIGURES:
        assert S.paired_bootstrap(truth, crit, crit, figure, 300) == (0.0, 0.0)


def test_paired_bootstrap_worked_by_hand():
    truth = [True, False] * 10
    right, wrong = truth, [not t for t in truth]
    # a always right, b always wrong: every resample gives agreement 1 - 0
    assert S.paired_bootstrap(truth, right, wrong, n_resamples=200) == (1.0, 1.0)
    # one record of 20 differs: a resample holds it (+1/20 or more) or not (0); about
    # (19/20)**20 = 0.36 of resamples leave it out, so the band runs from 0 up
    one = list(right)
    one[0] = not one[0]
    low, high = S.paired_bootstrap(truth, right, one, n_resamples=4000)
    assert low == 0.0 and 0.05 <= high <= 0.2


def test_a_rate_with_nothing_to_count_is_zero_as_in_measure():
    truth = [False] * 6  # no harmful record: recall counts nothing
    a, b = [True, False] * 3, [False] * 6
    assert S.paired_bootstrap(truth, a, b, "recall", 100) == (0.0, 0.0)


def test_paired_bootstrap_blocks_give_the_same_band_as_one_block(lesson, monkeypatch):
    _, truth, crit, judge = lesson
    whole = S.paired_bootstrap(truth, judge, crit, "agreement", 1000, seed=5)
    monkeypatch.setattr(S, "CELLS", 240 * 3)  # blocks of 3 resamples
    assert S.paired_bootstrap(truth, judge, crit, "agreement", 1000, seed=5) == whole


# ---------------------------------------------------------------- records_needed


@pytest.mark.parametrize("p", [0.05, 0.1563, 0.5, 0.8833, 0.99])
@pytest.mark.parametrize("half_width", [0.01, 0.03, 0.05, 0.1])
@pytest.mark.parametrize("level", [0.9, 0.95, 0.99])
def test_records_needed_is_statsmodels_rounded_up(p, half_width, level):
    want = samplesize_confint_proportion(p, half_width, alpha=1 - level, method="normal")
    assert S.records_needed(p, half_width, level) == math.ceil(want)


def test_records_needed_worked_by_hand():
    # z = 1.959964 for 95%: 1.959964**2 * 0.25 / 0.05**2 = 384.15, so 385 records
    assert S.records_needed(0.5, 0.05) == 385
    # halving the half-width needs four times the records
    assert S.records_needed(0.5, 0.025) == math.ceil(4 * 1.959964**2 * 0.25 / 0.05**2)
    # p and 1 - p need the same
    assert S.records_needed(0.12, 0.02) == S.records_needed(0.88, 0.02)
    assert type(S.records_needed(0.3, 0.1)) is int


def test_records_needed_has_no_last_bit_rounding_up():
    z = stats.norm.ppf(0.975)
    # a half-width chosen so the exact answer is a whole number: 100 records
    assert S.records_needed(0.5, z * 0.5 / 10) == 100


# ---------------------------------------------------------------- the package


def test_the_module_exports_exactly_its_names():
    assert sorted(S.__all__) == sorted(
        [
            "paired_table",
            "mcnemar_p",
            "paired_bootstrap",
            "paired_difference",
            "PairedDifference",
            "records_needed",
            "paired_power",
            "paired_records_needed",
            "holm",
        ]
    )
    for name in S.__all__:
        if name not in ("PairedDifference",):  # reached as lessonlib.sample's
            assert getattr(L, name) is getattr(S, name)


# ---------------------------------------------------------------- the picture of 07


# ---------------------------------------------------------------- the exercise checks of 07


def said(capsys):
    out = capsys.readouterr().out
    assert all(len(line) <= 80 for line in out.splitlines())
    return " ".join(out.split())


def test_records_to_label_right_answer_passes(capsys):
    # statsmodels' sample size for the clean records, rounded up, over the clean share
    records = L.make_records()
    share = sum(not L.is_harmful(r) for r in records) / len(records)
    clean = math.ceil(samplesize_confint_proportion(0.16, 0.02, alpha=0.05))
    truth = math.ceil(clean / share)
    for answer in (truth, truth - 1, truth + 1, np.int64(truth)):
        assert step07.check_records_to_label(answer) is True
        assert said(capsys).startswith("PASS: ")


@pytest.mark.parametrize(
    "answer, words",
    [
        (..., "fill in"),
        (None, "whole number"),
        (2108.0, "whole number"),
        ("2108", "whole number"),
        (True, "whole number"),
        (100, "too few"),
        (10**6, "not that number"),
    ],
)
def test_records_to_label_wrong_answers_get_a_hint(capsys, answer, words):
    assert step07.check_records_to_label(answer) is False
    out = said(capsys)
    assert out.startswith("Not yet: ") and words in out


def test_records_to_label_forgetting_the_clean_share_is_named(capsys):
    clean = math.ceil(samplesize_confint_proportion(0.16, 0.02, alpha=0.05))
    assert step07.check_records_to_label(clean) is False
    assert "how many clean records" in said(capsys)


def _cold_band():
    records = L.make_records()
    cold = L.run_judge(records, L.SEED, temperature=0.0)
    truth = [L.is_harmful(r) for r in records]
    return truth, [cold.decide(r) for r in records], [L.rule_filter(r) for r in records]


def test_cold_fbr_band_right_answer_passes_and_is_above_zero(capsys):
    truth, greedy, crit = _cold_band()
    band = S.paired_bootstrap(truth, greedy, crit, "false_block_rate")
    assert band[0] > 0  # the greedy judge's extra false blocks are measurable
    assert step07.check_cold_fbr_band(band) is True
    assert said(capsys).startswith("PASS: ")
    assert step07.check_cold_fbr_band([round(band[0], 4), round(band[1], 4)]) is True


def test_cold_fbr_band_wrong_answers_get_a_hint(capsys):
    truth, greedy, crit = _cold_band()
    low, high = S.paired_bootstrap(truth, greedy, crit, "false_block_rate")
    other = S.paired_bootstrap(truth, greedy, crit, "false_block_rate", 2000, seed=99)
    cases = [
        (..., "fill in"),
        ((low,), "two numbers"),
        ("ab", "two numbers"),
        ((high, low), "low end comes first"),
        ((-high, -low), "wrong sign"),
        ((0.5, 0.6), "not that band"),
        ((low + 0.025, high - 0.025), "not that band"),  # issue 30: "close" only when close
    ]
    if other != (low, high):
        cases.append((other, "close"))
    for answer, words in cases:
        assert step07.check_cold_fbr_band(answer) is False
        out = said(capsys)
        assert out.startswith("Not yet: ") and words in out, (answer, out)


def test_step07_holds_no_public_answer():
    public = {n for n in dir(step07) if not n.startswith("_")}
    assert set(step07.__all__) <= public
    assert not {"records_to_label", "cold_fbr_band"} & public
    assert set(step07._ANSWERS) == {"check_records_to_label", "check_cold_fbr_band"}


def test_the_last_hints_name_the_method_not_the_steps(capsys):
    for check, wrong in (
        (step07.check_records_to_label, 10**6),
        (step07.check_cold_fbr_band, (0.5, 0.6)),
    ):
        check(wrong)
        out = said(capsys)
        assert (
            "divide" not in out.lower()
            and "figure=" not in out
            and "run the judge" not in out.lower()
        )


@pytest.mark.parametrize("check", [step07.check_records_to_label, step07.check_cold_fbr_band])
def test_the_starter_hints_give_no_number(capsys, check):
    check(...)
    out = said(capsys)
    assert not any(ch.isdigit() for ch in out), out


# ---------------------------------------------------- paired_bootstrap on shares, and holm


def test_paired_bootstrap_on_shares_scores_expected_counts():
    """A share per record: each resample's figure is the figure of the expected counts."""
    truth = [True, True, False, False]
    a, b = [0.5, 1.0, 0.25, 0.0], [True, True, False, False]
    # the only resample that draws every record once gives agreement (0.5+1+0.75+1)/4 - 1
    low, high = S.paired_bootstrap(truth, a, b, "agreement", n_resamples=4000, seed=3)
    assert -0.5 <= low < -0.1875 < high <= 0.0
    # all-equal shares of 0 or 1 are the bool decisions themselves
    crisp = [1.0, 0.0, 1.0, 0.0]
    assert S.paired_bootstrap(truth, crisp, b, "recall", 500, seed=1) == S.paired_bootstrap(
        truth, [True, False, True, False], b, "recall", 500, seed=1
    )


@pytest.mark.slow  # scipy's bootstrap beside ours: about 1.6 s of CPU
def test_paired_bootstrap_on_shares_matches_scipy(lesson):
    records, truth, crit, _ = lesson
    from lessonlib.score import judge_probabilities

    p = np.array([judge_probabilities(records)[r.no] for r in records])
    t, c = np.array(truth), np.array(crit, dtype=float)

    def diff(t, p, c, axis=-1):
        return np.mean(np.where(t, p, 1 - p), axis=axis) - np.mean(
            np.where(t, c, 1 - c), axis=axis
        )

    ref = stats.bootstrap(
        (t, p, c), diff, paired=True, n_resamples=4000, method="percentile", random_state=5
    ).confidence_interval
    low, high = S.paired_bootstrap(t, p, c, "agreement", n_resamples=4000, seed=5)
    assert abs(low - ref.low) < 0.01 and abs(high - ref.high) < 0.01


@pytest.mark.parametrize("bad", [[0.5, 1.5], [-0.1, 0.5], [float("nan"), 0.5]])
def test_paired_bootstrap_refuses_shares_outside_zero_one(bad):
    with pytest.raises(ValueError, match=r"a must be .*shares in \[0, 1\]"):
        S.paired_bootstrap([True, False], bad, [True, False])


@pytest.mark.parametrize(
    "ps", [[0.01, 0.04, 0.03, 0.2, 0.04], [0.5], [0.0, 1.0, 0.3], [0.02, 0.02, 0.02]]
)
def test_holm_matches_statsmodels(ps):
    from statsmodels.stats.multitest import multipletests

    assert S.holm(ps) == pytest.approx(list(multipletests(ps, method="holm")[1]))


@pytest.mark.parametrize(
    "bad, kind", [([], ValueError), ([0.2, 1.2], ValueError), ("0.1", TypeError)]
)
def test_holm_refuses_what_is_not_p_values(bad, kind):
    with pytest.raises(kind, match="p_values"):
        S.holm(bad)


# ---------------------------------------------------------------- paired_difference's p


@pytest.mark.parametrize("figure", S.FIGURES)
@pytest.mark.parametrize("seed", [0, 3])
def test_the_p_value_is_below_the_level_exactly_when_the_band_clears_zero(lesson, figure, seed):
    records, truth, crit, judge = lesson
    from lessonlib.score import judge_probabilities

    chance = judge_probabilities(records)
    shares = [chance[r.no] for r in records]
    for a in (judge, shares):
        for level in (0.95, 0.9, 0.5):
            low, high = S.paired_bootstrap(truth, a, crit, figure, 2000, level, seed)
            p = S.paired_difference(truth, a, crit, figure, 2000, seed=seed).p_value
            assert (p < 1 - level) == (low > 0 or high < 0), (figure, level, p, low, high)


def test_the_p_value_worked_by_hand():
    truth = [True, False] * 10
    right, wrong = truth, [not t for t in truth]
    # every resample gives +1: none at or below zero
    assert S.paired_difference(truth, right, wrong, n_resamples=500).p_value == 0.0
    # identical decisions: every difference is 0, on both sides at once
    assert S.paired_difference(truth, right, right, n_resamples=500).p_value == 1.0
    # one record of 20 differs: the resamples that leave it out, about (19/20)**20 = 0.36,
    # are at zero; the rest above it, so p = 2 * 0.36
    one = list(right)
    one[0] = not one[0]
    p = S.paired_difference(truth, right, one, n_resamples=20_000, seed=4).p_value
    assert p == pytest.approx(2 * (19 / 20) ** 20, abs=0.02)


def test_the_p_value_matches_a_count_by_hand(lesson):
    """The p-value counted by hand from resamples drawn in the test (another stream)."""
    _, truth, crit, judge = lesson
    t, a, b = (np.array(x) for x in (truth, judge, crit))
    rng = np.random.default_rng(11)
    rows = rng.integers(0, len(t), size=(4000, len(t)))
    d = _figure("false_block_rate", t[rows], a[rows]) - _figure(
        "false_block_rate", t[rows], b[rows]
    )
    want = min(1.0, 2 * min(np.mean(d <= 0), np.mean(d >= 0)))
    got = S.paired_difference(t, a, b, "false_block_rate", 4000, seed=12).p_value
    assert 0.1 < want < 1
    # p is twice a share q of 4,000 resamples: two independent draws differ by about
    # 2 * sqrt(2 q (1 - q) / 4000); allow four of those
    q = want / 2
    assert got == pytest.approx(want, abs=4 * 2 * math.sqrt(2 * q * (1 - q) / 4000))


def test_paired_difference_is_the_band_and_the_p_of_the_same_draws(lesson):
    records, truth, crit, judge = lesson
    for figure in ("agreement", "recall"):
        d = S.paired_difference(truth, judge, crit, figure, n_resamples=3000, seed=4)
        assert (d.low, d.high) == S.paired_bootstrap(truth, judge, crit, figure, 3000, seed=4)
        want = (
            L.measure(records, lambda r: judge[r.no - 1])[figure]
            if figure != "agreement"
            else None
        )
        if want is not None:
            assert round(d.estimate + L.measure(records, L.rule_filter)[figure], 4) == want


# ------------------------------------------------ power of a paired difference (issue 35)


def test_paired_records_needed_by_hand_and_the_power_it_buys():
    # (1.959964 + 0.841621)**2 * 0.5**2 / 0.05**2 = 784.89 -> 785
    assert S.paired_records_needed(0.05, 0.5) == 785
    assert S.paired_records_needed(-0.05, 0.5) == 785  # the sign does not matter
    assert S.paired_power(0.05, 0.5, 785) >= 0.8 > S.paired_power(0.05, 0.5, 784)
    # 90% power: z_power = 1.281552; (3.241516)**2 * 100 = 1050.74 -> 1051
    assert S.paired_records_needed(0.05, 0.5, power=0.9) == 1051
    # e = 0.05 * sqrt(400) / 0.5 = 2: Phi(2 - 1.96) + Phi(-2 - 1.96), by hand
    phi = stats.norm.cdf
    z = stats.norm.ppf(0.975)
    assert S.paired_power(0.05, 0.5, 400) == pytest.approx(phi(2 - z) + phi(-2 - z), abs=1e-12)


def test_paired_power_agrees_with_statsmodels_normal_power():
    power = Deferred("statsmodels.stats.power")
    for difference, sd, n in ((0.0064, 0.3186, 240), (0.03, 0.4, 1000), (0.1, 0.3, 50)):
        want = power.normal_power(difference / sd, n, 0.05, alternative="two-sided")
        assert S.paired_power(difference, sd, n) == pytest.approx(want, abs=1e-9)


def test_paired_power_matches_a_simulated_paired_comparison():
    # per record the difference is -1, 0 or +1 (only b right, both alike, only a right)
    rng = np.random.default_rng(35)
    shares = np.array([0.10, 0.74, 0.16])
    values = np.array([-1.0, 0.0, 1.0])
    difference = float(shares @ values)
    sd = math.sqrt(shares @ values**2 - difference**2)
    n, studies = 300, 20_000
    counts = rng.multinomial(n, shares, size=studies)
    mean = counts @ values / n
    spread = np.sqrt((counts @ values**2 / n - mean**2) * n / (n - 1))
    clear = np.mean(np.abs(mean) > stats.norm.ppf(0.975) * spread / math.sqrt(n))
    want = S.paired_power(difference, sd, n)
    assert abs(clear - want) < 4 * math.sqrt(want * (1 - want) / studies)
    # and at the records it needs for 80%, the simulated comparison clears zero 80% of the time
    n = S.paired_records_needed(difference, sd)
    counts = rng.multinomial(n, shares, size=studies)
    mean = counts @ values / n
    spread = np.sqrt((counts @ values**2 / n - mean**2) * n / (n - 1))
    clear = np.mean(np.abs(mean) > stats.norm.ppf(0.975) * spread / math.sqrt(n))
    assert abs(clear - 0.8) < 4 * math.sqrt(0.8 * 0.2 / studies)
