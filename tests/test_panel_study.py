"""The helpers notebook 11 shares with the panel explorer (lessonlib.panel_study).

Expectations come from hand-worked small cases and from the lesson text's printed figures.
"""

import numpy as np
import pytest

import lessonlib as L
from lessonlib import variance
from lessonlib.panel_study import FREE_FORM_GUIDELINE, rates_many


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


def test_the_free_form_guideline_is_the_lessons_without_single():
    assert FREE_FORM_GUIDELINE == L.GUIDELINE.replace("tek ", "")


def test_quorum_at_temperature_zero_changes_nothing(records):
    # notebook 11's greedy rows: every quorum the same decisions, no band, no changed records
    seeds = range(5)
    runs = [
        L.Panel(L.judge_models("greedy"), quorum=q).run_many(records, seeds) for q in (1, 3, 5)
    ]
    for many in runs:
        assert np.array_equal(many.harmful, runs[0].harmful)
        assert variance.expected_changed(many.harmful) == 0.0
    # the judge's clock runs on across its q passes: 240 * q first calls, and every
    # 37th call is refused and asked again, so the total N solves N = 240 q + N // 37
    # (q = 1: 246; q = 3: 739, since 739 // 37 = 19; q = 5: 1233, since 1233 // 37 = 33)
    assert [int(many.calls[0]) for many in runs] == [246, 739, 1233]
