"""The explorers: table functions (no browser) and the widget wiring.

Expectations come from the lesson's printed figures (data/expected, cut from the lesson
text), from the library's own functions (measure, run_judge, Panel.run) or are worked out
by hand on a few made-up records.
"""

import re

import numpy as np
import pandas as pd
import pytest

import lessonlib
from conftest import ROOT
from lessonlib import FEATURES, Flags, Record
from lessonlib.panel import JUDGE_NAMES
from lessonlib.widgets import (
    GUIDELINES,
    PANEL_BAND_SEEDS,
    Explorer,
    _fixed,
    criteria_explorer,
    criteria_tables,
    judge_explorer,
    judge_tables,
    panel_explorer,
    panel_tables,
)

EXPECTED = ROOT / "data" / "expected"
FREE = "free-form (no 'tek')"
FIGS = ["precision", "recall", "false_block_rate", "agreement"]


@pytest.fixture(scope="module")
def records():
    return lessonlib.make_records()


def rec(no, cls, *flags):
    return Record(no, cls, "user", Flags(f in flags for f in FEATURES), "adres degisikligi", 60)


# Five hand-made records: which flags each carries decides every count below.
SMALL = [
    rec(1, "clean"),  # nothing set
    rec(2, "clean", "excessive_length"),  # a long clean record
    rec(3, "indirect_instruction", "instruction_mode"),
    rec(4, "corrupted_input", "unusual_stamp_distribution", "excessive_length"),
    rec(5, "corrupted_input", "excessive_length"),
]


def rows(text):
    """{row name: numbers} for every line of a printed block that ends in numbers."""
    out = {}
    for line in text.splitlines():
        m = re.match(r"^(.*?\S)\s{2,}((?:-?\d+(?:\.\d+)?\s*)+)$", line)
        if m:
            out[m.group(1)] = [float(x) for x in m.group(2).split()]
    return out


def tables(result):
    """The tables of a table function, in order (their titles aside)."""
    assert all(isinstance(df, pd.DataFrame) for df in result.values())
    return list(result.values())


def figures(records, decide):
    """measure + agreement of ``decide``, rounded as the tables round."""
    m = lessonlib.measure(records, decide)
    return [round(m[k], 4) for k in FIGS[:3]] + [round(lessonlib.agreement(records, decide), 4)]


# ---------------------------------------------------------------- criteria_tables


def test_default_rules_reproduce_the_lessons_criteria_row(records):
    # Lesson: criteria-based precision 0.7629, recall 0.7957, false block rate 0.1565,
    # agreement 0.8250 on 93 harmful and 147 clean records:
    # tp = 0.7957 * 93 = 74, fn = 19, fp = 0.1565 * 147 = 23, tn = 124.
    measure, _ = tables(criteria_tables(records))
    assert measure.loc["lesson's rules (4)"].tolist() == [
        74, 23, 19, 124, 0.7629, 0.7957, 0.1565, 0.8250
    ]  # fmt: skip
    assert measure.loc["chosen rules (4)"].tolist() == measure.loc["lesson's rules (4)"].tolist()
    assert measure[["tp", "fp", "fn", "tn"]].dtypes.eq("int64").all()  # counts print as ints


def test_default_rules_reproduce_the_lessons_class_column(records):
    lesson = rows((EXPECTED / "03_class_breakdown.txt").read_text(encoding="utf-8"))
    _, per_class = tables(criteria_tables(records))
    assert len(lesson) == 6 == len(per_class)
    for name, (count, criteria_recall, _judge) in lesson.items():
        got = per_class.loc[name.split()[0]].tolist()
        assert got == [count, criteria_recall, criteria_recall], name


def test_worked_case_by_hand():
    # Lesson rules: only record 3 is blocked -> tp 1, fp 0, fn 2, tn 2.
    # Adding excessive_length blocks 2, 3, 4, 5 -> tp 3, fp 1, fn 0, tn 1.
    result = criteria_tables(SMALL, lessonlib.DEFAULT_RULES + ("excessive_length",))
    measure, per_class = tables(result)
    assert measure.loc["lesson's rules (4)"].tolist() == [1, 0, 2, 2, 1.0, 0.3333, 0.0, 0.6]
    assert measure.loc["chosen rules (5)"].tolist() == [3, 1, 0, 1, 0.75, 1.0, 0.5, 0.8]
    assert per_class.loc["corrupted_input"].tolist() == [2, 0.0, 1.0]
    assert per_class.loc["indirect_instruction"].tolist() == [1, 1.0, 1.0]
    assert per_class.loc["clean"].tolist() == [2, 0.0, 0.5]
    assert "excessive_length" in next(iter(result))  # the title names the rules


def test_rules_are_listed_in_feature_order_and_none_blocks_nothing():
    title = next(iter(criteria_tables(SMALL, ("excessive_length", "instruction_mode"))))
    assert title == "rules on: instruction_mode, excessive_length"
    nothing = criteria_tables(SMALL, ())
    assert "nothing is blocked" in next(iter(nothing))
    assert tables(nothing)[0].loc["chosen rules (0)"].tolist() == [0, 0, 3, 2, 0, 0, 0, 0.4]


def test_criteria_tables_bad_input():
    with pytest.raises(ValueError, match="rules.*unknown.*'length'"):
        criteria_tables(SMALL, ("length",))
    with pytest.raises(TypeError, match="rules"):
        criteria_tables(SMALL, "instruction_mode")
    with pytest.raises(ValueError, match="records"):
        criteria_tables([], ())


# ---------------------------------------------------------------- judge_tables


def test_default_settings_reproduce_the_lessons_comparison_table(records):
    lesson = rows((EXPECTED / "02_comparison.txt").read_text(encoding="utf-8"))
    two, _ = tables(judge_tables(records))
    for name in ("criteria-based", "model-as-judge , run 1", "model-as-judge , run 2"):
        # the lesson's columns: four figures, calls, input tokens
        assert two.loc[name].tolist()[:6] == lesson[name], name
    assert next(iter(judge_tables(records))).startswith("seeds 20260218 and 20260219 ")


def test_both_runs_are_run_judge_seed_by_seed(records):
    # the explorer takes its two runs from the many-seed engine: they must be run_judge's
    kwargs = dict(temperature=1.0, guideline=GUIDELINES[FREE], unreadable_as="harmful")
    runs = [lessonlib.run_judge(records, 7 + i, **kwargs) for i in (0, 1)]
    two, _ = tables(judge_tables(records, 1.0, 7, FREE, unreadable_as="harmful"))
    for row, run in zip(two.index[1:], runs):
        assert two.loc[row, FIGS].tolist() == figures(records, run.decide), row
        assert two.loc[row, ["calls", "input_tokens", "retries", "unreadable"]].tolist() == [
            run.calls, run.input_tokens, run.retries, run.unreadable
        ]  # fmt: skip
    assert two.loc["criteria-based", FIGS].tolist() == figures(records, lessonlib.rule_filter)
    changed = len(lessonlib.disagreements(runs[0].labels, runs[1].labels))
    assert two["changed"].tolist() == [0, 0, changed] and changed > 0


def test_temperature_zero_single_label_runs_agree(records):
    # At temperature 0 the most likely label is taken (no draw) and with 'tek' in the
    # prompt the reply is the bare label, so the seed cannot change any decision.
    result = judge_tables(records, temperature=0.0)
    two, band = tables(result)
    assert two.iloc[1].tolist() == two.iloc[2].tolist() and two["changed"].tolist() == [0, 0, 0]
    assert list(result)[1].endswith("expected changed records between two: 0.00")
    assert (band.iloc[0] == band.iloc[1]).all()  # a zero-width band


def test_free_form_guideline_drops_only_the_single_label_word():
    single, free = GUIDELINES["single label (lesson)"], GUIDELINES[FREE]
    assert single == lessonlib.GUIDELINE
    assert "tek" in lessonlib.tokenize(single) and "tek" not in lessonlib.tokenize(free)
    assert free.split() == [w for w in single.split() if w != "tek"]


def test_free_form_replies_reach_the_unreadable_fallback(records):
    clean = tables(judge_tables(records, guideline=FREE, unreadable_as="clean"))[0]
    harmful = tables(judge_tables(records, guideline=FREE, unreadable_as="harmful"))[0]
    run1 = "model-as-judge , run 1"
    assert clean.loc[run1, "unreadable"] > 0
    assert clean.loc[run1, "unreadable"] == harmful.loc[run1, "unreadable"]
    # the same unreadable records counted harmful instead of clean can only raise the
    # number blocked: recall and false block rate do not fall
    c, h = clean.loc[run1], harmful.loc[run1]
    assert h.recall >= c.recall and h.false_block_rate >= c.false_block_rate
    assert (h.recall, h.false_block_rate) != (c.recall, c.false_block_rate)


def test_each_setting_reaches_the_judge(records):
    base = tables(judge_tables(records))[0]
    for change in ({"temperature": 1.0}, {"seed": 7}, {"spurious": False}, {"guideline": FREE}):
        got = tables(judge_tables(records, **change))[0]
        assert not got.equals(base), change
        assert got.loc["criteria-based"].equals(base.loc["criteria-based"])  # never moves


def test_spurious_off_matches_a_judge_without_the_cue(records):
    run = lessonlib.run_judge(records, lessonlib.SEED, temperature=0.30, spurious={})
    two = tables(judge_tables(records, spurious=False))[0]
    assert two.loc["model-as-judge , run 1", FIGS].tolist() == figures(records, run.decide)


def test_run_band_is_the_25th_and_975th_of_1000_runs_by_hand(records):
    title = list(judge_tables(records))[1]
    assert title.startswith("95% run band over 1,000 runs (seeds 20260218 .. 20261217);")
    _, band = tables(judge_tables(records))
    many = lessonlib.run_judge_many(records, range(lessonlib.SEED, lessonlib.SEED + 1000))
    harmful = np.array([lessonlib.is_harmful(r) for r in records])
    recall = np.sort((many.harmful & harmful).sum(axis=1)) / harmful.sum()
    fbr = np.sort((many.harmful & ~harmful).sum(axis=1)) / (~harmful).sum()
    assert band["recall"].tolist() == [round(recall[24], 4), round(recall[974], 4)]
    assert band["false_block_rate"].tolist() == [round(fbr[24], 4), round(fbr[974], 4)]
    # expected changed records: mean over pairs of runs of the records they decide apart
    k = many.harmful.sum(axis=0)
    expected = float((2 * k * (1000 - k)).sum() / (1000 * 999))
    assert title.endswith(f"expected changed records between two: {expected:.2f}")


@pytest.mark.parametrize(
    "kwargs, error, word",
    [
        ({"temperature": -0.1}, ValueError, "temperature"),
        ({"temperature": "hot"}, TypeError, "temperature"),
        ({"seed": -1}, ValueError, "seed"),
        ({"guideline": "other"}, ValueError, "guideline"),
        ({"spurious": "yes"}, TypeError, "spurious"),
        ({"unreadable_as": "skip"}, ValueError, "unreadable_as"),
    ],
)
def test_judge_tables_bad_input(kwargs, error, word):
    with pytest.raises(error, match=word):
        judge_tables(SMALL, **kwargs)


# ---------------------------------------------------------------- panel_tables


def test_panel_defaults_are_the_diverse_panel_at_the_lessons_seed(records):
    run = lessonlib.Panel(lessonlib.judge_models("plain", "wary", "greedy")).run(
        records, lessonlib.SEED
    )
    figs, counts = tables(panel_tables(records))
    at_seed = ("your panel (3x1)", f"seed {lessonlib.SEED}")
    want = figures(records, run.decide)
    assert figs.loc[at_seed].tolist() == [want[3], *want[:3]]  # agreement first
    assert counts.loc["your panel (3x1)", ["calls", "input_tokens"]].tolist() == [
        run.calls, run.input_tokens
    ]  # fmt: skip
    # the lesson's judge alone is the lesson's run 1 (data/expected/02_comparison.txt)
    alone = figs.loc[("lesson's judge alone", f"seed {lessonlib.SEED}")].tolist()
    assert alone == [0.8833, 0.7876, 0.9570, 0.1633]
    assert counts.loc["lesson's judge alone", ["calls", "input_tokens"]].tolist() == [246, 10779]


def test_panel_band_is_the_run_band_over_the_panel_seeds():
    records = lessonlib.make_records(40)
    seeds = range(lessonlib.SEED, lessonlib.SEED + 5)
    runs = [
        lessonlib.Panel(lessonlib.judge_models("plain", "greedy"), quorum=2).run(records, s)
        for s in seeds
    ]
    rates = np.array([[figures(records, run.decide)[i] for i in (3, 0, 1, 2)] for run in runs])
    figs, counts = tables(panel_tables(records, ("plain", "greedy"), quorum=2, band_seeds=5))
    # the 95% run band of 5 runs: tail 0.125 runs, so the ends are the 1st and 5th smallest
    # values - the smallest and the largest run
    assert figs.loc[("your panel (2x2)", "band 2.5%")].tolist() == rates.min(axis=0).tolist()
    assert figs.loc[("your panel (2x2)", "band 97.5%")].tolist() == rates.max(axis=0).tolist()
    mine = counts.loc["your panel (2x2)"]
    assert mine["mean calls"] == round(np.mean([r.calls for r in runs]), 4)
    assert mine["mean input_tokens"] == round(np.mean([r.input_tokens for r in runs]), 4)
    # the share of runs whose agreement is below the run at the lesson's seed (run 0)
    assert mine["agreement above"] == (rates[:, 0] < rates[0, 0]).mean()


def test_the_lessons_judge_is_placed_among_its_runs(records):
    # the lesson's run 1 (agreement 0.8833) is a lucky run: above the 95% run band of its
    # own judge over the explorer's seeds
    result = panel_tables(records)
    figs, counts = tables(result)
    assert figs.loc[("lesson's judge alone", "band 97.5%"), "agreement"] < 0.8833
    many = lessonlib.Panel(lessonlib.judge_models("lesson")).run_many(
        records, range(lessonlib.SEED, lessonlib.SEED + PANEL_BAND_SEEDS)
    )
    actual = np.array([lessonlib.is_harmful(r) for r in records])
    agree = (many.harmful == actual).mean(axis=1)
    assert counts.loc["lesson's judge alone", "agreement above"] == (agree < agree[0]).mean()
    assert f"over {PANEL_BAND_SEEDS} runs" in next(iter(result))


def test_each_panel_setting_changes_the_tables(records):
    base = tables(panel_tables(records))[0]
    alone = base.loc["lesson's judge alone"]
    for change in (
        {"judges": ("lesson",)},
        {"quorum": 3},
        {"min_agreement": 1.0},
        {"guideline": FREE},
    ):
        got = tables(panel_tables(records, **change))[0]
        assert not got.iloc[:3].equals(base.iloc[:3]), change
        if "guideline" not in change:  # the reference moves only with the guideline
            assert got.loc["lesson's judge alone"].equals(alone)
    # aggregate changes the reported score, never the verdict
    mean = tables(panel_tables(records, aggregate="mean"))
    assert mean[0].equals(base)
    assert (
        mean[1].loc["your panel (3x1)", "mean score"]
        != (tables(panel_tables(records))[1].loc["your panel (3x1)", "mean score"])
    )
    # with free-form replies the unreadable rule moves the figures
    free = {
        rule: tables(panel_tables(records, guideline=FREE, on_unreadable=rule))[0]
        for rule in ("harmful", "clean")
    }
    assert (
        not free["harmful"].loc["your panel (3x1)"].equals(free["clean"].loc["your panel (3x1)"])
    )


@pytest.mark.parametrize(
    "kwargs, error, word",
    [
        ({"judges": ()}, ValueError, "judges"),
        ({"judges": ("gpt",)}, ValueError, "judges"),
        ({"judges": "plain"}, TypeError, "judges"),
        ({"quorum": 0}, ValueError, "quorum"),
        ({"quorum": 1.5}, TypeError, "quorum"),
        ({"quorum": 10**6}, ValueError, "quorum must be an integer from 1 to 10"),
        ({"aggregate": "max"}, ValueError, "aggregate"),
        ({"min_agreement": 1.5}, ValueError, "min_agreement"),
        ({"min_agreement": "half"}, TypeError, "min_agreement"),
        ({"on_unreadable": "skip"}, ValueError, "on_unreadable"),
        ({"guideline": "other"}, ValueError, "guideline"),
        ({"band_seeds": 1}, ValueError, "band_seeds"),
        ({"band_seeds": 10**8}, ValueError, "band_seeds must be an integer from 2 to 1000"),
    ],
)
def test_panel_tables_bad_input(kwargs, error, word):
    with pytest.raises(error, match=word):
        panel_tables(SMALL, **kwargs)


def test_panel_tables_bounds_are_checked_before_any_run(monkeypatch):
    # quorum 10**6 or band_seeds 10**8 once ran (and hung); now nothing runs
    ran = []
    monkeypatch.setattr(lessonlib.Panel, "run_many", lambda *a, **k: ran.append(a))
    for bad in ({"quorum": 10**6}, {"band_seeds": 10**8}):
        with pytest.raises(ValueError):
            panel_tables(SMALL, **bad)
    assert ran == []


# ---------------------------------------------------------------- widgets


def test_criteria_explorer_has_a_checkbox_per_flag_lesson_rules_ticked():
    ex = criteria_explorer(SMALL)
    assert list(ex.controls) == list(FEATURES)
    assert [f for f, c in ex.controls.items() if c.value] == list(lessonlib.DEFAULT_RULES)
    assert ex.tables.keys() == criteria_tables(SMALL).keys()
    assert all(a.equals(b) for a, b in zip(tables(ex.tables), tables(criteria_tables(SMALL))))


def test_ticking_a_checkbox_redraws_the_tables():
    ex = criteria_explorer(SMALL)
    before = ex.text
    ex.controls["excessive_length"].value = True
    assert ex.text != before
    assert tables(ex.tables)[0].loc["chosen rules (5)"].tolist() == [3, 1, 0, 1, 0.75, 1, 0.5, 0.8]
    assert "excessive_length" in ex.pane.value and "chosen rules (5)" in ex.pane.value
    assert "<table" in ex.pane.value  # the pane shows HTML tables
    ex.controls["excessive_length"].value = False
    assert ex.text == before


def test_criteria_redraw_equals_criteria_tables_for_any_ticks(records):
    # the explorer's lesson rules come from a cache; each redraw must still equal the
    # table function for the ticked flags
    ex = criteria_explorer(records)
    for flag in FEATURES:
        ex.controls[flag].value = not ex.controls[flag].value
        ticked = tuple(f for f in FEATURES if ex.controls[f].value)
        want = criteria_tables(records, ticked)
        assert ex.tables.keys() == want.keys(), flag
        assert all(a.equals(b) for a, b in zip(tables(ex.tables), tables(want))), flag


def test_judge_explorer_controls_and_redraw():
    ex = judge_explorer(SMALL)
    assert set(ex.controls) == {"temperature", "seed", "guideline", "spurious", "unreadable_as"}
    t = ex.controls["temperature"]
    assert (t.min, t.max, t.value) == (0.0, 2.0, 0.30)
    assert list(ex.controls["guideline"].options) == list(GUIDELINES)
    assert list(ex.controls["unreadable_as"].options) == ["clean", "harmful"]
    ex.controls["guideline"].value = FREE
    ex.controls["unreadable_as"].value = "harmful"
    want = judge_tables(SMALL, guideline=FREE, unreadable_as="harmful")
    assert all(a.equals(b) for a, b in zip(tables(ex.tables), tables(want)))


def test_tables_show_fixed_decimals_in_text_and_pane():
    df = pd.DataFrame({"recall": [0.871, 0.8792], "calls": [738.0, 246.0], "n": [1, 2]})
    assert df.to_string(formatters=_fixed(df)).splitlines()[1].split() == [
        "0",
        "0.8710",
        "738",
        "1",
    ]
    assert "<td>0.8710</td>" in df.to_html(formatters=_fixed(df))


def test_text_form_is_deterministic_and_has_no_ids():
    bundles = [criteria_explorer(SMALL)._repr_mimebundle_() for _ in range(2)]
    plain = [b["text/plain"] for b in bundles]
    assert plain[0] == plain[1]
    assert plain[0].startswith("criteria explorer (instruction_mode=True , ")
    assert max(len(line) for line in plain[0].splitlines()) <= 80  # nbval's stored text
    for df in criteria_tables(SMALL).values():
        assert df.to_string(line_width=80, formatters=_fixed(df)) in plain[0]
    assert "0x" not in plain[0]
    # the widget view (random model id) is there for JupyterLab; nbval skips it
    ids = {b["application/vnd.jupyter.widget-view+json"]["model_id"] for b in bundles}
    assert len(ids) == 2 and not any(i in plain[0] for i in ids)


def test_explorer_bad_input():
    import ipywidgets as w

    with pytest.raises(TypeError, match="render"):
        Explorer("x", {"a": w.Checkbox()}, "not a function")
    with pytest.raises(TypeError, match=r"controls\['a'\]"):
        Explorer("x", {"a": 3}, lambda **s: {})
    with pytest.raises(TypeError, match="render must return a mapping title -> DataFrame"):
        Explorer("x", {"a": w.Checkbox()}, lambda **s: "a text table")
    with pytest.raises(TypeError, match="records"):
        criteria_explorer("records")


def test_panel_explorer_controls_and_redraw():
    ex = panel_explorer(SMALL)
    assert list(ex.controls) == list(JUDGE_NAMES) + [
        "quorum",
        "min_agreement",
        "aggregate",
        "on_unreadable",
        "guideline",
    ]
    assert [n for n in JUDGE_NAMES if ex.controls[n].value] == ["plain", "wary", "greedy"]
    q = ex.controls["quorum"]
    assert (q.min, q.max, q.value) == (1, 5, 1)
    for name in ("plain", "wary", "greedy"):
        ex.controls[name].value = False
    assert ex.text.startswith("no judge ticked")
    ex.controls["lesson"].value = True
    ex.controls["quorum"].value = 3
    ex.controls["aggregate"].value = "mean"
    want = panel_tables(SMALL, ("lesson",), 3, "mean")
    assert ex.tables.keys() == want.keys()
    assert all(a.equals(b) for a, b in zip(tables(ex.tables), tables(want)))


def test_panel_redraw_equals_panel_tables_when_the_lesson_row_is_cached(records):
    # the lesson's judge alone comes from a cache; every redraw, fresh or cached, must
    # equal the table function
    ex = panel_explorer(records)
    changes = [
        ("quorum", 2),
        ("on_unreadable", "abstain"),
        ("guideline", FREE),
        ("aggregate", "mean"),
        ("on_unreadable", "harmful"),
        ("guideline", "single label (lesson)"),
        ("min_agreement", 1.0),
        ("greedy", False),
    ]
    for name, value in changes:
        ex.controls[name].value = value
        s = dict(ex.settings)
        judges = tuple(n for n in JUDGE_NAMES if s.pop(n))
        want = panel_tables(records, judges, **s)
        assert all(a.equals(b) for a, b in zip(tables(ex.tables), tables(want))), (name, value)
