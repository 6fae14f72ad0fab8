"""Notebook 16: the designs over simulated weeks, the person's slips, the dashboard.

Each study is held to what the definitions say it must give: the labels each design needs
worked from the population's exact table, the slip rate from a disagreement share by hand, the
normal-mixture boundary by its formula, and coverage counted on weeks whose truth is known.
"""

import math
import statistics

import numpy as np
import pytest

import lessonlib as L
from lessonlib import labelling as B
from lessonlib import weeks as W
from lessonlib.judge import resolve_settings
from lessonlib.records import CLASS_SHARE

Z95 = statistics.NormalDist().inv_cdf(0.975)
TRUTH = 1 - CLASS_SHARE[0]


def covered(est, truth=TRUTH):
    return float(((est[:, 1] <= truth) & (truth <= est[:, 2])).mean())


# ---------------------------------------------------------------- labels per design


def test_labels_per_design_by_hand():
    need = B.design_labels_needed(0.03)
    assert need["random"] == math.ceil(Z95**2 * TRUTH * (1 - TRUTH) / 0.03**2) == 1006
    assert need["random"] == W.labels_needed(0.03)["labelled"]
    # worked from the exact table: each level's share W, true share p; week of 5,000
    harmful, chance, _, weight = W._population(CLASS_SHARE, resolve_settings(None, {}))
    levels, where = np.unique(chance, return_inverse=True)
    share = np.bincount(where, weight)
    p = np.bincount(where, weight * harmful) / share
    within = (share * p * (1 - p)).sum()
    between = (share * p * p).sum() - TRUTH**2
    room = 0.03**2 / Z95**2 - between / 5000
    assert need["proportional"] == math.ceil(within / room)
    assert need["neyman (true)"] == math.ceil((share * np.sqrt(p * (1 - p))).sum() ** 2 / room)


def test_the_score_levels_sum_to_the_traffic():
    rows = B.score_levels()
    assert sum(r["share"] for r in rows) == pytest.approx(1.0)
    assert sum(r["share"] * r["harmful"] for r in rows) == pytest.approx(TRUTH)
    assert [r["score"] for r in rows] == sorted(r["score"] for r in rows)
    low = rows[0]  # the judge is surest there, and wrong more often than its score says
    assert low["score"] < 0.01 < low["harmful"]


def test_neyman_helps_only_with_a_fair_guess_of_the_spread():
    need = B.design_labels_needed(0.03)
    assert need["neyman (true)"] < need["neyman (prior)"] < need["proportional"]
    assert need["neyman (score)"] > need["proportional"]  # the raw score starves level 0.005
    assert need["proportional"] < W.labels_needed(0.03, stand_in="score")["ppi++"]


def test_a_bigger_week_needs_fewer_labels():
    assert (
        B.design_labels_needed(0.03, size=10**9)["proportional"]
        < (B.design_labels_needed(0.03)["proportional"])
    )


@pytest.mark.slow
def test_simulated_designs_cover_and_the_stratified_ones_are_narrower():
    est = B.simulate_designs(weeks=600, seed=4)
    for design, e in est.items():
        assert 0.93 <= covered(e) <= 0.97, (design, covered(e))
    width = {d: float((e[:, 2] - e[:, 1]).mean()) for d, e in est.items()}
    assert width["neyman"] < width["proportional"] < width["random"]
    assert width["neyman"] <= 0.95 * width["random"]


def test_the_simulation_agrees_with_the_doors():
    from test_strata import door_weeks

    doors = door_weeks("neyman", 40, 360, seed=3)
    sim = B.simulate_designs("neyman", weeks=400, seed=3)["neyman"]
    assert np.mean(doors[:, 2] - doors[:, 1]) == pytest.approx(
        np.mean(sim[:, 2] - sim[:, 1]), rel=0.02
    )


# ------------------------------------------------------------------------------ slips


def test_the_slip_rate_from_a_disagreement_share():
    first = [0] * 90 + [1] * 10
    e = B.slip_rate(first, [0] * 100)
    assert e.value == pytest.approx((1 - math.sqrt(1 - 2 * 0.1)) / 2)
    var = 0.1 * 0.9 / 100 / (4 * 0.8)
    assert e.high - e.value == pytest.approx(Z95 * math.sqrt(var))


def test_the_correction_undoes_the_slip_rate_by_hand():
    person, f, g = [1, 0, 1, 1, 0, 0], [0.9, 0.1, 0.8, 0.7, 0.2, 0.1], [0.5] * 20
    first, second = [0] * 45 + [1] * 5, [0] * 50
    plain = L.estimate_rate(person, f, g, method="ppi")
    e = B.slip_rate(first, second).value
    fixed = B.estimate_with_slips(person, f, g, first, second, method="ppi")
    assert fixed.value == pytest.approx((plain.value - e) / (1 - 2 * e))
    assert fixed.high - fixed.low > (plain.high - plain.low) / (1 - 2 * e)


@pytest.mark.slow
def test_slips_bias_ppi_and_double_labels_repair_it():
    slip = 0.05
    plain = B.simulate_slips(slip, 1000, weeks=1000, seed=1)
    bias = plain[:, 0].mean() - TRUTH
    assert bias == pytest.approx(slip * (1 - 2 * TRUTH), abs=0.002)
    assert covered(plain) < 0.88  # more labels narrow the interval round the wrong value
    fixed = B.simulate_slips(slip, 1000, double=200, weeks=1000, seed=1)
    assert 0.93 <= covered(fixed) <= 0.97
    assert abs(fixed[:, 0].mean() - TRUTH) < 0.002


def test_no_slips_and_no_second_labels_is_plain_ppi_plus_plus():
    est = B.simulate_slips(0.0, 200, weeks=200, seed=2)
    assert 0.91 <= covered(est) <= 0.98


# -------------------------------------------------------------------------- dashboard


def test_the_confidence_sequence_by_its_formula():
    labels = [1, 0, 0, 1, 0, 1, 1, 0, 0, 0] * 5
    seq = B.confidence_sequence(labels, planned=20)
    t, m = 50, 0.4
    v = m * (1 - m)
    r2 = (-2 * math.log(0.05) + math.log(-2 * math.log(0.05) + 1)) / 20
    half = math.sqrt(v) * math.sqrt(
        2 * (t * r2 + 1) / (t * t * r2) * math.log(math.sqrt(t * r2 + 1) / 0.05)
    )
    assert seq[-1].value == pytest.approx(m)
    assert seq[-1].high - seq[-1].value == pytest.approx(half)
    assert half > Z95 * math.sqrt(v / t)  # the price of holding at every look


@pytest.mark.slow  # 2,000 streams through confidence_sequence
def test_a_dashboard_read_at_every_look_misses_and_the_sequence_holds():
    truth, looks = 0.38, np.array(B.LOOKS)
    streams = (np.random.default_rng(3).random((2000, 500)) < truth).astype(float)
    seq = np.array([B.confidence_sequence(x)[9::10] for x in streams])  # at each look
    assert looks.tolist() == list(range(10, 501, 10))
    m = seq[..., 0]
    fixed = Z95 * np.sqrt(m * (1 - m) / looks)
    missed = np.abs(m - truth) > fixed
    held = ((seq[..., 1] <= truth) & (truth <= seq[..., 2])).all(axis=1)
    assert 0.33 <= missed.any(axis=1).mean() <= 0.45
    assert held.mean() >= 0.945
    assert ((seq[..., 2] - seq[..., 1]).mean(axis=0) > 2 * fixed.mean(axis=0)).all()
    # each look alone is a 95% interval once the labels are not too few
    assert missed.mean(axis=0)[4:].max() < 0.085  # Wald wobbles: a binomial
