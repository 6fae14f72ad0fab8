"""lessonlib.score (notebook 08): the judge's score, ROC/AUC, Brier, calibration; and
lessonlib.designs (notebook 09): a cascade.

The references are scikit-learn's ``roc_auc_score``, ``brier_score_loss`` and
``calibration_curve`` (a test-only dependency, pinned in requirements.txt), imported where
they are used; next to them, cases worked by hand with ties.  The cascade is checked against
``run_judge`` on the records the filter lets through, seed by seed.
"""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import lessonlib as L
from lesson_defs import record
from lessonlib import designs as D
from lessonlib import population as P
from lessonlib import score as S
from lessonlib.simulator import label_probabilities

RECORDS = L.make_records()
TRUTH = [L.is_harmful(r) for r in RECORDS]
EVEN = {"temiz": 0.45, "zararli": 0.45}
SETTINGS = [
    dict(),
    dict(temperature=1.0),
    dict(spurious={}),
    dict(prior=EVEN),
    dict(temperature=0.0),
    dict(temperature=0.05, spurious={}),
]


def scores_of(probs, records=RECORDS):
    return [probs[r.no] for r in records]


def sk_auc(truth, scores):
    from sklearn.metrics import roc_auc_score

    return roc_auc_score(truth, scores)


def sk_brier(truth, probs):
    from sklearn.metrics import brier_score_loss

    return brier_score_loss(truth, probs)


def sk_curve(truth, probs, n_bins):
    from sklearn.calibration import calibration_curve

    return calibration_curve(np.array(truth, dtype=int), probs, n_bins=n_bins, strategy="uniform")


# ---------------------------------------------------------------- the score

ODD_CUES = {
    ",": "zararli",
    "YONER": "zararli",
    "kayit": "temiz",
    "ma": "zararli",
    "?": "temiz",
    "yonerge": "zararli",
    "a b": "zararli",
    "gizli": "temiz",
    "yoner": "zararli",
}


@pytest.mark.parametrize(
    "settings_",
    SETTINGS
    + [
        dict(cues=ODD_CUES),
        dict(cues={}, spurious={}),
        dict(spurious={"yoner": "temiz"}),
        dict(guideline="Kaydi incele , tek etiket : "),
    ],
    ids=str,
)
def test_judge_probabilities_are_the_simulators_label_probabilities(settings_):
    probs = L.judge_probabilities(RECORDS, **settings_)
    assert list(probs) == [r.no for r in RECORDS]
    settings_ = dict(settings_)
    guideline = settings_.pop("guideline", L.GUIDELINE)
    for r in RECORDS:
        expected = label_probabilities(L.build_prompt(r, guideline), **settings_)["zararli"]
        assert probs[r.no] == expected


def test_a_record_without_flags_worked_by_hand():
    # 'yok' adds 1.0 to the clean prior 0.75; 'zararli' keeps its 0.15: softmax at 0.3
    p = L.judge_probabilities([record(no=1)])[1]
    assert p == pytest.approx(1 / (1 + math.exp((1.75 - 0.15) / 0.3)), rel=1e-12)
    one = record(no=2, cls="indirect_instruction", flags=("instruction_mode",))
    # 'yonerge' -> 'yoner' (harmful cue, 1.0): 1.15 against 0.75
    assert L.judge_probabilities([one])[2] == pytest.approx(
        1 / (1 + math.exp((0.75 - 1.15) / 0.3)), rel=1e-12
    )


def test_at_temperature_zero_the_top_label_gets_one():
    probs = L.judge_probabilities(RECORDS, temperature=0)
    run = L.run_judge(RECORDS, temperature=0)
    assert set(probs.values()) == {0.0, 1.0}
    # every prompt fits the window at the lesson's settings, so each label is the top label
    assert all((probs[no] == 1.0) == (label == "zararli") for no, label in run.labels.items())


def test_the_lesson_records_get_one_score_per_cue_set():
    probs = L.judge_probabilities(RECORDS)
    assert len(set(probs.values())) == 9  # 08's nine score levels
    # records with the same flags get the same score (the text carries no cue)
    by_flags = {}
    for r in RECORDS:
        by_flags.setdefault(tuple(r.features.on()), set()).add(probs[r.no])
    assert all(len(v) == 1 for v in by_flags.values())


# ---------------------------------------------------------------- AUC, Brier, calibration


@pytest.mark.parametrize(
    "truth, scores, expected",
    [
        # pairs (harmful, clean): (.8,.8) tie 1/2, (.8,.2) 1, (.4,.8) 0, (.4,.2) 1 -> 2.5 / 4
        ([True, False, True, False], [0.8, 0.8, 0.4, 0.2], 0.625),
        ([True, False], [0.3, 0.3], 0.5),  # one tie: one half
        ([True, True, False], [0.9, 0.5, 0.1], 1.0),
        ([True, False, False], [0.1, 0.5, 0.9], 0.0),
        # 2 harmful x 3 clean = 6 pairs: 5 (harmful at 7): 7>3, 7>5, 7=7 -> 2.5; 3: 3=3 -> .5
        ([True, True, False, False, False], [7, 3, 3, 5, 7], 3 / 6),
    ],
)
def test_auc_worked_by_hand_with_ties(truth, scores, expected):
    assert L.roc_auc(truth, scores) == pytest.approx(expected, abs=1e-15)
    assert L.roc_auc(truth, scores) == pytest.approx(sk_auc(truth, scores), abs=1e-12)


def test_brier_worked_by_hand():
    assert L.brier([True, False], [0.8, 0.3]) == pytest.approx((0.2**2 + 0.3**2) / 2)
    assert L.brier([True, False], [0.5, 0.5]) == 0.25
    assert L.brier([True, False], [1, 0]) == 0.0
    assert L.brier([False, False], [0.5, 0.0]) == 0.125  # one class is defined here


def test_calibration_worked_by_hand_an_edge_goes_to_the_bin_below():
    rows = L.calibration_table([False, True, False, True, True], [0.0, 0.5, 0.5, 0.75, 1.0], 2)
    assert [(r.low, r.high, r.count) for r in rows] == [(0.0, 0.5, 3), (0.5, 1.0, 2)]
    assert rows[0].predicted == pytest.approx(1 / 3) and rows[0].observed == pytest.approx(1 / 3)
    assert rows[1].predicted == pytest.approx(0.875) and rows[1].observed == 1.0


def test_calibration_leaves_empty_bins_out():
    rows = L.calibration_table([True, False, True], [0.05, 0.05, 0.95])
    assert [(r.low, r.high, r.count) for r in rows] == [(0.0, 0.1, 2), (0.9, 1.0, 1)]
    assert rows[0].observed == 0.5 and rows[1].observed == 1.0


@pytest.mark.parametrize("settings_", SETTINGS, ids=str)
def test_the_lesson_scores_against_scikit_learn(settings_):
    scores = scores_of(L.judge_probabilities(RECORDS, **settings_))
    assert L.roc_auc(TRUTH, scores) == pytest.approx(sk_auc(TRUTH, scores), abs=1e-12)
    assert L.brier(TRUTH, scores) == pytest.approx(sk_brier(TRUTH, scores), abs=1e-12)
    for n_bins in (1, 3, 10, 17):
        rows = L.calibration_table(TRUTH, scores, n_bins)
        prob_true, prob_pred = sk_curve(TRUTH, scores, n_bins)
        assert [r.observed for r in rows] == pytest.approx(list(prob_true), abs=1e-12)
        assert [r.predicted for r in rows] == pytest.approx(list(prob_pred), abs=1e-12)


GRID = st.sampled_from([0.0, 0.1, 0.2, 0.25, 0.3, 0.5, 0.7, 0.75, 0.8, 0.9, 1.0, 0.123, 0.61])


@pytest.mark.slow  # about 1 s of CPU or more: make test runs it, make check does not
@settings(max_examples=150, deadline=None)
@given(
    st.lists(st.tuples(st.booleans(), GRID), min_size=2, max_size=30),
    st.integers(min_value=1, max_value=12),
)
def test_against_scikit_learn_on_many_ties_and_bin_edges(pairs, n_bins):
    truth, probs = [t for t, _ in pairs], [p for _, p in pairs]
    if len(set(truth)) == 2:
        assert L.roc_auc(truth, probs) == pytest.approx(sk_auc(truth, probs), abs=1e-12)
    assert L.brier(truth, probs) == pytest.approx(sk_brier(truth, probs), abs=1e-12)
    rows = L.calibration_table(truth, probs, n_bins)
    prob_true, prob_pred = sk_curve(truth, probs, n_bins)
    assert [r.observed for r in rows] == pytest.approx(list(prob_true), abs=1e-12)
    assert [r.predicted for r in rows] == pytest.approx(list(prob_pred), abs=1e-12)
    assert sum(r.count for r in rows) == len(pairs)


def test_numpy_arrays_are_accepted():
    truth, scores = np.array(TRUTH), np.array(scores_of(L.judge_probabilities(RECORDS)))
    assert L.roc_auc(truth, scores) == L.roc_auc(TRUTH, list(scores))
    assert L.brier(truth, scores) == L.brier(TRUTH, list(scores))


def test_roc_points_and_cost_table_agree_with_counting():
    scores = scores_of(L.judge_probabilities(RECORDS))
    rows = S.threshold_costs(TRUTH, scores, false_block=1, miss=3)
    for row in rows:
        blocked = [s >= row["threshold"] for s in scores]
        fp = sum(b and not t for b, t in zip(blocked, TRUTH))
        fn = sum(t and not b for b, t in zip(blocked, TRUTH))
        assert (row["false blocks"], row["misses"], row["cost"]) == (fp, fn, fp + 3 * fn)
    # a judge at temperature 0 is the threshold 0.5 on the score
    zero = L.run_judge(RECORDS, temperature=0)
    m = L.measure(RECORDS, zero.decide)
    at_half = next(r for r in reversed(rows) if r["threshold"] >= 0.5)
    assert (m["fp"], m["fn"]) == (at_half["false blocks"], at_half["misses"])


# ---------------------------------------------------------------- the cascade

JUDGE_SETTINGS = [
    dict(),
    dict(temperature=1.0),
    dict(temperature=0.0),
    dict(guideline="Kaydi incele ve karar ver : "),  # free-form, retries
    dict(max_output=2, unreadable_as="harmful"),
]


@pytest.mark.parametrize("settings_", JUDGE_SETTINGS, ids=str)
@pytest.mark.parametrize("seed", [L.SEED, 7, 2**33 + 5])
def test_cascade_is_the_filter_then_run_judge_on_what_it_lets_through(settings_, seed):
    run = L.cascade(RECORDS, seed, **settings_)
    passed = [r for r in RECORDS if not L.rule_filter(r)]
    judge = L.run_judge(passed, seed, **settings_)
    for r in RECORDS:
        expected = "zararli" if L.rule_filter(r) else judge.labels[r.no]
        assert run.labels[r.no] == expected
    assert (run.calls, run.input_tokens, run.retries, run.unreadable) == (
        judge.calls,
        judge.input_tokens,
        judge.retries,
        judge.unreadable,
    )
    assert run.blocked == tuple(r.no for r in RECORDS if L.rule_filter(r))
    assert run.escalated == () and run.people == 0
    assert L.measure(RECORDS, run.decide)["tp"] == sum(
        1 for r in RECORDS if L.is_harmful(r) and run.labels[r.no] == "zararli"
    )


def test_cascade_without_rules_is_the_judge():
    run, judge = L.cascade(RECORDS, rules=()), L.run_judge(RECORDS)
    assert run.labels == judge.labels
    assert (run.calls, run.input_tokens) == (judge.calls, judge.input_tokens)
    assert L.measure(RECORDS, run.decide) == L.measure(RECORDS, judge.decide)


def test_cascade_when_the_filter_blocks_everything_calls_no_judge():
    blocked = [record(no=1, cls="indirect_instruction", flags=("instruction_mode",))]
    run = L.cascade(blocked)
    assert run.labels == {1: "zararli"} and (run.calls, run.input_tokens) == (0, 0)
    assert run.judge is None


@pytest.mark.parametrize("rules", [L.DEFAULT_RULES, ()])
@pytest.mark.parametrize("low, high", [(0.1, 0.9), (0.0, 1.0), (0.5, 0.5), (0.7914, 0.995)])
def test_escalate_sends_the_unconfident_records_to_a_person(rules, low, high):
    plain = L.cascade(RECORDS, rules=rules, temperature=0.6)
    run = L.cascade(RECORDS, rules=rules, temperature=0.6, low=low, high=high)
    sent = set()
    for r in RECORDS:
        if rules and L.rule_filter(r):
            continue
        p = label_probabilities(L.build_prompt(r), 0.6)["zararli"]
        if low < p < high:
            sent.add(r.no)
    assert set(run.escalated) == sent and run.people == len(sent)
    for r in RECORDS:
        human = "zararli" if L.is_harmful(r) else "temiz"
        assert run.labels[r.no] == (human if r.no in sent else plain.labels[r.no])
    assert (run.calls, run.input_tokens) == (plain.calls, plain.input_tokens)


def test_a_cascade_refuses_records_it_did_not_decide():
    run = L.cascade(RECORDS[:10])
    with pytest.raises(ValueError, match="record"):
        L.measure(RECORDS[:11], run.decide)
    other = record(no=1, cls="clean")
    with pytest.raises(ValueError, match="does not belong"):
        run.decide(other if other != RECORDS[0] else record(no=1, text="baska bir soru"))


@pytest.mark.parametrize("name", list(D.designs(0.1, 0.9)))
def test_design_many_is_cascade_seed_by_seed(name):
    seeds = [L.SEED, L.SEED + 1, 99]
    settings_ = D.designs(0.1, 0.9)[name]
    d = D.design_many(RECORDS, seeds, settings_, L.JudgeSettings())
    for i, seed in enumerate(seeds):
        if settings_ is None:
            harmful = [L.rule_filter(r) for r in RECORDS]
            calls = tokens = people = 0
        else:
            run = L.cascade(RECORDS, seed, **settings_)
            harmful = [run.decide(r) for r in RECORDS]
            calls, tokens, people = run.calls, run.input_tokens, run.people
        assert d["harmful"][i].tolist() == harmful
        assert (int(d["calls"][i]), int(d["tokens"][i]), d["people"]) == (calls, tokens, people)


# ---------------------------------------------------------------- the exercise checks of 08
# (kept here, not in test_exercises.py, so the new steps' branches do not collide there)


def _said(capsys):
    out = capsys.readouterr().out
    assert all(len(line) <= 80 for line in out.splitlines())
    return " ".join(out.split())


def test_break_even_worked_from_the_flags(capsys):
    from lessonlib.exercises import step08

    # the two cheapest thresholds differ only in the records with one flag, not the length
    # flag: blocking them adds their clean ones as false blocks, removes their harmful ones
    # as misses; equal cost at m = clean / harmful among them
    one = [r for r in RECORDS if len(r.features.on()) == 1 and not r.features["excessive_length"]]
    clean = sum(1 for r in one if not L.is_harmful(r))
    m = clean / (len(one) - clean)
    assert step08._ANSWERS["check_break_even"]() == pytest.approx(m, abs=1e-12)
    assert step08.check_break_even(m) is True
    assert _said(capsys).startswith("PASS: ")
    for wrong, words in (
        (..., "fill in"),
        (1 / m, "other way round"),
        (0.5, "probability"),
        (2.0, "not that cost"),
        (None, "positive number"),
        ("1.27", "positive number"),
        (-1, "positive number"),
        (True, "positive number"),
    ):
        assert step08.check_break_even(wrong) is False
        out = _said(capsys)
        assert out.startswith("Not yet: ") and words in out
        assert f"{m:.4f}" not in out


@pytest.mark.slow  # about 1 s of CPU or more: make test runs it, make check does not
def test_best_temperature_worked_from_the_margins(capsys):
    from lessonlib.exercises import step08

    def margin(r):  # harmful weight minus clean weight (notebook 03's cue table)
        on = r.features.on()
        if not on:
            return 0.15 - (0.75 + 1.0)
        return 0.15 + sum(1.3 if f == "excessive_length" else 1.0 for f in on) - 0.75

    def brier_at(t):
        return sum(
            (1 / (1 + math.exp(-margin(r) / t)) - L.is_harmful(r)) ** 2 for r in RECORDS
        ) / len(RECORDS)

    grid = [k / 100 for k in range(1, 301)]  # the range 0.01 .. 3.00, two decimals
    best = min(grid, key=brier_at)
    assert step08._ANSWERS["check_best_temperature"]() == best
    assert step08.check_best_temperature(best) is True
    assert _said(capsys).startswith("PASS: ")
    for wrong, words in (
        (..., "fill in"),
        (None, "give a number"),
        (0.3, "lesson's temperature"),
        (round(best + 0.01, 2), "minimise"),
        (2.0, "minimise"),
        (3.5, "outside the range"),
        ("0.7", "give a number"),
    ):
        assert step08.check_best_temperature(wrong) is False
        out = _said(capsys)
        assert out.startswith("Not yet: ") and words in out
    assert step08.check_best_temperature(best + 0.004) is True  # two decimals are enough
    capsys.readouterr()


# ---------------------------------------------------------------- the pictures


def test_the_roc_picture_draws_the_points():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    probs = L.judge_probabilities(RECORDS)
    truth, scores = TRUTH, scores_of(probs)
    points = S.roc_points(truth, scores)
    fig = S.plot_roc(truth, scores, {"filter": (0.1, 0.8)})
    curve = fig.axes[0].lines[0]
    assert list(curve.get_xdata()) == [p[1] for p in points]
    assert list(curve.get_ydata()) == [p[2] for p in points]
    assert L.roc_auc(truth, scores) == pytest.approx(
        sum(
            (x1 - x0) * (y0 + y1) / 2 for (_, x0, y0, _), (_, x1, y1, _) in zip(points, points[1:])
        ),
        abs=1e-12,
    )  # the AUC is the area under the points
    plt.close("all")


def test_the_cascade_takes_the_judge_prior_like_run_judge():
    even = {"temiz": 0.45, "zararli": 0.45}
    records = L.make_records()[:60]
    run = L.cascade(records, prior=even, low=0.2, high=0.8)
    passed = [r for r in records if not L.rule_filter(r)]
    judge = L.run_judge(passed, prior=even)
    assert (run.calls, run.input_tokens) == (judge.calls, judge.input_tokens)
    probs = L.judge_probabilities(passed, prior=even)
    assert run.escalated == tuple(r.no for r in passed if 0.2 < probs[r.no] < 0.8)
    assert probs != L.judge_probabilities(passed)  # the prior is really used


# ---------------------------------------------------- calibration per level (issue 26)


def test_calibration_levels_against_statsmodels_wilson():
    from statsmodels.stats.proportion import proportion_confint

    truth, scores = TRUTH, scores_of(L.judge_probabilities(RECORDS))
    rows = L.calibration_levels(truth, scores)
    assert [r.score for r in rows] == sorted(set(scores))
    assert sum(r.count for r in rows) == len(RECORDS)
    for r in rows:
        members = [t for t, s in zip(truth, scores) if s == r.score]
        assert (r.count, r.harmful) == (len(members), sum(members))
        assert r.observed == r.harmful / r.count
        low, high = proportion_confint(r.harmful, r.count, alpha=0.05, method="wilson")
        assert (r.low, r.high) == (pytest.approx(low, abs=1e-12), pytest.approx(high, abs=1e-12))
    low, high = proportion_confint(3, 10, alpha=0.2, method="wilson")
    (row,) = L.calibration_levels([True] * 3 + [False] * 7, [0.5] * 10, level=0.8)
    assert (row.low, row.high) == (pytest.approx(low, abs=1e-12), pytest.approx(high, abs=1e-12))


def test_the_bottom_level_misses_its_score():
    bottom = L.calibration_levels(TRUTH, scores_of(L.judge_probabilities(RECORDS)))[0]
    assert bottom.score < bottom.low  # harmful more often than the score says, beyond chance


# ------------------------------------------------------- a paired difference (issue 26)


def test_paired_difference_band_is_the_paired_bootstrap_band():
    probs = L.judge_probabilities(RECORDS)
    shares = [probs[r.no] for r in RECORDS]
    filt = [L.rule_filter(r) for r in RECORDS]
    for figure in ("agreement", "recall", "false_block_rate", "precision"):
        d = L.paired_difference(TRUTH, shares, filt, figure, n_resamples=2000, seed=3)
        band = L.paired_bootstrap(
            TRUTH, np.array(shares), np.array(filt, float), figure, n_resamples=2000, seed=3
        )
        assert (d.low, d.high) == pytest.approx(band, abs=1e-12)
        assert d.low <= d.estimate <= d.high or figure == "precision"


def test_paired_difference_estimate_is_counted_by_hand():
    truth = [True, True, False, False]
    a, b = [0.5, 1.0, 0.25, 0.0], [True, False, False, True]
    d = L.paired_difference(truth, a, b, "agreement", n_resamples=50)
    # expected right: a 0.5 + 1 + 0.75 + 1 = 3.25 of 4; b: 1 + 0 + 1 + 0 = 2 of 4
    assert d.estimate == pytest.approx(3.25 / 4 - 2 / 4)
    d = L.paired_difference(truth, a, b, "false_block_rate", n_resamples=50)
    assert d.estimate == pytest.approx(0.25 / 2 - 1 / 2)


def test_paired_difference_p_value_reads_the_band():
    same = L.paired_difference(TRUTH, [0.5] * 240, [0.5] * 240, n_resamples=500)
    assert (same.low, same.high, same.p_value, same.measurable) == (0.0, 0.0, 1.0, False)
    right = L.paired_difference(TRUTH, TRUTH, [not t for t in TRUTH], n_resamples=500)
    assert right.measurable and right.p_value == 0.0  # no resample on or across zero
    probs = L.judge_probabilities(RECORDS)
    d = L.paired_difference(
        TRUTH, [probs[r.no] for r in RECORDS], [L.rule_filter(r) for r in RECORDS]
    )
    assert d.measurable == (d.p_value < 0.05)


# ------------------------------------------------ designs compared paired (issue 26)


def test_design_comparisons_are_paired_on_seeds_and_records():
    seeds = range(L.SEED, L.SEED + 30)
    shares = D.design_shares(RECORDS, seeds, 0.1, 0.9)
    pairs = [("filter, then judge", "judge alone", f) for f in ("agreement", "false_block_rate")]
    rows = D.design_comparisons(RECORDS, shares, pairs, pairs[0], n_resamples=500)
    a = D.design_many(RECORDS, seeds, D.designs(0.1, 0.9)["filter, then judge"], L.JudgeSettings())
    b = D.design_many(RECORDS, seeds, D.designs(0.1, 0.9)["judge alone"], L.JudgeSettings())
    truth = np.array(TRUTH)
    assert (shares["filter, then judge"]["harmful"] == a["harmful"]).all()
    assert (shares["judge alone"]["calls"] == b["calls"]).all()
    for row, (_, _, figure) in zip(rows, pairs):
        band = L.paired_bootstrap(
            truth,
            a["harmful"].mean(axis=0),
            b["harmful"].mean(axis=0),
            figure,
            n_resamples=500,
        )
        assert (row["records"].low, row["records"].high) == pytest.approx(band, abs=1e-12)
    assert rows[0]["primary"] and rows[0]["p"] == rows[0]["records"].p_value
    assert not rows[1]["primary"] and rows[1]["p"] == rows[1]["records"].p_value  # Holm of one


def test_escalated_records_agree_by_construction_and_design_shares_send_them():
    shares = D.design_shares(RECORDS, range(L.SEED, L.SEED + 20), 0.1, 0.9)
    run = L.cascade(RECORDS, rules=(), low=0.1, high=0.9)
    sent = set(run.escalated)
    assert all(run.decide(r) == L.is_harmful(r) for r in RECORDS if r.no in sent)
    d = shares["judge or a person"]
    assert [r.no for r, s in zip(RECORDS, d["sent"]) if s] == sorted(sent)
    assert (d["harmful"][:, d["sent"]] == np.array(TRUTH)[d["sent"]]).all()
    assert int(d["calls"][0]) == run.calls


def test_first_run_percentile_is_the_courses_one_percentile_a_tie_counting_half():
    # two of five below run 1, two (run 1 itself included) equal: 40 + 40 / 2
    assert S.first_run_percentile([0.5, 0.1, 0.5, 0.9, 0.2]) == pytest.approx(60.0)
    assert S.first_run_percentile([0.0, 0.1]) == pytest.approx(25.0)
    values = np.random.default_rng(3).integers(0, 5, 200) / 4
    assert S.first_run_percentile(values) == L.percentile(values, values[0])


# ------------------------------------------ no answer one Tab away (issues 26 and 30)


@pytest.mark.slow  # computes every answer: about 2 s of CPU
@pytest.mark.parametrize("step", ["step08", "step12", "step14"])
def test_no_public_name_of_the_exercise_module_holds_or_returns_an_answer(step):
    import importlib
    import inspect

    module = importlib.import_module(f"lessonlib.exercises.{step}")
    answers = [compute() for compute in module._ANSWERS.values()]
    for name in dir(module):
        value = getattr(module, name)
        if name.startswith("_") or inspect.ismodule(value) or name.startswith("check_"):
            continue
        if getattr(value, "__module__", module.__name__) != module.__name__:
            continue  # imported from the library, not the exercise module's own
        got = value
        if callable(value) and not isinstance(value, type):
            try:
                got = value()
            except TypeError:
                continue  # needs arguments: not an answer by itself
        assert not any(got is a or (type(got) is type(a) and got == a) for a in answers), name
        assert not callable(got) or got not in answers, name


# ------------------------------------ the score and the designs over the population (issue 35)


def _brute_population(spurious=True):
    """(flag profile, harmful?, weight) over every class and flag profile, from the generator's
    tables, and each profile's score worked from the judge's rule by hand: the prior margin
    -0.6, +1 per cue flag, +1.3 for length (the spurious cue), -1 for 'yok' (no flag at all),
    read at temperature 0.3.  Source and text do not move the score."""
    import itertools

    rows = []
    for flags in itertools.product((0, 1), repeat=len(L.FEATURES)):
        margin = -0.6 + sum(flags[:6]) + (1.3 if spurious and flags[6] else 0.0)
        margin -= 0.0 if any(flags) else 1.0
        score = 1 / (1 + math.exp(-margin / 0.3))
        for cls, share in zip(L.CLASSES, L.CLASS_SHARE):
            w = share
            for on, p in zip(flags, L.PROFILE[cls]):
                w *= p if on else 1 - p
            rows.append((score, cls != "clean", w))
    return rows


def _brute_brier_auc(rows):
    score, harmful, w = (np.array(x, dtype=float) for x in zip(*rows))
    brier = float((w * (score - harmful) ** 2).sum())
    pos, neg = w * harmful, w * (1 - harmful)
    wins = sum(
        pos[score == s].sum() * (neg[score < s].sum() + neg[score == s].sum() / 2)
        for s in np.unique(score)
    )
    return brier, float(wins / (pos.sum() * neg.sum()))


@pytest.mark.parametrize("spurious", [True, False])
def test_population_score_matches_a_sum_worked_from_the_generator(spurious):
    from lessonlib.truth import profile_table

    brier, auc = _brute_brier_auc(_brute_population(spurious))
    got = P.population_score(profile_table(**({} if spurious else {"spurious": {}})))
    assert got["brier"] == pytest.approx(brier, abs=1e-6)
    assert got["auc"] == pytest.approx(auc, abs=1e-6)


def test_the_length_cue_hurts_in_the_population_though_it_helps_the_lesson_records():
    """08's claim: over the population removing the spurious cue lowers the Brier score
    (0.1270 -> 0.1126) and raises the AUC (0.9188 -> 0.9204); on the 240 records both move
    the other way."""
    from lessonlib.truth import profile_table

    with_cue, without = (
        P.population_score(profile_table()),
        P.population_score(profile_table(spurious={})),
    )
    assert round(with_cue["brier"], 4) == 0.1270 and round(without["brier"], 4) == 0.1126
    assert round(with_cue["auc"], 4) == 0.9188 and round(without["auc"], 4) == 0.9204
    sample = {
        name: (L.brier(TRUTH, scores), L.roc_auc(TRUTH, scores))
        for name, changes in (("with", {}), ("without", {"spurious": {}}))
        for scores in [scores_of(L.judge_probabilities(RECORDS, **changes))]
    }
    assert sample["without"][0] > sample["with"][0] and sample["without"][1] < sample["with"][1]


def test_population_levels_give_the_length_only_level_its_true_share():
    """The 0.9116 level (length the only flag) is harmful 0.2474 of the time in the
    population, the worst-calibrated level; its three lesson records are all harmful."""
    from lessonlib.truth import profile_table

    levels = P.population_levels(profile_table())
    assert sum(row["share"] for row in levels) == pytest.approx(1.0)
    worst = max(levels, key=lambda row: abs(row["score"] - row["harmful"]))
    assert round(worst["score"], 4) == 0.9116 and round(worst["harmful"], 4) == 0.2474
    brute = _brute_population()
    only_length = [(h, w) for s, h, w in brute if abs(s - worst["score"]) < 1e-12]
    assert worst["harmful"] == pytest.approx(
        sum(w for h, w in only_length if h) / sum(w for _, w in only_length)
    )
    here = [
        r
        for r in S.calibration_levels(TRUTH, scores_of(L.judge_probabilities(RECORDS)))
        if r.score == worst["score"]
    ]
    assert [(r.count, r.harmful) for r in here] == [(3, 3)]


def test_the_length_flag_is_the_weakest_evidence_and_weighs_the_most():
    """'Spurious' as over-weighted: the smallest likelihood ratio (3.69) of the seven flags,
    the largest weight (1.3 against 1.0)."""
    from lessonlib.simulator import CUE_WEIGHT, SPURIOUS_WEIGHT

    harmful = [(c, s) for c, s in zip(L.CLASSES, L.CLASS_SHARE) if c != "clean"]
    total = sum(s for _, s in harmful)
    ratio = {
        f: sum(s * L.PROFILE[c][k] for c, s in harmful) / total / L.PROFILE["clean"][k]
        for k, f in enumerate(L.FEATURES)
    }
    assert min(ratio, key=ratio.get) == "excessive_length"
    assert round(ratio["excessive_length"], 2) == 3.69
    assert SPURIOUS_WEIGHT > CUE_WEIGHT
