"""lessonlib.report: the printed blocks, checked on hand-made records and runs.

The column layout is the lesson's (its printed header lines are facts); the
figures below are worked out by hand for four records.
"""

import math

import pytest

import lessonlib as L
from lesson_defs import choose, fnv, record, uniforms
from lessonlib.report import _class_block, _comparison_rows

HEADER = (
    "approach                 precision      recall  false block rate  agreement   calls"
    "  input tokens"
)
CLASS_HEADER = "class                     records   criteria recall      judge recall"


def four():
    """1: harmful, caught by the rules; 2: harmful, missed; 3: clean, passed; 4: clean, blocked."""
    return [
        record(no=1, cls="indirect_instruction", flags=("instruction_mode",)),
        record(no=2, cls="corrupted_input", flags=("excessive_length",)),
        record(no=3),
        record(no=4, flags=("hidden_field_name",)),
    ]


def runs():
    run1 = L.JudgeRun(
        {1: "zararli", 2: "zararli", 3: "temiz", 4: "temiz"}, 5, 1, 0, 200, 8, {"rate limit": 1}
    )
    run2 = L.JudgeRun({1: "zararli", 2: "temiz", 3: "zararli", 4: "temiz"}, 4, 0, 0, 180, 9, {})
    return run1, run2


def test_comparison_block_by_hand():
    # criteria: tp 1 fp 1 fn 1 tn 1; run 1: tp 2 tn 2; run 2: tp 1 fp 1 fn 1 tn 1;
    # the runs differ on records 2 and 3
    assert L.comparison_block(four(), *runs()) == "\n".join(
        [
            HEADER,
            "criteria-based              0.5000      0.5000            0.5000     0.5000       0"
            "             0",
            "model-as-judge , run 1      1.0000      1.0000            0.0000     1.0000       5"
            "           200",
            "model-as-judge , run 2      0.5000      0.5000            0.5000     0.5000       4"
            "           180",
            "",
            "the judge's own two-run difference: the decision changed on 2 records (0.5000)",
            "  precision          1.0000 -> 0.5000 , diff -0.5000",
            "  recall             1.0000 -> 0.5000 , diff -0.5000",
            "  false block rate   0.0000 -> 0.5000 , diff +0.5000",
            "same difference in the criteria-based approach: +0.0000 (no model is called)",
            "retries 1 (rate limit) , unreadable replies 0",
        ]
    )


def test_class_block_by_hand():
    # classes without records are left out; clean comes last as the false positives
    assert _class_block(four(), runs()[0], L.rule_filter) == "\n".join(
        [
            CLASS_HEADER,
            "indirect_instruction            1            1.0000            1.0000",
            "corrupted_input                 1            0.0000            1.0000",
            "clean (false positives)         2            0.5000            0.0000",
        ]
    )


def test_class_table_any_number_of_columns_and_width():
    from lessonlib.report import class_table

    recalls = {
        "a": {"clean": (2, 0.5), "corrupted_input": (1, 0.0)},
        "b": {"clean": (2, 0.0), "corrupted_input": (1, 1.0)},
        "c": {"clean": (2, 1.0), "corrupted_input": (1, 0.5)},
    }
    assert class_table(recalls, width=6) == "\n".join(
        [
            "class                     records      a      b      c",
            "corrupted_input                 1 0.0000 1.0000 0.5000",
            "clean (false positives)         2 0.5000 0.0000 1.0000",
        ]
    )


def test_a_wider_criteria_changes_only_the_criteria_figures():
    rules = L.make_rule_filter(L.DEFAULT_RULES + ("excessive_length",))
    lines = _class_block(four(), runs()[0], rules).splitlines()
    assert lines[2] == "corrupted_input                 1            1.0000            1.0000"


def test_comparison_rows():
    rows = _comparison_rows(four(), runs(), L.rule_filter)
    assert [r.name for r in rows] == [
        "criteria-based",
        "model-as-judge , run 1",
        "model-as-judge , run 2",
    ]
    assert [(r.agreement, r.calls, r.input_tokens) for r in rows] == [
        (0.5, 0, 0),
        (1.0, 5, 200),
        (0.5, 4, 180),
    ]
    assert len(_comparison_rows(four(), [], L.rule_filter)) == 1


@pytest.mark.parametrize(
    "causes, retries, text",
    [
        ({}, 0, "retries 0 , unreadable replies 2"),
        ({"rate limit": 6}, 6, "retries 6 (rate limit) , unreadable replies 2"),
        (
            {"rate limit": 2, "unreadable reply": 1},
            3,
            "retries 3 (rate limit 2, unreadable reply 1) , unreadable replies 2",
        ),
    ],
)
def test_retry_line(causes, retries, text):
    from lessonlib.report import retry_text

    assert retry_text(L.JudgeRun({}, 10, retries, 2, 0, 0, causes)) == text


def test_sample_call_block_by_hand():
    r = record(
        no=5,
        cls="privilege_escalation",
        flags=("side_effect_tool_name",),
        text="ariza kaydim icin ekip ne zaman gelir",
    )
    prompt = (
        "Su kaydin ozniteliklerine bak ve tek etiket yaz : temiz ya da zararli . "
        "Oznitelikler : yanetkiliarac . kaynak kullanici . kayit 5 : "
        "ariza kaydim icin ekip ne zaman gelir"
    )
    # zararli 0.15 + 1.0 against temiz 0.75 at temperature 0.3; the draw picks the label
    e = [math.exp(0.75 / 0.3), math.exp(1.15 / 0.3)]
    label = ("temiz", "zararli")[choose(uniforms(3 ^ fnv(prompt), 1)[0], [v / sum(e) for v in e])]
    assert L.sample_call_block(r, seed=3) == (
        "record 5 , actual class privilege_escalation\n"
        f"  prompt: {prompt}\n"
        f"  status ok , input {23 + 3 + 9 + 8} tokens , reply {label}"
    )


def test_lesson_on_other_arguments():
    small = L.lesson(n=30, seed=5)
    assert small.records == L.make_records(30, 5)
    assert small.run1 == L.run_judge(small.records, 5)
    assert small.run2 == L.run_judge(small.records, 6)
    assert small.sample == small.records[1]
    assert len(small.blocks()) == 3
    assert small.blocks()[0].startswith("record 2 , actual class ")


def test_the_default_lessons_headers(lesson_run):
    assert lesson_run.blocks()[1].splitlines()[0] == HEADER
    assert lesson_run.blocks()[2].splitlines()[0] == CLASS_HEADER


# ---------------------------------------------------------------- issue 12: door cases


@pytest.mark.parametrize("other", [(12, 2), (14, 1)], ids=["other seed", "longer"])
def test_a_run_on_other_records_is_refused(other):
    records = L.make_records(12, 1)
    run = L.run_judge(records, 1)
    foreign = L.make_records(*other)
    for call in (
        lambda: L.measure(foreign, run.decide),
        lambda: L.agreement(foreign, run.decide),
        lambda: L.comparison_block(foreign, run, run),
    ):
        with pytest.raises(ValueError, match="does not belong to these records"):
            call()
    # a part of the judged records is fine
    assert L.measure(records[:5], run.decide) == L.measure(L.make_records(5, 1), run.decide)


@pytest.mark.parametrize("n", [0, 1])
def test_a_lesson_needs_the_sample_record(n):
    with pytest.raises(ValueError, match=r"\bn\b.*>= 2"):
        L.lesson(n).blocks()


# ---- argument checks once per door call, not per record (issue 18) --------------------------

CHECKS = (
    "check_record",
    "check_records",
    "check_items",
    "check_names",
    "check_seed",
    "check_str",
    "check_int",
    "check_instance",
    "check_collection",
    "check_callable",
)


@pytest.fixture
def check_calls(monkeypatch):
    """Counts every call of a _checks helper, under whatever name a module imported it."""
    import collections
    import importlib
    import pkgutil

    counts = collections.Counter()
    for info in pkgutil.iter_modules(L.__path__):
        if info.name in ("widgets", "__main__"):
            continue
        module = importlib.import_module(f"lessonlib.{info.name}")
        for name in CHECKS:
            real = getattr(module, name, None)
            if callable(real):

                def counted(*args, _real=real, _name=name, **kwargs):
                    counts[_name] += 1
                    return _real(*args, **kwargs)

                monkeypatch.setattr(module, name, counted)
    return counts


def test_one_lesson_checks_its_records_once_whatever_their_number(check_calls):
    seen = []
    for n in (60, 240):
        check_calls.clear()
        L.lesson(n).blocks()
        seen.append(dict(check_calls))
    assert seen[0] == seen[1], seen  # nothing grows with the records
    assert seen[1].get("check_records", 0) == 1 and seen[1].get("check_record", 0) <= 1
    assert "check_names" not in seen[1]


def test_measure_checks_a_run_and_the_rule_filter_once(check_calls):
    records = L.make_records(50)
    run = L.run_judge(records, 3)
    check_calls.clear()
    L.measure(records, run.decide)
    L.measure(records, L.rule_filter)
    L.measure(records, lambda r: L.rule_filter(r))  # the lesson's rules are not re-checked
    assert check_calls["check_records"] == 3
    assert check_calls["check_names"] == 0
    assert check_calls["check_record"] == 50  # only the lambda's own door calls


def test_comparison_block_of_two_panel_runs():
    """The door takes any run (judge or panel); a PanelRun keeps no retry causes, so the
    retry line names none (it raised AttributeError before; found by mypy, issue 18)."""
    records = L.make_records(40)
    panel = L.Panel([L.SimulatedModel()])
    run1, run2 = panel.run(records, seed=1), panel.run(records, seed=2)
    last = L.comparison_block(records, run1, run2).splitlines()[-1]
    assert last == f"retries {run1.retries} , unreadable replies {run1.unreadable}"
