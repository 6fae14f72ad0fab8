"""Notebook 15: the five estimates of a rate, the simulated weeks and the labels needed.

``estimate_rate`` is written from the definitions with numpy; here it is held to small cases
worked by hand, to ``ppi-python`` 0.2.3 (``classical_mean_ci``, ``ppi_mean_ci`` with lam=1
and lam=None, ``ppi_mean_pointestimate``) and ``judgy`` 0.1.0 (the point estimate of
``estimate_success_rate``), both test-only dependencies, and to a coverage simulation whose
truth the generator knows exactly.
"""

import importlib
import math
import statistics

import numpy as np
import pytest

import lessonlib as L
from conftest import Deferred
from lesson_defs import STRIDE
from lessonlib import production as P
from lessonlib import truth as T
from lessonlib import weeks as W
from lessonlib.exercises import step15

ppi_py = Deferred("ppi_py")  # imported by the first test that compares with it
judgy = Deferred("judgy")

Z95 = statistics.NormalDist().inv_cdf(0.975)


def week_arrays(seed, n=200, big_n=4800, share=0.38, right=0.85, scores=False):
    """A made-up week: person 0/1, a judge that matches the person with chance ``right``,
    the judge's rest; with ``scores`` the judge gives numbers in [0, 1]."""
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < share).astype(float)
    f = np.where(rng.random(n) < right, y, 1 - y)
    g = (rng.random(big_n) < share + 0.08).astype(float)
    if scores:
        f = np.clip(0.6 * f + 0.4 * rng.random(n), 0, 1)
        g = np.clip(0.6 * g + 0.4 * rng.random(big_n), 0, 1)
    return y, f, g


# ---------------------------------------------------------------- worked by hand

PERSON = [True, True, True, False, False]
JUDGE_LABELLED = [1, 1, 0, 0, 0]
JUDGE_REST = [1, 0, 0, 0]


def test_the_five_estimates_worked_by_hand():
    # judge: 1/4 of the rest; labelled: 3/5; TPR 2/3, TNR 1, so Rogan-Gladen
    # (1/4 + 1 - 1) / (2/3 + 1 - 1) = 3/8; PPI: 1/4 + mean(y - f) = 1/4 + 1/5
    value = {
        m: P.estimate_rate(PERSON, JUDGE_LABELLED, JUDGE_REST, method=m)[0] for m in P.METHODS
    }
    assert value["judge"] == pytest.approx(0.25)
    assert value["labelled"] == pytest.approx(0.6)
    assert value["rogan_gladen"] == pytest.approx(0.375)
    assert value["ppi"] == pytest.approx(0.45)
    # PPI's interval: z * sqrt(var(rest) / 4 + var(y - f) / 5), both with ddof 0
    half = Z95 * math.sqrt((0.25 * 0.75) / 4 + (0.2 * 0.8) / 5)
    _, low, high = P.estimate_rate(PERSON, JUDGE_LABELLED, JUDGE_REST)
    assert (low, high) == pytest.approx((0.45 - half, 0.45 + half))


def test_ppi_plus_plus_tunes_lam_from_the_covariance_worked_by_hand():
    # cov(y, f) with ddof 0 on the five labelled: E[yf] - E[y]E[f] = 2/5 - 3/5 * 2/5 = 4/25;
    # var of f on all nine records with ddof 1: three ones in nine -> (3 - 9 * (1/3)**2) / 8
    # lam = (4/25) / ((1 + 5/4) * 0.25) = 0.2844..., clipped to [0, 1]
    lam = (4 / 25) / ((1 + 5 / 4) * ((3 - 9 * (1 / 3) ** 2) / 8))
    value = P.estimate_rate(PERSON, JUDGE_LABELLED, JUDGE_REST, method="ppi++").value
    y, f = np.array(PERSON, float), np.array(JUDGE_LABELLED, float)
    assert value == pytest.approx(lam * 0.25 + (y - lam * f).mean())


def test_an_estimate_unpacks_as_three_named_fields():
    est = P.estimate_rate(PERSON, JUDGE_LABELLED, JUDGE_REST, method="labelled")
    value, low, high = est
    assert (est.value, est.low, est.high) == (value, low, high)
    assert low < value < high
    assert isinstance(L.Estimate(0.1, 0.0, 0.2), tuple)


def test_a_judge_that_is_always_right_makes_ppi_the_judges_share():
    y = [True, False] * 50
    rest = [1, 0, 0, 1, 1] * 200
    value, low, high = P.estimate_rate(y, [float(v) for v in y], rest, method="ppi")
    assert value == pytest.approx(np.mean(rest))
    rg = P.estimate_rate(y, [float(v) for v in y], rest, method="rogan_gladen")
    assert rg.value == pytest.approx(np.mean(rest))


def test_a_constant_judge_gets_no_weight_in_ppi_plus_plus():
    y = [True, False, True, True, False, False]
    value = P.estimate_rate(y, [1] * 6, [1] * 20, method="ppi++").value
    assert value == pytest.approx(0.5)  # lam = 0: the person's sample alone


def test_the_level_widens_the_interval():
    y, f, g = week_arrays(1)
    narrow = P.estimate_rate(y, f, g, level=0.8)
    wide = P.estimate_rate(y, f, g, level=0.99)
    assert wide.high - wide.low > narrow.high - narrow.low
    assert wide.value == narrow.value


# ---------------------------------------------------------------- against ppi-python and judgy


@pytest.mark.slow  # importing ppi_py (numba, scipy, statsmodels, sklearn): about 3 s of CPU
@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("scores", [False, True])
@pytest.mark.parametrize("level", [0.95, 0.9])
def test_labelled_ppi_and_ppi_plus_plus_match_ppi_python(seed, scores, level):
    y, f, g = week_arrays(seed, n=50 + 30 * seed, scores=scores)
    alpha = 1 - level
    low, high = ppi_py.classical_mean_ci(y, alpha=alpha)
    assert P.estimate_rate(y, f, g, method="labelled", level=level) == pytest.approx(
        (y.mean(), low, high)
    )
    low, high = ppi_py.classical_mean_ci(g, alpha=alpha)
    assert P.estimate_rate(y, f, g, method="judge", level=level) == pytest.approx(
        (g.mean(), low, high)
    )
    for method, lam in (("ppi", 1), ("ppi++", None)):
        low, high = ppi_py.ppi_mean_ci(y, f, g, alpha=alpha, lam=lam)
        point = ppi_py.ppi_mean_pointestimate(y, f, g, lam=lam)
        ours = P.estimate_rate(y, f, g, method=method, level=level)
        assert ours == pytest.approx((point[0], low[0], high[0]), abs=1e-12)


@pytest.mark.slow  # judgy's 4,000-resample bootstraps: about 1.2 s of CPU over the six seeds
@pytest.mark.parametrize("seed", range(6))
def test_rogan_gladen_matches_judgy(seed):
    """The point estimate exactly; the interval within a tenth of its width (both are
    bootstraps of 4,000 resamples, judgy's seeded through numpy's global generator; ours also
    redraws the rest's share, so it is a little wider)."""
    y, f, g = week_arrays(seed, n=60 + 40 * seed, right=0.7 + 0.04 * seed)
    np.random.seed(seed)
    theta, low, high = judgy.estimate_success_rate(
        y.astype(int), f.astype(int), g.astype(int), bootstrap_iterations=4000
    )
    ours = P.estimate_rate(y, f, g, method="rogan_gladen", resamples=4000)
    assert ours.value == pytest.approx(theta, abs=1e-12)
    width = high - low
    assert abs(ours.low - low) <= 0.1 * width and abs(ours.high - high) <= 0.1 * width


def test_rogan_gladen_is_clipped_to_a_share_like_judgy():
    y = [1, 1, 0, 0, 0, 0]
    f = [1, 1, 1, 0, 0, 0]
    rest = [0] * 30  # the judge never blocks: the correction goes below 0
    np.random.seed(0)  # judgy's bootstrap draws from numpy's global generator
    theta = judgy.estimate_success_rate(y, f, rest, bootstrap_iterations=200)[0]
    assert P.estimate_rate(y, f, rest, method="rogan_gladen").value == theta == 0.0


def test_rogan_gladen_bootstrap_is_seeded():
    y, f, g = week_arrays(3)
    a = P.estimate_rate(y, f, g, method="rogan_gladen", seed=5)
    assert a == P.estimate_rate(y, f, g, method="rogan_gladen", seed=5)
    assert a != P.estimate_rate(y, f, g, method="rogan_gladen", seed=6)


# ---------------------------------------------------------------- the door refuses


@pytest.mark.parametrize(
    "call, error, words",
    [
        (lambda: P.estimate_rate([1, 0, 1], [1, 0], [1]), ValueError, "same records"),
        (
            lambda: P.estimate_rate([1, 1, 1], [1, 0, 1], [1, 0], method="rogan_gladen"),
            ValueError,
            "both classes",
        ),
        (
            lambda: P.estimate_rate([1, 0, 1, 0], [0, 1, 1, 0], [1, 0], method="rogan_gladen"),
            ValueError,
            "better than chance",
        ),
        (lambda: P.estimate_rate([1, 0], [1.2, 0], [1, 0]), ValueError, "[0, 1]"),
        (lambda: P.estimate_rate([1, 0], [1, 0], [0.5, -0.1]), ValueError, "[0, 1]"),
        (
            lambda: P.estimate_rate([1, 0], [0.7, 0.2], [1, 0], method="rogan_gladen"),
            ValueError,
            "not scores",
        ),
        (
            lambda: P.estimate_rate([1, 0], [1, 0], [0.3, 1], method="rogan_gladen"),
            ValueError,
            "not scores",
        ),
        (lambda: P.estimate_rate([1, 0.5], [1, 0], [1, 0]), ValueError, "0/1 labels"),
        (lambda: P.estimate_rate([1, 0], [1, 0], [1, 0], method="mean"), ValueError, "ppi++"),
        (lambda: P.estimate_rate([1, 0], [1, 0], [1, 0], level=95), ValueError, "level"),
        (lambda: P.estimate_rate([1], [1], [1, 0]), ValueError, "at least 2"),
        (lambda: P.estimate_rate([1, 0], [1, 0], []), ValueError, "judge_rest"),
        (lambda: P.estimate_rate("10", [1, 0], [1]), TypeError, "person"),
        (lambda: P.estimate_rate([1, None], [1, 0], [1]), TypeError, "person"),
        (lambda: P.estimate_rate([1, 0], [1, math.nan], [1]), ValueError, "judge_labelled"),
    ],
)
def test_bad_input_is_refused_saying_what_and_why(call, error, words):
    with pytest.raises(error) as caught:
        call()
    assert words in str(caught.value)


def test_no_better_than_chance_names_tpr_plus_tnr():
    with pytest.raises(ValueError, match=r"TPR \+ TNR = 0\.5000 \+ 0\.5000 <= 1"):
        P.estimate_rate([1, 0, 1, 0], [0, 1, 1, 0], [1, 0], method="rogan_gladen")


# ---------------------------------------------------------------- the truth and simulated weeks


def test_true_rates_agree_with_population_figures_by_another_route():
    for shares in (L.CLASS_SHARE, W.DRIFT_SHARES):
        t = W.true_rates(shares)
        fig = L.population_figures(class_shares=shares)
        h = 1 - shares[0]
        assert t["harmful"] == pytest.approx(h)
        judge = fig["judge"]
        assert t["judge_blocks"] == pytest.approx(
            judge["recall"] * h + judge["false_block_rate"] * (1 - h)
        )
        assert t["filter_right"] == pytest.approx(fig["filter"]["agreement"], abs=1e-12)
        assert t["false_block_rate"] == pytest.approx(fig["filter"]["false_block_rate"], abs=1e-12)


def test_the_lessons_two_tempting_figures():
    t = W.true_rates()
    assert round(t["harmful"], 3) == 0.380
    assert round(t["judge_blocks"], 3) == 0.464


def test_simulated_records_follow_the_population():
    est = W.simulate_estimates(weeks=20, size=5000, labelled=2500, methods=("labelled", "judge"))
    t = W.true_rates()
    # 20 weeks x 2,500 records: the means are within a few standard errors of the truth
    assert est["labelled"][:, 0].mean() == pytest.approx(t["harmful"], abs=0.006)
    assert est["judge"][:, 0].mean() == pytest.approx(t["judge_blocks"], abs=0.006)
    agree = W.simulate_estimates(
        weeks=20, labelled=2500, quantity="filter_right", methods=("labelled", "judge")
    )
    assert agree["labelled"][:, 0].mean() == pytest.approx(t["filter_right"], abs=0.006)
    assert agree["judge"][:, 0].mean() == pytest.approx(t["filter_agrees_with_judge"], abs=0.006)


def test_simulated_weeks_are_seeded():
    a = W.simulate_estimates(weeks=3, size=300, labelled=50, seed=4)
    b = W.simulate_estimates(weeks=3, size=300, labelled=50, seed=4)
    assert all(np.array_equal(a[m], b[m]) for m in P.METHODS)


def test_simulation_refuses_rogan_gladen_on_scores():
    with pytest.raises(ValueError, match="rogan_gladen"):
        W.simulate_estimates(weeks=2, stand_in="score")


@pytest.mark.slow
@pytest.mark.parametrize("quantity", W.QUANTITIES)
def test_honest_intervals_cover_the_truth_and_the_judge_does_not(quantity):
    """600 simulated weeks: coverage of 0.95 has a standard error of 0.009, so every honest
    method lands in [0.92, 0.975]; the judge's interval sits around another number."""
    est = W.simulate_estimates(weeks=600, quantity=quantity, seed=11)
    rows = {r["method"]: r for r in W.coverage_rows(est, W.true_rates()[quantity])}
    for method in ("labelled", "rogan_gladen", "ppi", "ppi++"):
        assert 0.92 <= rows[method]["coverage"] <= 0.975, (method, rows[method])
    assert rows["judge"]["coverage"] < 0.05


@pytest.mark.slow
def test_drift_bias_of_ppi_is_the_gap_between_the_two_mixes():
    """PPI calibrated on the lesson's mix is off by exactly (the week's judge-minus-truth gap)
    minus (the lesson's), the exercise's answer; 2,000 simulated weeks agree."""
    shares = step15.EXERCISE_SHARES
    est = W.simulate_estimates(
        weeks=2000, methods=("ppi",), class_shares=shares, person_shares=L.CLASS_SHARE, seed=3
    )
    bias = est["ppi"][:, 0].mean() - W.true_rates(shares)["harmful"]
    assert bias == pytest.approx(step15._ANSWERS["check_drift_bias"](), abs=0.0025)


# ---------------------------------------------------------------- labels needed


def test_the_sample_alone_needs_what_notebook_07_says():
    p = W.true_rates()["harmful"]
    for h in (0.02, 0.03, 0.05):
        assert W.labels_needed(h)["labelled"] == L.records_needed(p, h)


def test_labels_needed_orders_the_methods_and_the_score_beats_the_label():
    label, score = (W.labels_needed(0.03, stand_in=s) for s in W.STAND_INS)
    assert label["ppi++"] < label["ppi"] < label["labelled"] < label["rogan_gladen"]
    assert score["ppi++"] < label["ppi++"] and score["ppi"] < label["ppi"]
    assert "rogan_gladen" not in score


def test_an_unreachable_half_width_is_none():
    need = W.labels_needed(0.02, quantity="filter_right")
    assert need["rogan_gladen"] is None
    assert need["labelled"] > 0


@pytest.mark.slow
@pytest.mark.parametrize("method", ["labelled", "ppi", "ppi++", "rogan_gladen"])
def test_labels_needed_gives_the_half_width_asked_in_simulation(method):
    n = W.labels_needed(0.05)[method]
    est = W.simulate_estimates(weeks=300, labelled=n, size=n + 5000, methods=(method,), seed=9)
    half = (est[method][:, 2] - est[method][:, 1]).mean() / 2
    assert half == pytest.approx(0.05, rel=0.05)


# ---------------------------------------------------------------- the week of traffic


def test_the_weeks_seed_shares_no_record_with_the_lessons():
    # record i of seed s is drawn from s + STRIDE * i
    lesson = range(L.SEED, L.SEED + STRIDE * 240, STRIDE)
    week = range(W.WEEK_SEED, W.WEEK_SEED + STRIDE * 5000, STRIDE)
    assert lesson[-1] < week[0] or week[-1] < lesson[0]


@pytest.mark.slow
def test_a_week_of_traffic_lines_up_with_its_records():
    week = W.week_of_traffic(size=1000, labelled=100)
    assert len(week.records) == len(week.judge) == len(week.score) == len(week.filter) == 1000
    assert list(week.labelled) == sorted(set(week.labelled)) and len(week.labelled) == 100
    rule = L.make_rule_filter(L.DEFAULT_RULES)
    assert week.filter == tuple(bool(rule(r)) for r in week.records)
    probs = L.judge_probabilities(week.records)
    assert week.score == tuple(probs[r.no] for r in week.records)


def _stored_15():
    """The text/plain of every output notebook 15 stores, in order."""
    import json

    from conftest import ROOT

    nb = json.loads((ROOT / "notebooks" / "15_production_week.ipynb").read_text("utf-8"))
    return [
        "".join(o.get("text", "")) + "".join(o.get("data", {}).get("text/plain", ""))
        for c in nb["cells"]
        for o in c.get("outputs", [])
    ]


def _coverage_pairs(table):
    """(coverage, ± MC) of each row of a stored coverage table (the index name's row left
    out)."""
    columns = table.splitlines()[0].replace("± MC", "±MC").split()
    cover, error = columns.index("coverage"), columns.index("±MC")
    rows = [r.split()[-len(columns) :] for r in table.splitlines()[1:]]
    return [(float(r[cover]), float(r[error])) for r in rows if len(r) == len(columns)]


def _mc_wrong(pairs, weeks):
    """The pairs whose ± MC is not the binomial error of their coverage over ``weeks`` weeks,
    at the table's four decimals."""
    return [(c, e) for c, e in pairs if abs(e - T.mc_error(c, weeks)) > 6e-5]


def test_15s_stored_coverage_tables_show_the_monte_carlo_error_of_their_coverage():
    tables = [t for t in _stored_15() if "± MC" in t.splitlines()[0]]
    assert len(tables) == 4  # harmful and the ratio over 1,000 weeks; drift; shift in a class
    for table, weeks, rows in zip(tables, (1000, 1000, 1000, 500), (6, 4, 10, 10)):
        pairs = _coverage_pairs(table)
        assert len(pairs) == rows and _mc_wrong(pairs, weeks) == []
    # the check can fail: an error column of one standard error, not 1.96, is found
    one_se = [(c, round(e / 1.96, 4)) for c, e in _coverage_pairs(tables[0])]
    assert _mc_wrong(one_se, 1000)


def test_15s_hand_estimates_agree_with_estimate_rate_in_its_stored_output():
    assert any("by hand, the same: True" in t for t in _stored_15())


# ---------------------------------------------------------------- exercise checks


def test_exercise_checks_pass_the_answer_and_hint_otherwise(capsys):
    saving = step15._ANSWERS["check_agreement_saving"]()
    assert step15.check_agreement_saving(saving) is True
    assert step15.check_agreement_saving(saving + 1) is False
    assert step15.check_agreement_saving(-saving) is False
    assert "reverse" in capsys.readouterr().out
    need = W.labels_needed(step15.HALF_WIDTH, quantity="filter_right", stand_in="score")
    assert step15.check_agreement_saving(need["ppi++"]) is False
    assert "difference" in capsys.readouterr().out
    bias = step15._ANSWERS["check_drift_bias"]()
    assert step15.check_drift_bias(bias) is True
    assert step15.check_drift_bias(round(bias, 4)) is True
    assert step15.check_drift_bias(-bias) is False
    assert "sign" in capsys.readouterr().out
    assert step15.check_drift_bias(bias + 0.002) is False


# ---------------------------------------------------------------- the false block rate, a ratio

R_HARMFUL = [True, False, False, False, False, True]
R_FILTER = [1, 1, 0, 0, 1, 0]
R_JUDGE = [1, 0, 0, 1, 0, 1]
R_FILTER_REST = [1, 0, 0, 1, 0, 0, 1, 0]
R_JUDGE_REST = [1, 0, 0, 0, 0, 1, 1, 0]


def test_the_false_block_rate_worked_by_hand():
    # labelled: 4 clean records, the filter blocks 2 of them -> 1/2
    est = P.estimate_false_block_rate(
        R_HARMFUL, R_FILTER, R_JUDGE, R_FILTER_REST, R_JUDGE_REST, method="labelled"
    )
    assert est.value == pytest.approx(0.5)
    # Wald among the clean records: sqrt(0.5 * 0.5 / 4)
    assert est.high - est.value == pytest.approx(Z95 * math.sqrt(0.25 / 4))
    # judge: the rest's records judged clean (5), of which the filter blocks 1 -> 1/5
    judge = P.estimate_false_block_rate(
        R_HARMFUL, R_FILTER, R_JUDGE, R_FILTER_REST, R_JUDGE_REST, method="judge"
    )
    assert judge.value == pytest.approx(0.2)
    # PPI: a = blocks and clean = [0,1,0,0,1,0], a^ = blocks and judged clean = [0,1,0,0,1,0],
    # b = clean = [0,1,1,1,1,0], b^ = judged clean = [0,1,1,0,1,0]; on the rest the judge
    # calls 5 of 8 clean and the filter blocks 1 of those: numerator 1/8 + mean(a - a^) = 1/8,
    # denominator 5/8 + mean(b - b^) = 5/8 + 1/6
    ppi = P.estimate_false_block_rate(R_HARMFUL, R_FILTER, R_JUDGE, R_FILTER_REST, R_JUDGE_REST)
    assert ppi.value == pytest.approx((1 / 8) / (5 / 8 + 1 / 6))


@pytest.mark.slow  # importing ppi_py: about 3 s of CPU
@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("method, lam", [("ppi", 1), ("ppi++", None)])
def test_the_ratio_is_ppi_on_its_linearisation(seed, method, lam):
    """theta solves mean(a - theta b) = 0; at the estimate, ppi_py's mean interval of
    psi = a - theta b (and its stand-in) divided by the denominator is the ratio's."""
    rng = np.random.default_rng(seed)
    n, big_n = 300, 3000
    harmful = rng.random(n + big_n) < 0.38
    blocks = np.where(harmful, rng.random(n + big_n) < 0.8, rng.random(n + big_n) < 0.15)
    judge = np.where(rng.random(n + big_n) < 0.85, harmful, ~harmful).astype(float)
    est = P.estimate_false_block_rate(
        harmful[:n], blocks[:n], judge[:n], blocks[n:], judge[n:], method=method
    )
    a, b = blocks[:n] & ~harmful[:n], ~harmful[:n]
    ah, bh = blocks[:n] * (1 - judge[:n]), 1 - judge[:n]
    ag, bg = blocks[n:] * (1 - judge[n:]), 1 - judge[n:]
    t = est.value
    if lam is None:  # PPI++ tunes lam on psi at PPI's estimate (lam = 1) first
        t1 = P.estimate_false_block_rate(
            harmful[:n], blocks[:n], judge[:n], blocks[n:], judge[n:], method="ppi"
        ).value
        calc_lam = importlib.import_module("ppi_py.ppi")._calc_lam_glm  # ppi_py's own lam
        lam = calc_lam(a - t1 * b, ah - t1 * bh, ag - t1 * bg, np.eye(1), clip=True)
    den = lam * bg.mean() + (b - lam * bh).mean()
    num = lam * ag.mean() + (a - lam * ah).mean()
    assert t == pytest.approx(num / den)
    low, high = ppi_py.ppi_mean_ci(a - t * b, ah - t * bh, ag - t * bg, alpha=0.05, lam=lam)
    assert est.high - est.value == pytest.approx((high[0] - low[0]) / 2 / den)


@pytest.mark.parametrize(
    "args, words",
    [
        (([True, True], [1, 0], [1, 0], [1], [0]), "no clean record"),
        (([True, False], [1, 0], [1, 0], [1, 0], [1, 1]), "denominator"),
        (([True, False], [1, 0.5], [1, 0], [1], [0]), "0/1"),
        (([True, False], [1, 0], [1, 0], [1, 0], [0]), "judge_rest"),
        (([True, False], [1, 0, 1], [1, 0], [1], [0]), "filter_labelled"),
    ],
)
def test_the_false_block_rate_refuses_bad_input(args, words):
    with pytest.raises(ValueError) as caught:
        P.estimate_false_block_rate(*args)
    assert words in str(caught.value)


def test_rogan_gladen_is_not_offered_for_the_ratio():
    with pytest.raises(ValueError, match="method"):
        P.estimate_false_block_rate([1, 0], [1, 0], [1, 0], [1], [0], method="rogan_gladen")
    with pytest.raises(ValueError, match="methods"):
        W.simulate_estimates(weeks=2, quantity="false_block_rate", methods=("rogan_gladen",))


@pytest.mark.slow
@pytest.mark.parametrize("stand_in", W.STAND_INS)
def test_the_ratios_intervals_cover_the_true_false_block_rate(stand_in):
    est = W.simulate_estimates(weeks=600, quantity="false_block_rate", stand_in=stand_in, seed=8)
    rows = {r["method"]: r for r in W.coverage_rows(est, W.true_rates()["false_block_rate"])}
    for method in ("labelled", "ppi", "ppi++"):
        assert 0.92 <= rows[method]["coverage"] <= 0.975, (method, rows[method])
    assert rows["judge"]["coverage"] < 0.05
    assert rows["ppi"]["width"] < rows["labelled"]["width"]


@pytest.mark.slow
def test_a_weeks_false_block_rate_is_a_share():
    week = W.week_of_traffic(size=600, labelled=100, seed=W.WEEK_SEED + 10**8)
    lab = np.array(week.labelled)
    rest = np.setdiff1d(np.arange(600), lab)
    y = np.array([L.is_harmful(r) for r in week.records], dtype=float)
    fl, s = np.array(week.filter, dtype=float), np.array(week.score)
    est = P.estimate_false_block_rate(y[lab], fl[lab], s[lab], fl[rest], s[rest])
    assert 0 <= est.low <= est.value <= est.high <= 1


# ---------------------------------------------------------------- small samples (issue 35)


def wilson(k, n, z=Z95):
    """Wilson's interval of k in n, from its formula."""
    p = k / n
    centre = (k + z * z / 2) / (n + z * z)
    half = z / (n + z * z) * math.sqrt(n * p * (1 - p) + z * z / 4)
    return centre - half, centre + half


@pytest.mark.parametrize("method", ["labelled", "ppi", "ppi++", "rogan_gladen"])
@pytest.mark.parametrize(
    "person, judge",
    [
        ([1, 1], [1, 1]),  # n = 2, one class, the judge agreeing: the classical [1.0, 1.0]
        ([0] * 30, [0] * 30),  # thirty clean, all agreed
        ([1, 0] * 15, [1, 0] * 15),  # both classes, the judge right on every one
        ([1, 0, 0, 1, 0, 1], [1, 0, 0, 1, 1, 1]),  # one disagreement
    ],
)
def test_no_interval_collapses_on_a_small_or_uniform_sample(method, person, judge):
    rest = [1, 0, 0, 1, 0, 0, 0, 1] * 50
    if method == "rogan_gladen" and len(set(person)) == 1:
        with pytest.raises(ValueError, match="person"):  # a refusal naming person
            P.estimate_rate(person, judge, rest, method=method)
        return
    value, low, high = P.estimate_rate(person, judge, rest, method=method)
    # a share seen 0 (or n) times in n could still be up to Wilson's bound z^2 / (n + z^2)
    assert high - low >= Z95**2 / (len(person) + Z95**2) - 1e-12
    assert 0 <= low <= value <= high <= 1 or method in ("ppi", "ppi++")


def test_a_one_class_sample_gets_wilsons_interval():
    for k, n in ((0, 200), (2, 2), (0, 5)):
        person = [1] * k + [0] * (n - k)
        est = P.estimate_rate(person, person, [0, 1, 1], method="labelled")
        assert (est.low, est.high) == pytest.approx(wilson(k, n), abs=1e-12)
    assert P.estimate_rate([1, 1], [1, 1], [1, 0]).high - 0 <= 1  # inside [0, 1]


@pytest.mark.parametrize("method", P.RATIO_METHODS)
@pytest.mark.parametrize(
    "person, filter_labelled, judge_labelled",
    [
        ([0, 0, 1], [0, 0, 1], [0, 0, 1]),  # the filter blocks no clean record
        ([0] * 30, [1] * 30, [0] * 30),  # it blocks every clean record
        ([1, 0] * 15, [1, 0] * 15, [1, 0] * 15),  # the judge right on every one
    ],
)
def test_no_false_block_interval_collapses_on_a_uniform_sample(
    method, person, filter_labelled, judge_labelled
):
    filter_rest, judge_rest = [0, 1, 0, 0] * 100, [0, 1, 0, 1] * 100
    if method == "judge":  # the rest's blocks all judged harmful: a ratio seen at 0 there
        judge_rest = filter_rest
    value, low, high = P.estimate_false_block_rate(
        person, filter_labelled, judge_labelled, filter_rest, judge_rest, method=method
    )
    n = len(filter_rest) if method == "judge" else len(person)
    # the small-sample rule of estimate_rate: at least Wilson's room for a share seen 0 times
    assert high - low >= Z95**2 / (n + Z95**2) - 1e-12
    assert 0 <= low <= value <= high <= 1


def test_a_uniform_false_block_sample_gets_wilsons_interval():
    for blocked in (0, 1):  # every labelled record clean, none (or all) of them blocked
        est = P.estimate_false_block_rate(
            [0] * 20, [blocked] * 20, [0] * 20, [0, 1], [0, 0], method="labelled"
        )
        assert (est.low, est.high) == pytest.approx(wilson(20 * blocked, 20), abs=1e-12)


@pytest.mark.slow  # importing statsmodels
def test_wilson_matches_statsmodels():
    from statsmodels.stats.proportion import proportion_confint

    for k, n in ((0, 200), (40, 40), (0, 2)):
        est = P.estimate_rate([1] * k + [0] * (n - k), [0] * n, [0, 1], method="labelled")
        assert (est.low, est.high) == pytest.approx(
            proportion_confint(k, n, alpha=0.05, method="wilson"), abs=1e-9
        )


def test_the_judge_agreeing_everywhere_keeps_a_width_beyond_the_rests():
    person = [1, 0, 0, 1, 0] * 8  # 40 labels, the judge right on each
    rest = [1, 0, 0, 0] * 1000
    _, low, high = P.estimate_rate(person, person, rest, method="ppi")
    rest_only = P.estimate_rate(person, person, rest, method="judge")
    u = Z95**2 / (40 + Z95**2)
    assert high - low > 2 * u * 0.9  # the rule's part dominates the rest's
    assert high - low > 5 * (rest_only.high - rest_only.low)


def test_rogan_gladen_with_a_rate_at_one_spans_the_wilson_ends():
    person = [1, 0] * 10  # TPR = TNR = 1 on the labelled: the bootstrap alone holds them
    rest = [1, 0, 0, 0] * 500
    value, low, high = P.estimate_rate(person, person, rest, method="rogan_gladen")
    tpr_low, _ = wilson(10, 10)
    corner = (0.25 + 1 - 1) / (tpr_low + 1 - 1)  # TPR at its Wilson low, TNR 1
    assert high >= corner - 1e-9
    assert high - low > 0.1


def test_the_rule_leaves_ppi_pythons_intervals_alone_where_they_have_width():
    y, f, g = week_arrays(3)
    n = len(y)
    z = Z95
    value, low, high = P.estimate_rate(y, f, g, method="ppi")
    half = z * math.sqrt(g.var() / len(g) + (y - f).var() / n)
    assert (low, high) == pytest.approx((value - half, value + half), abs=1e-12)


# ---------------------------------------------------------------- a shift within a class


def test_a_shift_within_clean_moves_the_tnr_and_nothing_else():
    base, shifted = W.true_rates(), W.true_rates(flag_shares=W.WITHIN_SHIFT)
    assert shifted["harmful"] == base["harmful"]
    assert shifted["judge_tpr"] == pytest.approx(base["judge_tpr"], abs=1e-12)
    assert shifted["judge_tnr"] < base["judge_tnr"] - 0.05
    # the generator's own flag shares reproduce the population's figures
    same = W.true_rates(flag_shares={"clean": {"instruction_mode": L.PROFILE["clean"][0]}})
    for key, value in base.items():
        assert same[key] == pytest.approx(value, abs=1e-9), key
    fig = L.population_figures()
    assert base["judge_tpr"] == pytest.approx(fig["judge"]["recall"], abs=1e-12)
    assert base["judge_tnr"] == pytest.approx(1 - fig["judge"]["false_block_rate"], abs=1e-12)


def test_any_class_mix_leaves_the_tnr_unchanged():
    base = W.true_rates()["judge_tnr"]
    for shares in (W.DRIFT_SHARES, (0.3, 0.5, 0.05, 0.05, 0.05, 0.05)):
        assert W.true_rates(shares)["judge_tnr"] == pytest.approx(base, abs=1e-12)


def test_rogan_gladen_with_old_rates_is_biased_after_a_shift_within_clean():
    old, new = W.true_rates(), W.true_rates(flag_shares=W.WITHIN_SHIFT)
    expected = (new["judge_blocks"] + old["judge_tnr"] - 1) / (
        old["judge_tpr"] + old["judge_tnr"] - 1
    )
    assert expected - new["harmful"] > 0.05
    est = W.simulate_estimates(
        weeks=200,
        flag_shares=W.WITHIN_SHIFT,
        person_shares=L.CLASS_SHARE,
        methods=("rogan_gladen",),
        seed=4,
    )["rogan_gladen"]
    assert est[:, 0].mean() == pytest.approx(expected, abs=0.01)


# ---------------------------------------------------------------- lam and the Monte Carlo error


def test_the_monte_carlo_error_is_the_binomial_one():
    z = statistics.NormalDist().inv_cdf(0.975)
    assert T.mc_error(0.95, 1000) == pytest.approx(z * math.sqrt(0.95 * 0.05 / 1000))
    est = W.simulate_estimates(weeks=100, methods=("ppi",), seed=2)
    (row,) = W.coverage_rows(est, W.true_rates()["harmful"])
    assert row["error"] == pytest.approx(T.mc_error(row["coverage"], 100))


def test_best_lam_is_what_the_weeks_tune_on_average():
    pop = W._population(L.CLASS_SHARE, W.resolve_settings(None, {}))
    for stand_in in W.STAND_INS:
        y, s = W._draw(pop, "harmful", stand_in, 300, 5000, np.random.default_rng(5))
        lams = P._tuned_lam(y[:, :200], s[:, :200], s[:, 200:])
        assert np.median(lams) == pytest.approx(W.best_lam(stand_in=stand_in), abs=0.05)


def test_a_fixed_lam_row_is_ppi_with_that_weight():
    est = W.simulate_estimates(weeks=100, methods=("ppi",), lams={"one": 1.0}, seed=3)
    assert np.array_equal(est["ppi"], est["one"])


@pytest.mark.slow  # 20,000 weeks, drawn here with a binomial rest: about 3 s of CPU
def test_tuning_lam_costs_little_coverage_over_many_weeks():
    """PPI++ with lam tuned on each week's 200 labels against the population's best lam, on
    the same 20,000 weeks: the tuning costs under half a point of coverage."""
    harmful, chance, _, weight = W._population(L.CLASS_SHARE, W.resolve_settings(None, {}))
    rng = np.random.default_rng(20_000)
    n, rest, weeks = 200, 4800, 20_000
    kind = rng.choice(len(weight), size=(weeks, n), p=weight)
    y = harmful[kind].astype(float)
    f = (rng.random((weeks, n)) < chance[kind]).astype(float)
    m = float((weight * chance).sum())
    g_mean = rng.binomial(rest, m, size=weeks) / rest
    truth = W.true_rates()["harmful"]
    best = W.best_lam()
    cov = ((y - y.mean(1, keepdims=True)) * (f - f.mean(1, keepdims=True))).mean(1)
    total = f.sum(1) + g_mean * rest
    var = (total - total**2 / (n + rest)) / (n + rest - 1)  # 0/1 values: squares = values
    tuned = np.clip(cov / ((1 + n / rest) * var), 0, 1)
    covered = {}
    for name, lam in (("tuned", tuned), ("best", np.full(weeks, best))):
        value = lam * g_mean + (y - lam[:, None] * f).mean(1)
        half = Z95 * np.sqrt(
            lam**2 * g_mean * (1 - g_mean) / rest + (y - lam[:, None] * f).var(1) / n
        )
        covered[name] = np.mean(np.abs(value - truth) <= half)
    assert abs(covered["best"] - 0.95) < 0.006
    assert 0 <= covered["best"] - covered["tuned"] < 0.005
