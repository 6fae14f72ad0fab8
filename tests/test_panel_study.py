"""The comparisons of notebook 11 (lessonlib.panel_study).

Expectations come from hand-worked small cases and from the lesson text's printed figures.
"""

import numpy as np
import pytest

import lessonlib as L
from lessonlib import panel_study as S
from lessonlib.panel_study import (
    COMPARISON,
    CUE,
    FREE_FORM_GUIDELINE,
    GREEDY,
    SINGLE,
    UNREADABLE,
    Setup,
    plot_band_against_cost,
    rates_many,
    study,
)


@pytest.fixture(scope="module")
def records():
    return L.make_records()


def test_rates_many_by_hand():
    actual = [True, True, False, False, False]
    harmful = [
        [True, False, True, False, False],  # tp 1 fp 1 fn 1 tn 2
        [False, False, False, False, False],  # nothing blocked
        [True, True, True, True, True],
    ]  # everything blocked
    r = rates_many(harmful, actual)
    assert r["agreement"].tolist() == [3 / 5, 3 / 5, 2 / 5]
    assert r["precision"].tolist() == [0.5, 0.0, 2 / 5]
    assert r["recall"].tolist() == [0.5, 0.0, 1.0]
    assert r["false_block_rate"].tolist() == [1 / 3, 0.0, 1.0]


def test_rates_many_equals_the_scalar_confusion_row_by_row(records):
    # rates_many counts with many.confusion_many; each row must equal metrics.confusion's
    # counts turned into (unrounded) rates
    rng = np.random.default_rng(7)
    harmful = rng.random((6, len(records))) < [[0.0], [1.0], [0.2], [0.5], [0.8], [0.4]]
    actual = [L.is_harmful(r) for r in records]
    r = rates_many(harmful, actual)
    for i, row in enumerate(harmful.tolist()):
        decided = dict(zip((rec.no for rec in records), row))
        tp, fp, fn, tn = L.confusion(records, lambda rec: decided[rec.no])  # noqa: B023
        assert r["agreement"][i] == (tp + tn) / len(records)
        assert r["precision"][i] == (tp / (tp + fp) if tp + fp else 0.0)
        assert r["recall"][i] == tp / (tp + fn)
        assert r["false_block_rate"][i] == fp / (fp + tn)


def test_one_definition_of_the_band_and_of_changed_records():
    # the band and the expected changed records are variance's, not copies of them
    from lessonlib import variance

    assert S.run_band is variance.run_band
    assert S.expected_changed is variance.expected_changed
    assert not hasattr(S, "band") and not hasattr(S, "table_text") and not hasattr(S, "Row")


def test_a_setups_panel_is_checked_at_the_panels_door():
    with pytest.raises(ValueError, match="quorum"):
        Setup("x", quorum=10**6).panel()
    with pytest.raises(ValueError, match="on_unreadable"):
        Setup("x", on_unreadable="skip").panel()
    with pytest.raises(TypeError, match="min_agreement"):
        Setup("x", min_agreement="1.5").panel()


def test_the_setups_the_issue_asks_for():
    assert [(s.judges, s.quorum) for s in COMPARISON] == [
        (("lesson",), 1),
        (("lesson",), 3),
        (("lesson",), 5),
        (("plain", "wary", "greedy"), 1),
        (("plain", "wary", "greedy"), 3),
    ]
    assert [s.on_unreadable for s in UNREADABLE] == ["clean", "harmful", "abstain"] * 2
    assert all(s.judges == ("greedy",) for s in GREEDY)
    assert CUE[-1].min_agreement == 1.0
    assert FREE_FORM_GUIDELINE == L.GUIDELINE.replace("tek ", "")


def test_the_single_judge_row_is_the_lesson_at_its_seed(records):
    (row,) = study(records, (SINGLE,), seeds=[L.SEED, L.SEED + 1])
    # the lesson's run 1: precision 0.7876, recall 0.9570, FBR 0.1633, agreement 0.8833,
    # 246 calls, 10779 input tokens
    assert (row.scores["precision"], row.scores["recall"], row.scores["false_block_rate"]) == (
        0.7876,
        0.9570,
        0.1633,
    )
    assert round(row.scores["agreement"], 4) == 0.8833
    assert (row.calls, row.input_tokens, row.unreadable) == (246, 10779, 0)
    # the 95% run band of two runs holds both (the smallest and the largest): recall 86/93
    # (run 2) and 89/93 (run 1)
    assert row.bands["recall"] == (86 / 93, 89 / 93)
    assert row.means["recall"] == (86 / 93 + 89 / 93) / 2
    assert row.mean_calls == 246.0
    # the lesson's two runs disagree on 16 records: the one pair of runs differs on 16
    assert row.changed == 16.0


@pytest.mark.parametrize("seeds", [[L.SEED + 1, L.SEED], range(3)], ids=["among", "not among"])
def test_the_row_at_the_seed_is_panel_run_at_the_seed(records, seeds, monkeypatch):
    # the run at ``seed`` is read off the many-seed run when seed is one of the seeds;
    # otherwise Panel.run runs it.  Either way the row holds Panel.run's figures.
    setup = COMPARISON[-1]
    run = setup.panel().run(records, L.SEED)
    real, ran = S.Panel.run, []
    monkeypatch.setattr(S.Panel, "run", lambda *a, **k: ran.append(a[2]) or real(*a, **k))
    (row,) = study(records, (setup,), seeds=seeds)
    assert ran == ([] if L.SEED in seeds else [L.SEED])
    assert row.scores == {
        **L.measure(records, run.decide),
        "agreement": L.agreement(records, run.decide),
    }
    assert (row.calls, row.input_tokens, row.unreadable) == (
        run.calls,
        run.input_tokens,
        run.unreadable,
    )


def test_quorum_at_temperature_zero_changes_nothing(records):
    rows = study(records, GREEDY, seeds=range(5))
    first = rows[0].many.harmful
    for row in rows:
        assert np.array_equal(row.many.harmful, first)
        assert all(row.width(m) == 0.0 for m in row.bands)
        assert row.changed == 0.0
    # the judge's clock runs on across its q passes: 240 * q first calls, and every
    # 37th call is refused and asked again, so the total N solves N = 240 q + N // 37
    # (q = 1: 246; q = 3: 739, since 739 // 37 = 19; q = 5: 1233, since 1233 // 37 = 33)
    assert [row.calls for row in rows] == [246, 739, 1233]


def test_plot_band_against_cost(records):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = study(records, GREEDY[:2] + COMPARISON[:1], seeds=range(3))
    fig = plot_band_against_cost(rows)
    left, right = fig.axes
    assert left.get_xlabel().startswith("model calls")
    assert [t.get_text() for t in left.texts] == ["q1", "q3", "q1"]
    # the greedy line: zero width on the left, and on the right its mean agreement, the
    # same at every quorum (stability is not accuracy: the picture shows both)
    assert list(left.lines[0].get_ydata()) == [0.0, 0.0]
    assert list(right.lines[0].get_ydata()) == [rows[0].means["agreement"]] * 2
    plt.close("all")


def test_a_row_holds_the_figures_notebook_11_tabulates(records):
    (row,) = study(records, (SINGLE,), seeds=[L.SEED, L.SEED + 1])
    assert (row.calls, row.input_tokens) == (246, 10779)
    assert (round(row.scores["recall"], 4), round(row.scores["agreement"], 4)) == (0.957, 0.8833)
    assert row.changed == 16.0
    assert row.bands["recall"] == (86 / 93, 89 / 93)
    assert row.means["recall"] == pytest.approx((86 + 89) / 186)
    assert row.width("recall") == pytest.approx(3 / 93)


def test_series_join_setups_that_differ_in_quorum():
    assert [S._series_name(s) for s in COMPARISON] == [
        "lesson's judge",
        "lesson's judge",
        "lesson's judge",
        "diverse panel",
        "diverse panel",
    ]


def test_study_checks_every_setup_before_running(records):
    with pytest.raises(ValueError, match="aggregate"):
        study(records, (SINGLE, Setup("bad", aggregate="max")), seeds=[1, 2])


# ---------------------------------------------------------------- the doors

NAN = float("nan")


@pytest.fixture(scope="module")
def few_rows():
    return study(L.make_records(4), (SINGLE,), seeds=[1, 2])


def setup_with(**change):
    args = dict(name="x")
    args.update(change)
    return lambda rows: Setup(**args).panel()


@pytest.mark.parametrize(
    "call, error, words",
    [
        (setup_with(quorum=10**6), ValueError, "quorum"),
        (setup_with(quorum=1.5), TypeError, "quorum"),
        (setup_with(aggregate="max"), ValueError, "aggregate"),
        (setup_with(min_agreement=NAN), ValueError, "min_agreement"),
        (setup_with(min_agreement="a"), TypeError, "min_agreement"),
        (setup_with(on_unreadable="skip"), ValueError, "on_unreadable"),
        (lambda rows: study([], (SINGLE,), [1, 2]), ValueError, "records"),
        (lambda rows: study(L.make_records(2), (SINGLE,), [1, -1]), ValueError, "seeds"),
        (lambda rows: study(L.make_records(2), (SINGLE,), [1, 2], -1), ValueError, "seed"),
        (
            lambda rows: study(L.make_records(2), (SINGLE,), [1, 2], guideline=5),
            TypeError,
            "guideline",
        ),
    ],
)
def test_a_setup_or_study_meets_the_panels_door_checks(few_rows, call, error, words):
    with pytest.raises(error, match=words):
        call(few_rows)
