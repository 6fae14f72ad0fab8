"""The explorers: pure text functions (no browser) and the widget wiring.

Expectations come from the lesson's printed figures (data/expected, cut from
the lesson text) or are worked out by hand on a few made-up records.
"""

import re

import pytest

import lessonlib
from conftest import ROOT
from lessonlib import FEATURES, Flags, Record
from lessonlib.panel import JUDGE_NAMES
from lessonlib.widgets import (
    GUIDELINES,
    PANEL_BAND_SEEDS,
    Explorer,
    criteria_explorer,
    criteria_text,
    judge_explorer,
    judge_text,
    panel_explorer,
    panel_text,
)

EXPECTED = ROOT / "data" / "expected"
FREE = "free-form (no 'tek')"


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
    """{row name: numbers} for every line that ends in numbers."""
    out = {}
    for line in text.splitlines():
        m = re.match(r"^(.*?\S)\s{2,}((?:-?\d+(?:\.\d+)?\s*)+)$", line)
        if m:
            out[m.group(1)] = [float(x) for x in m.group(2).split()]
    return out


# ---------------------------------------------------------------- criteria_text


def test_default_rules_reproduce_the_lessons_criteria_row(records):
    # Lesson: criteria-based precision 0.7629, recall 0.7957, false block rate 0.1565,
    # agreement 0.8250 on 93 harmful and 147 clean records:
    # tp = 0.7957 * 93 = 74, fn = 19, fp = 0.1565 * 147 = 23, tn = 124.
    got = rows(criteria_text(records))
    assert got["lesson's rules (4)"] == [74, 23, 19, 124, 0.7629, 0.7957, 0.1565, 0.8250]
    assert got["chosen rules (4)"] == got["lesson's rules (4)"]


def test_default_rules_reproduce_the_lessons_class_column(records):
    lesson = rows((EXPECTED / "03_class_breakdown.txt").read_text(encoding="utf-8"))
    got = rows(criteria_text(records))
    assert len(lesson) == 6
    for name, (count, criteria_recall, _judge) in lesson.items():
        assert got[name] == [count, criteria_recall, criteria_recall], name


def test_worked_case_by_hand():
    # Lesson rules: only record 3 is blocked -> tp 1, fp 0, fn 2, tn 2.
    # Adding excessive_length blocks 2, 3, 4, 5 -> tp 3, fp 1, fn 0, tn 1.
    text = criteria_text(SMALL, lessonlib.DEFAULT_RULES + ("excessive_length",))
    got = rows(text)
    assert got["lesson's rules (4)"] == [1, 0, 2, 2, 1.0, round(1 / 3, 4), 0.0, 0.6]
    assert got["chosen rules (5)"] == [3, 1, 0, 1, 0.75, 1.0, 0.5, 0.8]
    assert got["corrupted_input"] == [2, 0.0, 1.0]
    assert got["indirect_instruction"] == [1, 1.0, 1.0]
    assert got["clean (false positives)"] == [2, 0.0, 0.5]
    assert "excessive_length" in text.split("\n\n")[0]  # the rules line (wrapped at 80)


def test_rules_are_listed_in_feature_order_and_none_blocks_nothing():
    text = criteria_text(SMALL, ("excessive_length", "instruction_mode"))
    assert text.splitlines()[0] == "rules on: instruction_mode, excessive_length"
    nothing = criteria_text(SMALL, ())
    assert "nothing is blocked" in nothing.splitlines()[0]
    assert rows(nothing)["chosen rules (0)"] == [0, 0, 3, 2, 0.0, 0.0, 0.0, 0.4]


def test_criteria_text_fits_in_80_columns(records):
    for rules in ((), lessonlib.DEFAULT_RULES, FEATURES):
        assert max(len(line) for line in criteria_text(records, rules).splitlines()) <= 80


def test_criteria_text_bad_input():
    with pytest.raises(ValueError, match="rules.*unknown.*'length'"):
        criteria_text(SMALL, ("length",))
    with pytest.raises(TypeError, match="rules"):
        criteria_text(SMALL, "instruction_mode")
    with pytest.raises(ValueError, match="records"):
        criteria_text([], ())


# ---------------------------------------------------------------- judge_text


def test_default_settings_reproduce_the_lessons_comparison_block(records):
    block = (EXPECTED / "02_comparison.txt").read_text(encoding="utf-8")
    text = judge_text(records)
    assert block.rstrip("\n") in text
    assert text.splitlines()[:2] == [
        "temperature 0.30 , seeds 20260218 and 20260219 , spurious cue on",
        "guideline single label (lesson) , unreadable counted as clean",
    ]


def test_temperature_zero_single_label_runs_agree(records):
    # At temperature 0 the most likely label is taken (no draw) and with 'tek' in the
    # prompt the reply is the bare label, so the seed cannot change any decision.
    text = judge_text(records, temperature=0.0)
    assert "the decision changed on 0 records (0.0000)" in text
    run1, run2 = rows(text)["model-as-judge , run 1"], rows(text)["model-as-judge , run 2"]
    assert run1[:4] == run2[:4]


def test_free_form_guideline_drops_only_the_single_label_word():
    single, free = GUIDELINES["single label (lesson)"], GUIDELINES[FREE]
    assert single == lessonlib.GUIDELINE
    assert "tek" in lessonlib.tokenize(single) and "tek" not in lessonlib.tokenize(free)
    assert free.split() == [w for w in single.split() if w != "tek"]


def test_free_form_replies_reach_the_unreadable_fallback(records):
    clean = judge_text(records, guideline=FREE, unreadable_as="clean")
    harmful = judge_text(records, guideline=FREE, unreadable_as="harmful")
    n = int(re.search(r"unreadable replies (\d+)", clean).group(1))
    assert n > 0 and f"unreadable replies {n}" in harmful
    # Counting the same n unreadable records as harmful instead of clean can only
    # raise the number blocked: recall and false block rate do not fall.
    c, h = rows(clean)["model-as-judge , run 1"], rows(harmful)["model-as-judge , run 1"]
    assert h[1] >= c[1] and h[2] >= c[2] and (h[1], h[2]) != (c[1], c[2])
    assert "unreadable counted as harmful" in harmful.splitlines()[1]


def test_each_setting_reaches_the_judge(records):
    base = judge_text(records)
    for change in ({"temperature": 1.0}, {"seed": 7}, {"spurious": False}, {"guideline": FREE}):
        assert judge_text(records, **change) != base, change
    # the criteria row never moves with the judge's settings
    warm = rows(judge_text(records, temperature=1.0))
    assert warm["criteria-based"] == rows(base)["criteria-based"]


def test_spurious_off_matches_a_judge_without_the_cue(records):
    runs = [
        lessonlib.run_judge(records, lessonlib.SEED + i, temperature=0.30, spurious={})
        for i in (0, 1)
    ]
    assert lessonlib.comparison_block(records, *runs) in judge_text(records, spurious=False)


def test_free_form_table_is_run_judge_seed_by_seed(records):
    # the explorer takes its two runs from the many-seed engine: they must be run_judge's
    runs = [
        lessonlib.run_judge(
            records, 7 + i, temperature=1.0, guideline=GUIDELINES[FREE], unreadable_as="harmful"
        )
        for i in (0, 1)
    ]
    text = judge_text(records, 1.0, 7, FREE, unreadable_as="harmful")
    assert lessonlib.comparison_block(records, *runs) in text
    assert "run 2: " + lessonlib.report.retry_text(runs[1]) in text


def band_lines(text):
    """The 95% run band of recall and FBR, and the expected changed records, as printed."""
    band = re.search(
        r"95% run band: recall (\S+) \.\. (\S+) , false block rate (\S+) \.\. "
        r"(\S+)\n",
        text,
    )
    changed = re.search(r"expected changed records between two runs: (\S+)$", text)
    return [float(x) for x in band.groups()], float(changed.group(1))


def test_run_band_is_the_25th_and_975th_of_1000_runs_by_hand(records):
    import numpy as np

    text = judge_text(records)
    assert "over 1,000 runs (seeds 20260218 .. 20261217)" in text
    many = lessonlib.run_judge_many(records, range(lessonlib.SEED, lessonlib.SEED + 1000))
    harmful = np.array([lessonlib.is_harmful(r) for r in records])
    recall = np.sort((many.harmful & harmful).sum(axis=1)) / harmful.sum()
    fbr = np.sort((many.harmful & ~harmful).sum(axis=1)) / (~harmful).sum()
    band, changed = band_lines(text)
    want = [recall[24], recall[974], fbr[24], fbr[974]]
    assert band == [round(x, 4) for x in want]
    # expected changed records: mean over pairs of runs of the records they decide apart
    k = many.harmful.sum(axis=0)
    assert changed == round(float((2 * k * (1000 - k)).sum() / (1000 * 999)), 2)


def test_temperature_zero_has_a_zero_band(records):
    band, changed = band_lines(judge_text(records, temperature=0.0))
    assert band[0] == band[1] and band[2] == band[3] and changed == 0.0


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
def test_judge_text_bad_input(kwargs, error, word):
    with pytest.raises(error, match=word):
        judge_text(SMALL, **kwargs)


# ---------------------------------------------------------------- panel_text


def table(text):
    """{row name: cells} for the panel table: 'your panel (JxQ)', "lesson's judge alone",
    each followed by its band row (name + ' band'); band cells stay 'low-high' strings."""
    out, last = {}, None
    for line in text.splitlines():
        if line.startswith(("your panel (", "lesson's judge alone")):
            last = line[:21].strip()
            out[last] = line[21:].split()
        elif line.startswith("  95% run band") and last:
            out[last + " band"] = line[21:].split()
    return out


def by_hand(records, run):
    """Agreement, precision, recall, FBR from a run's labels, counted here."""
    tp = sum(1 for r in records if run.labels[r.no] == "zararli" and lessonlib.is_harmful(r))
    fp = sum(1 for r in records if run.labels[r.no] == "zararli" and not lessonlib.is_harmful(r))
    pos = sum(1 for r in records if lessonlib.is_harmful(r))
    neg = len(records) - pos
    return [
        f"{(tp + neg - fp) / len(records):.4f}",
        f"{tp / (tp + fp):.4f}",
        f"{tp / pos:.4f}",
        f"{fp / neg:.4f}",
    ]


def test_panel_defaults_are_the_diverse_panel_at_the_lessons_seed(records):
    run = lessonlib.Panel(lessonlib.judge_models("plain", "wary", "greedy")).run(
        records, lessonlib.SEED
    )
    text = panel_text(records)
    got = table(text)
    assert got["your panel (3x1)"] == by_hand(records, run)
    assert f"your panel {run.calls} / {run.input_tokens} ," in text
    # the lesson's judge alone is the lesson's run 1: 0.8833 0.7876 0.9570 0.1633, 246 calls,
    # 10779 input tokens (data/expected/02_comparison.txt)
    assert got["lesson's judge alone"] == ["0.8833", "0.7876", "0.9570", "0.1633"]
    assert "lesson's judge alone 246 / 10779 ;" in text


def test_panel_text_fits_80_columns(records):
    for kwargs in ({}, {"judges": JUDGE_NAMES, "quorum": 5, "guideline": FREE}):
        assert max(len(line) for line in panel_text(records, **kwargs).splitlines()) <= 80


def test_panel_table_keeps_its_columns_apart(records):
    """Each cell of the panel table, band ranges ('low-high') included, is at least two
    spaces from the next: the columns read apart on a slide too (they once ran together
    with one space)."""
    import re

    for kwargs in ({}, {"judges": JUDGE_NAMES, "quorum": 5, "guideline": FREE}):
        rows = [
            line
            for line in panel_text(records, **kwargs).splitlines()
            if line.startswith(("your panel (", "lesson's judge alone", "  95% run band"))
        ]
        assert len(rows) == 4
        for line in rows:
            cells = re.split(r"\s{2,}", line[20:].strip())
            assert len(cells) == 4, line
            assert all(re.fullmatch(r"\d\.\d{4}(-\d\.\d{4})?", c) for c in cells), line


def test_panel_band_is_the_run_band_over_the_panel_seeds():
    import numpy as np

    records = lessonlib.make_records(40)
    seeds = range(lessonlib.SEED, lessonlib.SEED + 5)
    runs = [
        lessonlib.Panel(lessonlib.judge_models("plain", "greedy"), quorum=2).run(records, s)
        for s in seeds
    ]
    rates = np.array([[float(x) for x in by_hand(records, run)] for run in runs])
    text = panel_text(records, ("plain", "greedy"), quorum=2, band_seeds=5)
    band = table(text)["your panel (2x2) band"]
    # the 95% run band of 5 runs: tail 0.125 runs, so the ends are the 1st and 5th smallest
    # values - the smallest and the largest run (by_hand rounds as the table does)
    for k in range(4):
        low, high = band[k].split("-")
        assert (low, high) == (f"{rates[:, k].min():.4f}", f"{rates[:, k].max():.4f}")
    assert (
        f"your panel on average {np.mean([r.calls for r in runs]):.1f} / "
        f"{np.mean([r.input_tokens for r in runs]):.1f}"
    ) in text
    # the share of runs whose agreement is below the run at the lesson's seed (run 0)
    share = float((rates[:, 0] < rates[0, 0]).mean())
    assert f"your panel {share:.3f} ," in text


def test_the_lessons_judge_is_placed_among_its_runs(records):
    # the lesson's run 1 (agreement 0.8833) is a lucky run: above the 95% run band of its
    # own judge over the explorer's seeds, and the text says how many runs lie below it
    import numpy as np

    text = panel_text(records)
    low, high = (float(x) for x in table(text)["lesson's judge alone band"][0].split("-"))
    assert high < 0.8833
    many = lessonlib.Panel(lessonlib.judge_models("lesson")).run_many(
        records, range(lessonlib.SEED, lessonlib.SEED + PANEL_BAND_SEEDS)
    )
    actual = np.array([lessonlib.is_harmful(r) for r in records])
    agree = (many.harmful == actual).mean(axis=1)
    assert f"lesson's judge alone {(agree < agree[0]).mean():.3f}" in text
    assert f"over {PANEL_BAND_SEEDS} runs" in text


def test_each_panel_setting_changes_the_text(records):
    base = panel_text(records)
    alone = table(base)["lesson's judge alone"]
    for change in (
        {"judges": ("lesson",)},
        {"quorum": 3},
        {"min_agreement": 1.0},
        {"guideline": FREE},
    ):
        text = panel_text(records, **change)
        assert table(text) != table(base), change
        if "guideline" not in change:  # the reference moves only with the guideline
            assert table(text)["lesson's judge alone"] == alone
    # aggregate changes the reported score, never the verdict
    mean = panel_text(records, aggregate="mean")
    assert table(mean) == table(base) and mean != base
    assert "score (mean)" in mean
    # with free-form replies the unreadable rule moves the figures
    free = {
        rule: table(panel_text(records, guideline=FREE, on_unreadable=rule))
        for rule in ("harmful", "clean")
    }
    assert free["harmful"]["your panel (3x1)"] != free["clean"]["your panel (3x1)"]


def test_panel_text_states_its_settings_and_band_seeds(records):
    lines = panel_text(
        records, ("lesson", "wary"), 2, "min", 1.0, "abstain", FREE, band_seeds=7
    ).splitlines()
    assert lines[:3] == [
        "judges lesson, wary , quorum 2",
        "aggregate min , min_agreement 1.00 , unreadable counted as abstain",
        "guideline free-form (no 'tek')",
    ]
    assert f"95% run band over 7 runs (panel seeds {lessonlib.SEED} to " in lines[4]


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
def test_panel_text_bad_input(kwargs, error, word):
    with pytest.raises(error, match=word):
        panel_text(SMALL, **kwargs)


def test_panel_text_bounds_are_checked_before_any_run(monkeypatch):
    # quorum 10**6 or band_seeds 10**8 once ran (and hung); now nothing runs
    ran = []
    monkeypatch.setattr(lessonlib.Panel, "run_many", lambda *a, **k: ran.append(a))
    for bad in ({"quorum": 10**6}, {"band_seeds": 10**8}):
        with pytest.raises(ValueError):
            panel_text(SMALL, **bad)
    assert ran == []


# ---------------------------------------------------------------- widgets


def test_criteria_explorer_has_a_checkbox_per_flag_lesson_rules_ticked():
    ex = criteria_explorer(SMALL)
    assert list(ex.controls) == list(FEATURES)
    assert [f for f, c in ex.controls.items() if c.value] == list(lessonlib.DEFAULT_RULES)
    assert ex.text == criteria_text(SMALL)


def test_ticking_a_checkbox_redraws_the_tables():
    ex = criteria_explorer(SMALL)
    before = ex.text
    ex.controls["excessive_length"].value = True
    assert ex.text != before
    assert rows(ex.text)["chosen rules (5)"] == [3, 1, 0, 1, 0.75, 1.0, 0.5, 0.8]
    assert "excessive_length" in ex.pane.value and "chosen rules (5)" in ex.pane.value
    ex.controls["excessive_length"].value = False
    assert ex.text == before


def test_criteria_redraw_equals_criteria_text_for_any_ticks(records):
    # the explorer computes the lesson's rules once; each redraw must still equal the
    # pure text function for the ticked flags
    ex = criteria_explorer(records)
    for flag in FEATURES:
        ex.controls[flag].value = not ex.controls[flag].value
        ticked = tuple(f for f in FEATURES if ex.controls[f].value)
        assert ex.text == criteria_text(records, ticked), flag


def test_judge_explorer_controls_and_redraw():
    ex = judge_explorer(SMALL)
    assert set(ex.controls) == {"temperature", "seed", "guideline", "spurious", "unreadable_as"}
    t = ex.controls["temperature"]
    assert (t.min, t.max, t.value) == (0.0, 2.0, 0.30)
    assert list(ex.controls["guideline"].options) == list(GUIDELINES)
    assert list(ex.controls["unreadable_as"].options) == ["clean", "harmful"]
    assert ex.text == judge_text(SMALL)
    ex.controls["guideline"].value = FREE
    ex.controls["unreadable_as"].value = "harmful"
    assert ex.text == judge_text(SMALL, guideline=FREE, unreadable_as="harmful")
    ex.controls["temperature"].value = 0.0
    assert ex.text.startswith("temperature 0.00 ,")


def test_text_form_is_deterministic_and_has_no_ids():
    bundles = [criteria_explorer(SMALL)._repr_mimebundle_() for _ in range(2)]
    plain = [b["text/plain"] for b in bundles]
    assert plain[0] == plain[1]
    assert plain[0].startswith("criteria explorer (instruction_mode=True , ")
    assert max(len(line) for line in plain[0].splitlines()) <= 80  # wrapped settings
    assert plain[0].endswith(criteria_text(SMALL))
    assert "0x" not in plain[0]
    # the widget view (random model id) is there for JupyterLab; nbval skips it
    ids = {b["application/vnd.jupyter.widget-view+json"]["model_id"] for b in bundles}
    assert len(ids) == 2 and not any(i in plain[0] for i in ids)


def test_explorer_bad_input():
    import ipywidgets as w

    with pytest.raises(TypeError, match="render"):
        Explorer("x", {"a": w.Checkbox()}, "not a function")
    with pytest.raises(TypeError, match=r"controls\['a'\]"):
        Explorer("x", {"a": 3}, lambda **s: "")
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
    assert ex.text == panel_text(SMALL)
    for name in ("plain", "wary", "greedy"):
        ex.controls[name].value = False
    assert ex.text.startswith("no judge ticked")
    ex.controls["lesson"].value = True
    ex.controls["quorum"].value = 3
    ex.controls["aggregate"].value = "mean"
    assert ex.text == panel_text(SMALL, ("lesson",), 3, "mean")


def test_panel_explorer_text_form_is_deterministic():
    plain = [panel_explorer(SMALL)._repr_mimebundle_()["text/plain"] for _ in range(2)]
    assert plain[0] == plain[1]
    assert " ".join(plain[0].split()).startswith(  # the settings line wraps at 80
        "panel explorer (lesson=False , plain=True , wary=True , greedy=True , quorum=1 , "
        "min_agreement=0.5 , "
    )
    assert plain[0].endswith(panel_text(SMALL)) and "0x" not in plain[0]


def test_panel_redraw_equals_panel_text_when_the_lesson_row_is_reused(records):
    # the explorer computes the lesson's-judge-alone rows once per (on_unreadable,
    # guideline); every redraw, fresh or reused, must equal the pure text function
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
        assert ex.text == panel_text(records, judges, **s), (name, value)
