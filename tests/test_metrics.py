"""lessonlib.metrics: counts, rates rounded to four places, agreement, per-class shares."""

import pytest

import lessonlib as L
from lesson_defs import record
from lessonlib import metrics as M

H, C = "indirect_instruction", "clean"


def six():
    """Three harmful records (numbers 1-3) and three clean ones (4-6)."""
    return [record(no=i, cls=H if i <= 3 else C) for i in range(1, 7)]


def blocks(*numbers):
    return lambda r: r.no in numbers


def test_measure_worked_by_hand():
    # blocked: 1, 2 (harmful) and 4 (clean) -> tp 2, fn 1, fp 1, tn 2
    scores = L.measure(six(), blocks(1, 2, 4))
    assert scores == {
        "tp": 2,
        "fp": 1,
        "fn": 1,
        "tn": 2,
        "precision": 0.6667,
        "recall": 0.6667,
        "false_block_rate": 0.3333,
    }
    assert L.confusion(six(), blocks(1, 2, 4)) == (2, 1, 1, 2)


def test_rates_are_rounded_to_four_places():
    # one harmful record blocked among seven blocked: precision 1/7 = 0.142857... -> 0.1429
    records = [record(no=1, cls=H)] + [record(no=i) for i in range(2, 9)]
    scores = L.measure(records, blocks(*range(1, 8)))
    assert (scores["tp"], scores["fp"], scores["tn"]) == (1, 6, 1)
    assert scores["precision"] == 0.1429
    assert scores["false_block_rate"] == 0.8571  # 6/7 = 0.857142...
    assert scores["recall"] == 1.0


@pytest.mark.parametrize(
    "cls_of, decide, zero_key",
    [
        ((H, C), lambda r: False, "precision"),  # nothing blocked: no tp + fp
        ((C, C), lambda r: True, "recall"),  # no harmful record: no tp + fn
        ((H, H), lambda r: True, "false_block_rate"),  # no clean record: no fp + tn
    ],
)
def test_an_empty_denominator_gives_zero(cls_of, decide, zero_key):
    records = [record(no=i + 1, cls=c) for i, c in enumerate(cls_of)]
    assert L.measure(records, decide)[zero_key] == 0.0


def test_totals_equal_the_record_count():
    scores = L.measure(six(), blocks(3, 5, 6))
    assert scores["tp"] + scores["fp"] + scores["fn"] + scores["tn"] == 6


def test_agreement_is_the_unrounded_share_of_matches():
    # blocked 1, 2, 4: matches on 1, 2 (harmful, blocked) and 5, 6 (clean, passed)
    assert L.agreement(six(), blocks(1, 2, 4)) == 4 / 6
    assert L.agreement(six(), blocks(1, 2, 3)) == 1.0
    assert L.agreement(six(), blocks(4, 5, 6)) == 0.0


def test_truthy_decisions_count_as_blocks():
    assert L.measure(six(), lambda r: 1 if r.no == 1 else 0)["tp"] == 1
    assert L.agreement(six(), lambda r: "yes" if r.no <= 3 else "") == 1.0


def test_class_recall_by_hand():
    records = [
        record(no=1, cls=H),
        record(no=2, cls=H),
        record(no=3, cls="corrupted_input"),
        record(no=4),
        record(no=5),
        record(no=6),
        record(no=7),
    ]
    shares = L.class_recall(records, blocks(1, 4))
    assert shares == {"clean": (4, 0.25), H: (2, 0.5), "corrupted_input": (1, 0.0)}
    assert list(shares) == ["clean", H, "corrupted_input"]  # CLASSES order, absent left out


def test_resolution_is_one_step_of_a_class():
    assert L.resolution(17) == 1 / 17
    assert round(L.resolution(17), 4) == 0.0588  # the lesson's 1/17 = 0.0588
    assert L.resolution(1) == 1.0


def test_disagreements_lists_changed_record_numbers():
    a = {1: "temiz", 2: "zararli", 3: "zararli"}
    b = {1: "zararli", 2: "zararli", 3: "temiz"}
    assert L.disagreements(a, b) == [1, 3]
    assert L.disagreements(a, a) == []


def test_lesson_two_runs_differ_on_16_records(lesson_run):
    changed = L.disagreements(lesson_run.run1.labels, lesson_run.run2.labels)
    assert len(changed) == 16 and round(16 / 240, 4) == 0.0667


def test_share_rounds_like_the_lesson_and_is_zero_for_an_empty_whole():
    from lessonlib.metrics import share

    # 89 of 93 = 0.956989... -> 0.9570 ; 24 of 147 = 0.163265... -> 0.1633
    assert share(89, 93) == 0.957 and share(24, 147) == 0.1633
    assert share(0, 0) == 0.0 and share(3, 3) == 1.0


# ---- metrics is the one home of the figures (issue 18) ---------------------------------------


def test_rates_from_counts_match_measure_and_share():
    scores = L.measure(six(), blocks(1, 2, 4))
    figures = M.rates(2, 1, 1, 2)
    assert (
        list(figures)
        == list(M.FIGURES)
        == ["precision", "recall", "false_block_rate", "agreement"]
    )
    assert {k: figures[k] for k in M.RATES} == {k: scores[k] for k in M.RATES}
    assert figures["agreement"] == L.agreement(six(), blocks(1, 2, 4)) == 4 / 6
    assert M.rates(0, 0, 0, 5) == {
        "precision": 0.0,
        "recall": 0.0,
        "false_block_rate": 0.0,
        "agreement": 1.0,
    }
    assert M.rates(1, 2, 0, 0, rounded=False)["precision"] == 1 / 3


def test_rates_on_arrays_round_each_cell_as_share_does():
    np = pytest.importorskip("numpy")
    rng = np.random.default_rng(5)
    tp, fp, fn, tn = (rng.integers(0, 40, size=(3, 50)) for _ in range(4))
    tp[0, :3] = fp[0, :3] = 0  # no denominator: 0.0, as share gives
    arrays = M.rates(tp, fp, fn, tn)
    exact = M.rates(tp, fp, fn, tn, rounded=False)
    for idx in np.ndindex(tp.shape):
        one = M.rates(*(int(c[idx]) for c in (tp, fp, fn, tn)))
        loose = M.rates(*(int(c[idx]) for c in (tp, fp, fn, tn)), rounded=False)
        assert {k: float(v[idx]) for k, v in arrays.items()} == one
        assert {k: float(v[idx]) for k, v in exact.items()} == loose


def test_every_table_takes_its_figure_titles_from_metrics():
    from lessonlib import panel_study, report, variance

    assert panel_study.METRICS == ("agreement", *M.RATES)
    for module in (report, variance, panel_study):
        for old in ("RATE_TITLES", "RATE_NAMES", "SHORT", "JUDGE_ARGS"):
            assert not hasattr(module, old), (module.__name__, old)


# --- the one count (issue 28): one run, many runs, expected counts, a curve -----------------


def test_four_counts_one_run_by_hand():
    # harmful, clean, harmful, clean; blocked: 1st, 2nd -> tp 1, fp 1, fn 1, tn 1
    counts = M.four_counts([True, False, True, False], [True, True, False, False])
    assert counts == (1, 1, 1, 1)
    assert all(type(c) is int for c in counts)


def test_four_counts_many_runs_equal_one_run_per_row():
    np = pytest.importorskip("numpy")
    rng = np.random.default_rng(5)
    actual = rng.random(40) < 0.4
    decided = rng.random((7, 40)) < 0.5
    tp, fp, fn, tn = M.four_counts(actual, decided)
    for i in range(7):
        one = M.four_counts(actual.tolist(), decided[i].tolist())
        assert (tp[i], fp[i], fn[i], tn[i]) == one
    assert tp.dtype == np.int64 and tp.shape == (7,)
    # labels given per row (a resample's) count row by row too
    rows = rng.random((7, 40)) < 0.4
    per_row = M.four_counts(rows, decided)
    for i in range(7):
        one = M.four_counts(rows[i].tolist(), decided[i].tolist())
        assert tuple(int(c[i]) for c in per_row) == one


def test_four_counts_of_shares_are_expected_counts():
    np = pytest.importorskip("numpy")
    actual = np.array([True, True, False, False])
    shares = np.array([[1.0, 0.25, 0.5, 0.0]])
    tp, fp, fn, tn = M.four_counts(actual, shares)
    assert (tp[0], fp[0], fn[0], tn[0]) == (1.25, 0.5, 0.75, 1.5)
    # the mean of the bool runs' counts is the count of their mean (a share per record)
    runs = np.random.default_rng(1).random((50, 4)) < 0.5
    by_run = [c.mean() for c in M.four_counts(actual, runs)]
    by_share = [c[0] for c in M.four_counts(actual, runs.mean(axis=0)[None, :])]
    assert by_run == pytest.approx(by_share, abs=1e-12)


def test_measure_and_agreement_are_rates_of_four_counts():
    records = six()
    decide = blocks(1, 4, 5)
    actual = [r.cls != C for r in records]
    counts = M.four_counts(actual, [decide(r) for r in records])
    figures = M.rates(*counts)
    assert L.confusion(records, decide) == counts
    assert L.agreement(records, decide) == figures["agreement"] == 2 / 6
    assert {k: L.measure(records, decide)[k] for k in M.RATES} == {k: figures[k] for k in M.RATES}


def test_threshold_counts_by_hand():
    pytest.importorskip("numpy")
    # scores 0.9 (harmful), 0.5 (clean), 0.5 (harmful), 0.1 (clean)
    thresholds, (tp, fp, fn, tn) = M.threshold_counts(
        [True, False, True, False], [0.9, 0.5, 0.5, 0.1]
    )
    assert thresholds.tolist() == [0.9, 0.5, 0.1]
    assert (tp.tolist(), fp.tolist(), fn.tolist(), tn.tolist()) == (
        [1, 2, 2],
        [0, 1, 2],
        [1, 0, 0],
        [2, 1, 0],
    )


# --- the decision protocol: metrics reads a decision's checked fast path by duck typing --------


def test_a_decision_offers_its_fast_path_by_protocol():
    records = six()
    seen = []

    class Owner:
        def decider(self, recs):
            seen.append(len(recs))
            return lambda r: r.no == 1

        def decide(self, record):
            raise AssertionError("the fast path is used, not the per-record door")

    assert L.measure(records, Owner().decide)["tp"] == 1
    assert seen == [6]  # asked once for the whole record set

    def plain(record):
        return record.no == 2

    plain.decider = lambda recs: lambda r: r.no in (1, 2)
    assert L.measure(records, plain)["tp"] == 2
    assert M.trusted(records, blocks(3)) is not None


def test_the_lesson_filter_and_a_run_offer_the_protocol(lesson_run):
    records = lesson_run.records
    assert callable(L.rule_filter.decider)
    run = L.run_judge(records[:5])
    assert M.trusted(records[:5], run.decide)(records[0]) == run.decide(records[0])
    with pytest.raises(ValueError, match="does not belong"):
        M.trusted(records[:6], run.decide)


def test_metrics_imports_nothing_above_it():
    import ast
    import pathlib

    tree = ast.parse(pathlib.Path(M.__file__).read_text(encoding="utf-8"))
    used = {
        n.module.split(".")[0]
        for n in ast.walk(tree)
        if isinstance(n, ast.ImportFrom) and n.level == 1 and n.module
    }
    assert used <= {"_checks", "_frozen", "records"}, used
