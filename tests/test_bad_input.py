"""Bad input meets a clear error: one table of every public function and class.

Each row calls one public function (or class, or method) with ONE bad
argument and names the error it must raise and the parameter its message must
name (and, where it matters, a word of the allowed values).  Rows are kept per
module in ``ROWS``; a module added later (lessonlib.many, lessonlib.panel,
lessonlib.widgets, lessonlib.exercises, ...) gets its own key, e.g.::

    ROWS["lessonlib.many"] = [
        Bad("run_judge_many", lambda m: m.run_judge_many(RECS, seeds=[]), ValueError, "seeds"),
    ]

Each thunk receives the imported module.  ``test_every_public_name_has_rows``
fails when a name exported by ``lessonlib`` has neither rows nor a reason in
``NO_ROWS``.  Further tests check that nothing is half-built on error.
"""

from __future__ import annotations

import importlib
import math
import re
from dataclasses import dataclass
from typing import Callable

import pytest

import lessonlib
from lesson_defs import record

R = record(no=1)
RECS = [R, record(no=2, cls="indirect_instruction", flags=("instruction_mode",))]
RUN = lessonlib.JudgeRun({1: "temiz", 2: "zararli"}, 2, 0, 0, 82)
FEATURE_VALUES = dict.fromkeys(lessonlib.FEATURES, False)
NAN, INF = math.nan, math.inf


@dataclass(frozen=True)
class Bad:
    api: str                    # the public name (or Class.method) under test
    call: Callable              # thunk taking the module
    error: type                 # TypeError (wrong kind) or ValueError (value not allowed)
    param: str                  # the parameter the message must name
    allowed: str = ""           # a piece of the allowed values the message must show
    note: str = ""              # what is bad, for the test id


def flags_bad_key():
    bad = dict(FEATURE_VALUES)
    bad.pop("excessive_length")
    bad["too_long"] = True
    return bad


def record_with(**change):
    fields = dict(no=1, cls="clean", source="user", features=lessonlib.Flags([False] * 7),
                  text="x", length=50)
    fields.update(change)
    return lambda m: m.Record(**fields)


def model_with(**change):
    return lambda m: m.SimulatedModel(**change)


def judge_with(**change):
    args = dict(records=RECS)
    args.update(change)
    return lambda m: m.run_judge(**args)


ROWS = {
    "lessonlib.records": [
        Bad("make_records", lambda m: m.make_records(0), ValueError, "n", ">= 1", "n=0"),
        Bad("make_records", lambda m: m.make_records(-3), ValueError, "n", ">= 1", "n<0"),
        Bad("make_records", lambda m: m.make_records(2.5), TypeError, "n", "integer", "float n"),
        Bad("make_records", lambda m: m.make_records(240.0), TypeError, "n", "integer",
            "whole float n"),
        Bad("make_records", lambda m: m.make_records("240"), TypeError, "n", note="str n"),
        Bad("make_records", lambda m: m.make_records(True), TypeError, "n", note="bool n"),
        Bad("make_records", lambda m: m.make_records(None), TypeError, "n", note="None n"),
        Bad("make_records", lambda m: m.make_records(5, -1), ValueError, "seed", ">= 0",
            "negative seed"),
        Bad("make_records", lambda m: m.make_records(5, 1.5), TypeError, "seed", note="float seed"),
        Bad("make_records", lambda m: m.make_records(5, True), TypeError, "seed", note="bool seed"),
        Bad("make_records", lambda m: m.make_records(5, "7"), TypeError, "seed", note="str seed"),
        Bad("generator", lambda m: m.generator(1.5), TypeError, "t", note="float"),
        Bad("generator", lambda m: m.generator("1"), TypeError, "t", note="str"),
        Bad("generator", lambda m: m.generator(True), TypeError, "t", note="bool"),
        Bad("generator", lambda m: m.generator(None), TypeError, "t", note="None"),
        Bad("pick", lambda m: m.pick("a", (0.5, 0.5)), TypeError, "u", note="str u"),
        Bad("pick", lambda m: m.pick(NAN, (0.5, 0.5)), ValueError, "u", note="NaN u"),
        Bad("pick", lambda m: m.pick(0.5, 5), TypeError, "weights", note="not a sequence"),
        Bad("pick", lambda m: m.pick(0.5, ()), ValueError, "weights", note="empty"),
        Bad("pick", lambda m: m.pick(0.9, (0.5, "x")), TypeError, "weights", note="str weight"),
        Bad("is_harmful", lambda m: m.is_harmful({"cls": "clean"}), TypeError, "record",
            "Record", "dict"),
        Bad("is_harmful", lambda m: m.is_harmful(None), TypeError, "record", note="None"),
        Bad("Flags", lambda m: m.Flags(5), TypeError, "values", note="not iterable"),
        Bad("Flags", lambda m: m.Flags("1010101"), TypeError, "values", note="a string"),
        Bad("Flags", lambda m: m.Flags([True] * 6), ValueError, "values", "7", "six values"),
        Bad("Flags", lambda m: m.Flags([True] * 8), ValueError, "values", "7", "eight values"),
        Bad("Flags", lambda m: m.Flags(flags_bad_key()), ValueError, "values",
            "excessive_length", "unknown feature name"),
        Bad("Record", record_with(no=0), ValueError, "no", ">= 1", "no=0"),
        Bad("Record", record_with(no="1"), TypeError, "no", note="str no"),
        Bad("Record", record_with(cls="bogus"), ValueError, "cls", "indirect_instruction",
            "unknown class"),
        Bad("Record", record_with(source="web"), ValueError, "source", "retrieved_document",
            "unknown source"),
        Bad("Record", record_with(features=[True] * 7), TypeError, "features", note="a list"),
        Bad("Record", record_with(features=flags_bad_key()), ValueError, "features",
            "excessive_length", "unknown feature name"),
        Bad("Record", record_with(text=5), TypeError, "text", note="int text"),
        Bad("Record", record_with(length=-1), ValueError, "length", ">= 0", "negative"),
        Bad("Record", record_with(length=1.5), TypeError, "length", note="float"),
        Bad("write_records_csv", lambda m: m.write_records_csv(5, RECS), TypeError, "path",
            note="int path"),
        Bad("write_records_csv", lambda m: m.write_records_csv("x.csv", []), ValueError,
            "records", note="empty"),
        Bad("write_records_csv", lambda m: m.write_records_csv("x.csv", [1]), TypeError,
            "records", "Record", "not records"),
        Bad("write_records_csv", lambda m: m.write_records_csv("x.csv", "abc"), TypeError,
            "records", note="a string"),
    ],
    "lessonlib.criteria": [
        Bad("rule_filter", lambda m: m.rule_filter(R, "instruction_mode"), TypeError, "rules",
            "instruction_mode", "a single string"),
        Bad("rule_filter", lambda m: m.rule_filter(R, ("nope",)), ValueError, "rules",
            "side_effect_tool_name", "unknown name"),
        Bad("rule_filter", lambda m: m.rule_filter(R, 5), TypeError, "rules", note="int"),
        Bad("rule_filter", lambda m: m.rule_filter("x"), TypeError, "record", "Record",
            "str record"),
        Bad("rule_filter", lambda m: m.rule_filter(None), TypeError, "record", note="None"),
        Bad("make_rule_filter", lambda m: m.make_rule_filter("hidden_field_name"), TypeError,
            "rules", "hidden_field_name", "a single string"),
        Bad("make_rule_filter", lambda m: m.make_rule_filter(["instruction_mode", "bogus"]),
            ValueError, "rules", "bogus", "one unknown name"),
        Bad("make_rule_filter", lambda m: m.make_rule_filter(None), TypeError, "rules",
            note="None"),
    ],
    "lessonlib.metrics": [
        *[Bad(fn, call, error, param, note=note)
          for fn in ("measure", "agreement", "class_recall", "confusion")
          for call, error, param, note in (
              (lambda m, fn=fn: getattr(m, fn)([], bool), ValueError, "records", "empty"),
              (lambda m, fn=fn: getattr(m, fn)(None, bool), TypeError, "records", "None"),
              (lambda m, fn=fn: getattr(m, fn)([R, 5], bool), TypeError, "records",
               "non-record item"),
              (lambda m, fn=fn: getattr(m, fn)("abc", bool), TypeError, "records", "str"),
              (lambda m, fn=fn: getattr(m, fn)(R, bool), TypeError, "records",
               "one record, not a list"),
              (lambda m, fn=fn: getattr(m, fn)(RECS, 5), TypeError, "decide", "int decide"),
              (lambda m, fn=fn: getattr(m, fn)(RECS, None), TypeError, "decide", "None"),
          )],
        Bad("resolution", lambda m: m.resolution(0), ValueError, "count", ">= 1", "0"),
        Bad("resolution", lambda m: m.resolution(-4), ValueError, "count", ">= 1", "negative"),
        Bad("resolution", lambda m: m.resolution(1.5), TypeError, "count", note="float"),
        Bad("resolution", lambda m: m.resolution("17"), TypeError, "count", note="str"),
        Bad("resolution", lambda m: m.resolution(True), TypeError, "count", note="bool"),
        Bad("disagreements", lambda m: m.disagreements([1], {1: "temiz"}), TypeError,
            "labels_a", note="a list"),
        Bad("disagreements", lambda m: m.disagreements({1: "temiz"}, None), TypeError,
            "labels_b", note="None"),
        Bad("disagreements", lambda m: m.disagreements({1: "temiz"}, {2: "temiz"}), ValueError,
            "labels_a", note="different records"),
    ],
    "lessonlib.simulator": [
        Bad("tokenize", lambda m: m.tokenize(5), TypeError, "text", note="int"),
        Bad("tokenize", lambda m: m.tokenize(None), TypeError, "text", note="None"),
        Bad("tokenize", lambda m: m.tokenize(b"abc"), TypeError, "text", note="bytes"),
        Bad("SimulatedModel", model_with(temperature=-0.1), ValueError, "temperature", ">= 0",
            "negative"),
        Bad("SimulatedModel", model_with(temperature=NAN), ValueError, "temperature", "finite",
            "NaN"),
        Bad("SimulatedModel", model_with(temperature=INF), ValueError, "temperature", "finite",
            "inf"),
        Bad("SimulatedModel", model_with(temperature="0.3"), TypeError, "temperature",
            note="str"),
        Bad("SimulatedModel", model_with(temperature=True), TypeError, "temperature",
            note="bool"),
        Bad("SimulatedModel", model_with(temperature=None), TypeError, "temperature",
            note="None"),
        Bad("SimulatedModel", model_with(cues=5), TypeError, "cues", note="not a mapping"),
        Bad("SimulatedModel", model_with(cues={"yoner": "evil"}), ValueError, "cues", "zararli",
            "unknown label"),
        Bad("SimulatedModel", model_with(cues={3: "temiz"}), TypeError, "cues",
            note="int token"),
        Bad("SimulatedModel", model_with(spurious={"asiri": "harmful"}), ValueError, "spurious",
            "zararli", "unknown label"),
        Bad("SimulatedModel", model_with(spurious=["asiri"]), TypeError, "spurious",
            note="a list"),
        Bad("SimulatedModel", model_with(prior={"temiz": 0.75}), ValueError, "prior", "zararli",
            "missing label"),
        Bad("SimulatedModel", model_with(prior={"temiz": 0.7, "zararli": 0.1, "belki": 0.2}),
            ValueError, "prior", "temiz", "unknown label"),
        Bad("SimulatedModel", model_with(prior={"temiz": "a", "zararli": 0.1}), TypeError,
            "prior", note="str weight"),
        Bad("SimulatedModel", model_with(prior={"temiz": NAN, "zararli": 0.1}), ValueError,
            "prior", note="NaN weight"),
        Bad("SimulatedModel", model_with(prior=5), TypeError, "prior", note="not a mapping"),
        Bad("SimulatedModel", model_with(window=0), ValueError, "window", ">= 1", "0"),
        Bad("SimulatedModel", model_with(window=1.5), TypeError, "window", note="float"),
        Bad("SimulatedModel", model_with(max_output=0), ValueError, "max_output", ">= 1", "0"),
        Bad("SimulatedModel", model_with(max_output="24"), TypeError, "max_output", note="str"),
        Bad("SimulatedModel", model_with(rate_limit_every=0), ValueError, "rate_limit_every",
            ">= 1", "0"),
        Bad("SimulatedModel", model_with(name=5), TypeError, "name", note="int"),
        Bad("SimulatedModel.call", lambda m: m.SimulatedModel().call(5), TypeError, "prompt",
            note="int prompt"),
        Bad("SimulatedModel.call", lambda m: m.SimulatedModel().call("p", -1), ValueError, "seed",
            ">= 0", "negative seed"),
        Bad("SimulatedModel.call", lambda m: m.SimulatedModel().call("p", 1.5), TypeError, "seed",
            note="float seed"),
        Bad("SimulatedModel.call", lambda m: m.SimulatedModel().call("p", True), TypeError,
            "seed", note="bool seed"),
        Bad("SimulatedModel.call", lambda m: m.SimulatedModel().call("p", None), TypeError,
            "seed", note="None seed"),
        Bad("SimulatedModel.call", lambda m: m.SimulatedModel().call("p", 1, 0), ValueError,
            "max_output", ">= 1", "max_output 0"),
        Bad("SimulatedModel.call", lambda m: m.SimulatedModel().call("p", 1, 2.0), TypeError,
            "max_output", note="float max_output"),
        Bad("SimulatedModel.plan", lambda m: m.SimulatedModel().plan(None), TypeError, "prompt",
            note="None"),
    ],
    "lessonlib.judge": [
        Bad("build_prompt", lambda m: m.build_prompt("kayit"), TypeError, "record", "Record",
            "str record"),
        Bad("build_prompt", lambda m: m.build_prompt(R, 5), TypeError, "guideline",
            note="int guideline"),
        Bad("build_prompt", lambda m: m.build_prompt(R, None), TypeError, "guideline",
            note="None guideline"),
        Bad("read_label", lambda m: m.read_label(None), TypeError, "reply_text", note="None"),
        Bad("read_label", lambda m: m.read_label(5), TypeError, "reply_text", note="int"),
        Bad("read_label", lambda m: m.read_label(m.SimulatedModel().call("tek")), TypeError,
            "reply_text", note="a Reply, not its text"),
        Bad("ask_for_label", lambda m: m.ask_for_label(5, "p", 1), TypeError, "ask",
            note="not callable"),
        Bad("ask_for_label", lambda m: m.ask_for_label(str, 5, 1), TypeError, "prompt",
            note="int prompt"),
        Bad("ask_for_label", lambda m: m.ask_for_label(str, "p", -1), ValueError, "seed",
            note="negative seed"),
        Bad("ask_for_label", lambda m: m.ask_for_label(str, "p", 0.5), TypeError, "seed",
            note="float seed"),
        Bad("run_judge", judge_with(records=[]), ValueError, "records", note="empty"),
        Bad("run_judge", judge_with(records=None), TypeError, "records", note="None"),
        Bad("run_judge", judge_with(records=[1, 2]), TypeError, "records", "Record", "ints"),
        Bad("run_judge", judge_with(records=R), TypeError, "records", note="one record"),
        Bad("run_judge", judge_with(seed=-1), ValueError, "seed", ">= 0", "negative seed"),
        Bad("run_judge", judge_with(seed=2.5), TypeError, "seed", note="float seed"),
        Bad("run_judge", judge_with(seed=True), TypeError, "seed", note="bool seed"),
        Bad("run_judge", judge_with(temperature=-1), ValueError, "temperature", ">= 0",
            "negative"),
        Bad("run_judge", judge_with(temperature=NAN), ValueError, "temperature", note="NaN"),
        Bad("run_judge", judge_with(temperature="0.3"), TypeError, "temperature", note="str"),
        Bad("run_judge", judge_with(guideline=None), TypeError, "guideline", note="None"),
        Bad("run_judge", judge_with(cues={"yoner": "harmful"}), ValueError, "cues", "temiz",
            "unknown label"),
        Bad("run_judge", judge_with(cues=["yoner"]), TypeError, "cues", note="a list"),
        Bad("run_judge", judge_with(spurious={"asiri": "x"}), ValueError, "spurious", "zararli",
            "unknown label"),
        Bad("run_judge", judge_with(max_output=0), ValueError, "max_output", ">= 1", "0"),
        Bad("run_judge", judge_with(max_output=1.5), TypeError, "max_output", note="float"),
        Bad("run_judge", judge_with(max_output=True), TypeError, "max_output", note="bool"),
        Bad("run_judge", judge_with(unreadable_as="maybe"), ValueError, "unreadable_as",
            "clean", "unknown rule"),
        Bad("run_judge", judge_with(unreadable_as=None), ValueError, "unreadable_as", "harmful",
            "None"),
        Bad("JudgeRun.decide", lambda m: RUN.decide("kayit 1"), TypeError, "record", "Record",
            "str record"),
    ],
    "lessonlib.report": [
        Bad("sample_call_block", lambda m: m.sample_call_block("x"), TypeError, "record",
            note="str record"),
        Bad("sample_call_block", lambda m: m.sample_call_block(R, -1), ValueError, "seed",
            note="negative seed"),
        Bad("sample_call_block", lambda m: m.sample_call_block(R, 1, 5), TypeError, "model",
            note="int model"),
        Bad("comparison_rows", lambda m: m.comparison_rows([], [RUN]), ValueError, "records",
            note="empty"),
        Bad("comparison_rows", lambda m: m.comparison_rows(RECS, 5), TypeError, "runs",
            note="int"),
        Bad("comparison_rows", lambda m: m.comparison_rows(RECS, RUN), TypeError, "runs",
            note="one run, not a list"),
        Bad("comparison_rows", lambda m: m.comparison_rows(RECS, [RUN, 5]), TypeError, "runs",
            note="non-run item"),
        Bad("comparison_rows", lambda m: m.comparison_rows(RECS, [RUN], 5), TypeError,
            "criteria", note="int criteria"),
        Bad("comparison_block", lambda m: m.comparison_block(RECS, None, RUN), TypeError, "run1",
            note="None"),
        Bad("comparison_block", lambda m: m.comparison_block(RECS, RUN, "x"), TypeError, "run2",
            note="str"),
        Bad("comparison_block", lambda m: m.comparison_block([], RUN, RUN), ValueError,
            "records", note="empty"),
        Bad("comparison_block", lambda m: m.comparison_block(RECS, RUN, RUN, 5), TypeError,
            "criteria", note="int criteria"),
        Bad("class_block", lambda m: m.class_block(RECS, None), TypeError, "run", note="None"),
        Bad("class_block", lambda m: m.class_block([], RUN), ValueError, "records",
            note="empty"),
        Bad("class_block", lambda m: m.class_block(RECS, RUN, 5), TypeError, "criteria",
            note="int criteria"),
        Bad("lesson", lambda m: m.lesson(0), ValueError, "n", ">= 1", "n=0"),
        Bad("lesson", lambda m: m.lesson(1.5), TypeError, "n", note="float n"),
        Bad("lesson", lambda m: m.lesson(True), TypeError, "n", note="bool n"),
        Bad("lesson", lambda m: m.lesson(5, -1), ValueError, "seed", note="negative seed"),
        Bad("lesson", lambda m: m.lesson(5, 2.5), TypeError, "seed", note="float seed"),
    ],
    # "lessonlib.many": [...], "lessonlib.panel": [...], "lessonlib.widgets": [...],
    # "lessonlib.exercises": [...]  -- append a key per module when it is merged.
}

NO_ROWS = {
    # public name -> why it has no bad-input row
    "trace_id": "hashes str() of any object by definition: there is no bad argument",
    "lesson_blocks": "takes no argument",
    "Answer": "result container built by ask_for_label (which validates its input)",
    "JudgeRun": "result container built by run_judge; its decide() has rows",
    "Reply": "result container built by SimulatedModel.call",
    "PromptPlan": "built by SimulatedModel.plan (which validates); reply() is the many-seed "
                  "hot path and trusts SimulatedModel.call's checks",
    "Lesson": "result container built by lesson() (which validates)",
}


def _cases():
    for module, rows in ROWS.items():
        for i, row in enumerate(rows):
            label = f"{row.api}-{row.note or row.param}-{i}".replace(" ", "_")
            yield pytest.param(module, row, id=f"{module.split('.')[-1]}:{label}")


def _words(text):
    return re.compile(r"(?<![A-Za-z0-9_])" + re.escape(text) + r"(?![A-Za-z0-9_])")


@pytest.mark.parametrize("module, row", list(_cases()))
def test_bad_argument_meets_a_clear_error(module, row, tmp_path, monkeypatch):
    try:
        mod = importlib.import_module(module)
    except ModuleNotFoundError:
        pytest.skip(f"{module} is not in this checkout yet")
    monkeypatch.chdir(tmp_path)          # a row that would write a file writes it here
    with pytest.raises(row.error) as caught:
        row.call(mod)
    message = str(caught.value)
    assert _words(row.param).search(message), f"message does not name {row.param!r}: {message}"
    assert row.allowed in message, f"message does not show {row.allowed!r}: {message}"
    assert not list(tmp_path.iterdir()), "a file was written before the error"


def _public_callables():
    names = set()
    for name in dir(lessonlib):
        obj = getattr(lessonlib, name)
        if name.startswith("_") or not callable(obj):
            continue
        if getattr(obj, "__module__", "").startswith("lessonlib"):
            names.add(name)
    return names


def test_every_public_name_has_rows():
    covered = {row.api.split(".")[0] for rows in ROWS.values() for row in rows}
    missing = sorted(_public_callables() - covered - set(NO_ROWS))
    assert not missing, (f"public names without bad-input rows: {missing}; add rows to ROWS "
                         f"or a reason to NO_ROWS in tests/test_bad_input.py")


def test_the_table_has_no_stale_names():
    for module, rows in ROWS.items():
        try:
            mod = importlib.import_module(module)
        except ModuleNotFoundError:
            continue
        for row in rows:
            owner, _, method = row.api.partition(".")
            assert hasattr(mod, owner), f"{module} has no {owner}"
            assert not method or hasattr(getattr(mod, owner), method), row.api
    assert not set(NO_ROWS) - _public_callables(), "NO_ROWS names something not public"


# ---------------------------------------------------------------- nothing half-built


def test_a_refused_call_leaves_the_counter_unchanged():
    model = lessonlib.SimulatedModel(0)
    for _ in range(36):
        model.call("tek yok", 1)
    for bad in (lambda: model.call("tek yok", -1), lambda: model.call(5, 1),
                lambda: model.call("tek yok", 1, 0), lambda: model.call("tek yok", True),
                lambda: model("tek yok", 1.5)):
        with pytest.raises((TypeError, ValueError)):
            bad()
        assert model.calls == 36
    # so the next good call is still the 37th, the rate-limited one
    assert model.call("tek yok", 1).status == "rate_limit"


def test_a_bad_seed_reaches_no_model():
    asked = []
    with pytest.raises(ValueError):
        lessonlib.ask_for_label(lambda p, s: asked.append(s) or "temiz", "tek", -1)
    assert asked == []


@pytest.mark.parametrize("call", [
    lambda spy: lessonlib.measure([R, 5], spy),
    lambda spy: lessonlib.agreement([R, "x"], spy),
    lambda spy: lessonlib.class_recall([R, None], spy),
    lambda spy: lessonlib.comparison_rows(RECS, [RUN, 5], spy),
    lambda spy: lessonlib.class_block(RECS, None, spy),
], ids=["measure", "agreement", "class_recall", "comparison_rows", "class_block"])
def test_a_bad_argument_is_found_before_any_decision(call):
    decided = []
    with pytest.raises(TypeError):
        call(lambda r: decided.append(r) or True)
    assert decided == []


def test_a_failed_csv_write_leaves_the_old_file(tmp_path):
    path = tmp_path / "records.csv"
    path.write_text("old\n")
    for bad in ([], [R, 5], "abc"):
        with pytest.raises((TypeError, ValueError)):
            lessonlib.write_records_csv(path, bad)
    assert path.read_text() == "old\n"


def test_a_failed_record_is_not_built_and_records_stay_frozen():
    with pytest.raises(ValueError):
        lessonlib.Record(1, "bogus", "user", FEATURE_VALUES, "x", 5)
    with pytest.raises(AttributeError):
        R.cls = "indirect_instruction"
    assert R.cls == "clean"
