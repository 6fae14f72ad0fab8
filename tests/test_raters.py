"""lessonlib.raters: agreement from its definitions, against reference code and worked examples.

The reference implementations are statsmodels (``statsmodels.stats.inter_rater``)
and the ``krippendorff`` package (both test-only dependencies, pinned in
requirements.txt), imported where they are used so that a pytest worker that runs no
rater test does not pay for them; the published worked examples are cited where they are used.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import lessonlib as L
from lessonlib import raters as R
from lessonlib import widgets as W

RECORDS = L.make_records()


# ---------------------------------------------------------------- reference helpers


def sm_cohen(a, b):
    from statsmodels.stats import inter_rater

    table, _ = inter_rater.to_table(np.column_stack([a, b]))
    return inter_rater.cohens_kappa(table, return_results=False)


def sm_fleiss(rows):
    from statsmodels.stats import inter_rater

    counts, _ = inter_rater.aggregate_raters(np.array(rows).T)
    return inter_rater.fleiss_kappa(counts, method="fleiss")


def kd_alpha(rows, level):
    import krippendorff

    data = np.array([[np.nan if v is None else v for v in row] for row in rows], dtype=float)
    return krippendorff.alpha(reliability_data=data, level_of_measurement=level)


def random_table(rng, raters, records, labels, noise, missing=0.0):
    """A table with real agreement: a hidden label per record, each rater copies it or guesses."""
    truth = rng.integers(1, labels + 1, records)
    rows = np.where(
        rng.random((raters, records)) < noise,
        rng.integers(1, labels + 1, (raters, records)),
        truth,
    )
    rows = rows.tolist()
    if missing:
        holes = rng.random((raters, records)) < missing
        rows = [[None if h else v for v, h in zip(row, hole)] for row, hole in zip(rows, holes)]
    return rows


def tables(count, seed, missing=0.0):
    rng = np.random.default_rng(seed)
    for _ in range(count):
        yield random_table(
            rng,
            int(rng.integers(2, 7)),
            int(rng.integers(3, 60)),
            int(rng.integers(2, 6)),
            float(rng.uniform(0.1, 1.0)),
            missing,
        )


# ---------------------------------------------------------------- published worked examples

# Fleiss (1971) style example reproduced in Wikipedia's "Fleiss' kappa" article (worked
# example): 10 subjects, 14 raters each, 5 categories; kappa = 0.210.
FLEISS_COUNTS = [
    [0, 0, 0, 0, 14],
    [0, 2, 6, 4, 2],
    [0, 0, 3, 5, 6],
    [0, 3, 9, 2, 0],
    [2, 2, 8, 1, 1],
    [7, 7, 0, 0, 0],
    [3, 2, 6, 3, 0],
    [2, 5, 3, 2, 2],
    [6, 5, 2, 1, 0],
    [0, 2, 2, 3, 7],
]

# Krippendorff, K. (2011) "Computing Krippendorff's Alpha-Reliability", section C
# (nominal data, any number of observers, missing data): 4 observers, 12 units.
# Published: nominal alpha 0.743, ordinal 0.815, interval 0.849.
N = None
KRIPPENDORFF_2011 = [
    [1, 2, 3, 3, 2, 1, 4, 1, 2, N, N, N],
    [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, N, 3],
    [N, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, N],
    [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, N],
]


def fleiss_rows():
    """The count table as ratings: record i's column holds its 14 labels (raters unnamed)."""
    columns = [[k + 1 for k, c in enumerate(row) for _ in range(c)] for row in FLEISS_COUNTS]
    return [list(r) for r in zip(*columns)]


def test_fleiss_worked_example():
    from statsmodels.stats import inter_rater

    kappa = R.fleiss_kappa(fleiss_rows())
    assert kappa == pytest.approx(inter_rater.fleiss_kappa(np.array(FLEISS_COUNTS)), abs=1e-12)
    assert round(kappa, 3) == 0.210


@pytest.mark.parametrize(
    "level, published", [("nominal", 0.743), ("ordinal", 0.815), ("interval", 0.849)]
)
def test_krippendorff_2011_worked_example_with_missing_data(level, published):
    alpha = R.krippendorff_alpha(KRIPPENDORFF_2011, level)
    assert alpha == pytest.approx(kd_alpha(KRIPPENDORFF_2011, level), abs=1e-12)
    assert round(alpha, 3) == published


def test_cohen_worked_example():
    # Wikipedia "Cohen's kappa", first worked example: 50 proposals, yes/yes 20, yes/no 5,
    # no/yes 10, no/no 15 -> p_o = 0.7, p_e = 0.5, kappa = 0.4.
    a = ["yes"] * 25 + ["no"] * 25
    b = ["yes"] * 20 + ["no"] * 5 + ["yes"] * 10 + ["no"] * 15
    assert R.rater_agreement(a, b) == pytest.approx(0.7)
    assert R.cohen_kappa(a, b) == pytest.approx(0.4)
    assert R.cohen_kappa(a, b) == pytest.approx(sm_cohen(a, b))


# ---------------------------------------------------------------- many random tables


@pytest.mark.parametrize("seed", range(4))
def test_cohen_and_fleiss_match_statsmodels_on_random_tables(seed):
    checked = 0
    for rows in tables(60, seed):
        try:
            ours = R.fleiss_kappa(rows)
        except ValueError:
            assert len({v for row in rows for v in row}) == 1  # only when chance is 1
            continue
        assert ours == pytest.approx(sm_fleiss(rows), abs=1e-10)
        a, b = rows[0], rows[1]
        if len(set(a) | set(b)) > 1:
            assert R.cohen_kappa(a, b) == pytest.approx(sm_cohen(a, b), abs=1e-10)
        checked += 1
    assert checked > 50


@pytest.mark.parametrize("level", R.LEVELS)
@pytest.mark.parametrize("missing", [0.0, 0.25])
def test_alpha_matches_the_krippendorff_package_on_random_tables(level, missing):
    checked = 0
    for rows in tables(120, 7 + int(missing * 4), missing):
        try:
            ours = R.krippendorff_alpha(rows, level)
        except ValueError:
            continue  # D_e = 0: the package divides by zero here
        assert ours == pytest.approx(kd_alpha(rows, level), abs=1e-9)
        checked += 1
    assert checked > 100


def test_category_kappas_average_to_fleiss_kappa():
    # Fleiss (1971): kappa = sum_j p_j q_j kappa_j / sum_j p_j q_j
    for rows in tables(40, 11):
        pooled = [v for row in rows for v in row]
        if len(set(pooled)) < 2:
            continue
        per = R.category_kappas(rows)
        weight = {
            k: pooled.count(k) / len(pooled) * (1 - pooled.count(k) / len(pooled)) for k in per
        }
        mean = sum(weight[k] * per[k] for k in per) / sum(weight.values())
        assert mean == pytest.approx(R.fleiss_kappa(rows), abs=1e-10)


def test_two_labels_have_one_category_kappa():
    rows = R.rating_table(RECORDS)
    per = R.category_kappas(rows)
    assert set(per) == {"clean", "harmful"}
    assert per["clean"] == pytest.approx(per["harmful"]) == pytest.approx(R.fleiss_kappa(rows))


labels = st.lists(st.sampled_from("abc"), min_size=2, max_size=30)


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_kappa_is_symmetric_and_ignores_label_names(data):
    a = data.draw(labels)
    b = data.draw(st.lists(st.sampled_from("abc"), min_size=len(a), max_size=len(a)))
    rename = {"a": 10, "b": 20, "c": 30}
    if len(set(a) | set(b)) < 2:
        with pytest.raises(ValueError, match="0/0"):
            R.cohen_kappa(a, b)
        return
    k = R.cohen_kappa(a, b)
    assert k == pytest.approx(R.cohen_kappa(b, a))
    assert k == pytest.approx(R.cohen_kappa([rename[x] for x in a], [rename[x] for x in b]))
    assert -1 <= k <= 1
    nominal = R.krippendorff_alpha([a, b])
    assert nominal == pytest.approx(
        R.krippendorff_alpha([[rename[x] for x in a], [rename[x] for x in b]])
    )


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(1, 5), min_size=3, max_size=20), st.integers(-50, 50))
def test_interval_alpha_ignores_a_shift_and_ordinal_a_monotone_relabel(row, shift):
    other = [(v % 5) + 1 for v in row]
    rows = [row, other]
    try:
        base = R.krippendorff_alpha(rows, "interval")
    except ValueError:
        return
    shifted = [[v + shift for v in r] for r in rows]
    assert R.krippendorff_alpha(shifted, "interval") == pytest.approx(base)
    cubed = [[v**3 for v in r] for r in rows]
    assert R.krippendorff_alpha(cubed, "ordinal") == pytest.approx(
        R.krippendorff_alpha(rows, "ordinal")
    )


def test_perfect_agreement_is_one():
    row = R.human_labels(RECORDS)
    assert R.cohen_kappa(row, row) == 1.0
    assert R.fleiss_kappa([row, row, row]) == pytest.approx(1.0)
    assert R.krippendorff_alpha([row, row]) == pytest.approx(1.0)


# ---------------------------------------------------------------- the baseline


def test_always_clean_agrees_on_the_clean_share_with_kappa_zero():
    human = R.human_labels(RECORDS)
    clean_share = sum(not L.is_harmful(r) for r in RECORDS) / len(RECORDS)
    always_clean = ["clean"] * len(RECORDS)
    assert R.rater_agreement(always_clean, human) == clean_share == 0.6125
    assert R.cohen_kappa(always_clean, human) == 0.0


# ---------------------------------------------------------------- the simulated raters


def test_raters_are_reproducible_and_seeded():
    for scale in R.SCALES:
        assert R.rating_table(RECORDS, scale) == R.rating_table(RECORDS, scale)
        assert R.rating_table(RECORDS, scale) != R.rating_table(RECORDS, scale, seed=L.SEED + 1)


def test_a_record_is_rated_the_same_alone_or_in_the_set():
    rater = R.RATERS[2]
    together = R.rate(RECORDS, rater, "graded")
    assert tuple(R.rate([r], rater, "graded")[0] for r in RECORDS[:40]) == together[:40]


def test_two_point_answer_is_the_graded_one_read_at_the_line():
    for guideline in R.RATER_GUIDELINES:
        for graded, two in zip(
            R.rating_table(RECORDS, "graded", guideline),
            R.rating_table(RECORDS, "two-point", guideline),
        ):
            assert set(graded) <= set(R.GRADES)
            assert two == tuple("harmful" if g >= R.LINE else "clean" for g in graded)


def errors(row):
    human = R.human_labels(RECORDS)
    return [(r, h, x) for r, h, x in zip(RECORDS, human, row) if h != x]


def test_each_rater_errs_only_in_its_documented_way():
    lenient, strict, careless = R.rating_table(RECORDS)
    assert errors(lenient) and all(h == "harmful" for _, h, _ in errors(lenient))
    assert errors(strict) and all(
        r.cls == "clean" and r.features.on() for r, _, _ in errors(strict)
    )
    assert errors(careless) and all(
        r.cls in R.RATERS[2].careless_classes for r, _, _ in errors(careless)
    )


def test_without_error_rates_every_rater_gives_the_human_label():
    rows = R.rating_table(RECORDS, raters=R.with_rates(0.0, 0.0, 0.0))
    assert all(row == R.human_labels(RECORDS) for row in rows)


def test_the_detailed_guideline_errs_on_a_subset_of_the_records():
    for short, detailed in zip(
        R.rating_table(RECORDS), R.rating_table(RECORDS, guideline="detailed")
    ):
        wrong_short = {r.no for r, _, _ in errors(short)}
        wrong_detailed = {r.no for r, _, _ in errors(detailed)}
        assert wrong_detailed < wrong_short


def test_majority_of_three():
    assert R.majority([["a", "a", "b"], ["a", "b", "b"], ["b", "b", "a"]]) == ("a", "b", "b")


# ---------------------------------------------------------------- re-scoring


def test_the_raters_tables_are_the_library_statistics():
    run = L.run_judge(RECORDS)
    got = list(W.raters_tables(RECORDS, run.decide, miss=0.1, guideline="detailed").values())
    raters = R.with_rates(miss=0.1)
    two = R.rating_table(RECORDS, "two-point", "detailed", raters=raters)
    graded = R.rating_table(RECORDS, "graded", "detailed", raters=raters)
    human = R.human_labels(RECORDS)
    for name, row in zip(R.RATER_NAMES, two):
        want = [round(R.rater_agreement(row, human), 4), round(R.cohen_kappa(row, human), 4)]
        assert got[0].loc[name].tolist() == want, name
    assert got[1].loc["detailed guideline"].tolist() == [
        round(x, 4)
        for x in (
            R.fleiss_kappa(two),
            R.krippendorff_alpha(graded),
            R.krippendorff_alpha(graded, "ordinal"),
        )
    ]
    rescored = got[2].xs("judge run 1", axis=1, level="approach")  # a column per figure
    m = L.measure(RECORDS, run.decide)
    figures = ("precision", "recall", "false_block_rate")
    assert rescored.loc["human"].tolist()[:3] == [round(m[k], 4) for k in figures]
    assert list(got[2].index) == ["human", *R.RATER_NAMES, "majority"]
    assert rescored.loc["lenient"].tolist() != rescored.loc["human"].tolist()


def test_the_explorer_redraws_when_an_error_rate_moves():
    explorer = W.raters_explorer(RECORDS)
    before = explorer.text
    assert repr(explorer).startswith("raters explorer (miss=0.3 , false_alarm=0.5 , careless=0.5")
    explorer.controls["miss"].value = 0.0
    assert explorer.text != before and "miss=0.0 " in repr(explorer)
    run = L.run_judge(RECORDS)
    want = W.raters_tables(RECORDS, run.decide, miss=0.0)
    assert explorer.tables.keys() == want.keys()
    assert all(a.equals(b) for a, b in zip(explorer.tables.values(), want.values()))
    # without the lenient rater's misses its kappa with the human label rises
    assert want["each rater against the human label"].loc["lenient", "kappa"] > 0.7398


# ---------------------------------------------------------------- bad input

BAD = [
    (lambda: R.fleiss_kappa([[1, 2, 3], [1, 2]]), ValueError, "ratings", "same length"),
    (lambda: R.krippendorff_alpha([[1, 2, 3], [1, 2]]), ValueError, "ratings", "same length"),
    (lambda: R.fleiss_kappa([[1, 2, 3]]), ValueError, "ratings", "at least two raters"),
    (lambda: R.krippendorff_alpha([[1, 2]]), ValueError, "ratings", "at least two raters"),
    (lambda: R.krippendorff_alpha([[1, 2], [1, 1]], "ratio"), ValueError, "level", "'ordinal'"),
    (lambda: R.krippendorff_alpha([[1, 2], [1, 1]], 3), ValueError, "level", "'interval'"),
    (
        lambda: R.krippendorff_alpha([["a", "b"], ["a", "a"]], "ordinal"),
        TypeError,
        "ratings",
        "numeric",
    ),
    (
        lambda: R.krippendorff_alpha([[True, False], [True, True]], "interval"),
        TypeError,
        "level",
        "numeric",
    ),
    (lambda: R.cohen_kappa(["a", "a"], ["a", "a"]), ValueError, "a and b", "0/0"),
    (lambda: R.fleiss_kappa([["a", "a"], ["a", "a"]]), ValueError, "ratings", "0/0"),
    (lambda: R.category_kappas([["a", "a"], ["a", "a"]]), ValueError, "ratings", "0/0"),
    (lambda: R.krippendorff_alpha([["a", None], ["a", "a"]]), ValueError, "ratings", "0/0"),
    (lambda: R.cohen_kappa(["a", "b"], ["a"]), ValueError, "a and b", "same records"),
    (lambda: R.cohen_kappa("ab", "ab"), TypeError, "a", "sequence"),
    (lambda: R.cohen_kappa(["a", None], ["a", "b"]), ValueError, "a", "krippendorff_alpha"),
    (lambda: R.fleiss_kappa([[["x"], 1], [1, 1]]), TypeError, "ratings[0]", "labels"),
    (lambda: R.fleiss_kappa(5), TypeError, "ratings", "one row"),
    (lambda: R.krippendorff_alpha([[1.0, np.nan], [1.0, 2.0]]), ValueError, "ratings[0]", "None"),
    (lambda: W.raters_explorer([]), ValueError, "records", "at least one"),
    (lambda: W.raters_explorer(5), TypeError, "records", "Record"),
]


@pytest.mark.parametrize("call, error, param, words", BAD, ids=[f"{b[2]}-{b[3]}" for b in BAD])
def test_bad_input_names_the_parameter(call, error, param, words):
    with pytest.raises(error) as caught:
        call()
    assert param in str(caught.value) and words in str(caught.value), str(caught.value)


# ---------------------------------------------------------------- the exercise checks of 10


def said(capsys):
    return " ".join(capsys.readouterr().out.split())


def judge_kappa_by_hand():
    run = L.run_judge(RECORDS, L.SEED)
    n = len(RECORDS)
    judge = [run.decide(r) for r in RECORDS]
    label = [L.is_harmful(r) for r in RECORDS]
    p_o = sum(j == h for j, h in zip(judge, label)) / n
    p_e = (sum(judge) * sum(label) + (n - sum(judge)) * (n - sum(label))) / n**2
    return p_o, (p_o - p_e) / (1 - p_e)


def test_judge_kappa_check(capsys):
    from lessonlib.exercises import step14

    p_o, kappa = judge_kappa_by_hand()
    assert step14.check_judge_kappa(round(kappa, 4)) is True
    assert said(capsys).startswith("PASS: ")
    assert step14.check_judge_kappa(np.float64(kappa)) is True
    capsys.readouterr()
    for wrong, words in (
        (None, "as a number"),
        (p_o, "raw agreement"),
        (kappa + 0.01, "p_e"),
        ("0.76", "as a number"),
        (..., "fill in"),
    ):
        assert step14.check_judge_kappa(wrong) is False
        out = said(capsys)
        assert out.startswith("Not yet: ") and words in out, out


@pytest.mark.slow  # the course-read check: about 1.1 s of CPU
def test_substantial_miss_check(capsys):
    from lessonlib.exercises import step14

    human = R.human_labels(RECORDS)
    grid = [k / 100 for k in range(101)]
    kappa = {m: R.cohen_kappa(R.rate(RECORDS, R.with_rates(miss=m)[0]), human) for m in grid}
    right = max(m for m in grid if kappa[m] >= 0.61)
    assert 0 < right < 1 and all(kappa[m] >= 0.61 for m in grid if m <= right)
    assert step14.check_substantial_miss(right) is True
    assert said(capsys).startswith("PASS: ")
    for wrong, words in (
        (None, "probability"),
        (round(right + 0.01, 2), "along the grid"),
        (round(right - 0.01, 2), "along the grid"),
        (0.333, "two decimals"),
        (1.5, "probability"),
        (..., "fill in"),
    ):
        assert step14.check_substantial_miss(wrong) is False
        out = said(capsys)
        assert out.startswith("Not yet: ") and words in out, out


# ---- issue 18: the split, the names, the doors, the speed ------------------------------------


def test_the_statistics_live_in_their_own_low_module():
    from lessonlib import agreement_stats as A

    for name in (
        "cohen_kappa",
        "fleiss_kappa",
        "category_kappas",
        "krippendorff_alpha",
        "rater_agreement",
    ):
        assert getattr(R, name) is getattr(A, name) is getattr(L, name, getattr(A, name))
    assert "from .widgets" not in open(R.__file__, encoding="utf-8").read()
    for old in ("ratings", "GUIDELINES", "CLEAN", "HARMFUL", "raters_explorer", "raters_text"):
        assert not hasattr(R, old), old


@pytest.mark.parametrize(
    "kwargs, error, words",
    [
        ({"scale": "five-point"}, ValueError, "scale"),
        ({"scale": None}, ValueError, "scale"),
        ({"guideline": "long"}, ValueError, "guideline"),
        ({"seed": -1}, ValueError, "seed"),
    ],
)
def test_rate_refuses_unknown_settings_naming_the_parameter(kwargs, error, words):
    with pytest.raises(error, match=words):
        R.rate(RECORDS, R.RATERS[0], **kwargs)
    with pytest.raises(error, match=words):
        R.rating_table(RECORDS, **kwargs)
    with pytest.raises(TypeError, match="rater"):
        R.rate(RECORDS, "lenient")


@pytest.mark.slow  # about 1 s of CPU or more: make test runs it, make check does not
def test_ordinal_alpha_with_many_distinct_values_is_fast_and_right():
    import time

    rng = np.random.default_rng(18)
    rows = rng.permutation(600).reshape(3, 200).astype(float)
    rows[1] = rows[0] + rng.integers(-20, 20, 200)  # agreeing, roughly: 600 distinct values
    rows = rows.tolist()
    assert len({v for row in rows for v in row}) >= 400
    start = time.perf_counter()
    ours = R.krippendorff_alpha(rows, "ordinal")
    took = time.perf_counter() - start
    assert took < 0.5, f"{took:.2f} s"
    assert ours == pytest.approx(kd_alpha(rows, "ordinal"), abs=1e-9)


def test_interval_alpha_refuses_infinity_naming_the_parameter():
    import math

    with pytest.raises(ValueError, match="ratings.*finite"):
        R.krippendorff_alpha([[1.0, math.inf, 2.0], [1.0, 3.0, 2.0]], "interval")
    # ordinal reads only the order: infinity is the largest label there
    assert math.isfinite(
        R.krippendorff_alpha([[1.0, math.inf, 2.0], [1.0, math.inf, 3.0]], "ordinal")
    )


def test_plot_pairs_labels_every_point_and_draws_no_legend():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    human = R.human_labels(RECORDS)
    named = {"human": human, **dict(zip(R.RATER_NAMES, R.rating_table(RECORDS)))}
    rows = R.pair_rows(named)
    ax = R.plot_pairs(rows).axes[0]
    assert ax.get_legend() is None
    assert {t.get_text() for t in ax.texts} >= {row["pair"] for row in rows}
    plt.close("all")
