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
fails when a public function or class of ANY lessonlib module (found with
pkgutil; the names lessonlib exports, lazy ones included, are among them) has
neither rows nor a reason in ``NO_ROWS`` (keyed "module.name").  A row whose
function does not check that argument yet is marked ``gap=...``: it runs as
a strict xfail, so the gap stays visible and the mark must go once it is
fixed.  Further tests check that nothing is half-built on error.
"""

from __future__ import annotations

import functools
import importlib
import math
import pkgutil
import re
import sys
from dataclasses import dataclass
from typing import Callable

import numpy as np
import pytest

import lessonlib
from lesson_defs import record

R = record(no=1)
RECS = [R, record(no=2, cls="indirect_instruction", flags=("instruction_mode",))]
RUN = lessonlib.JudgeRun({1: "temiz", 2: "zararli"}, 2, 0, 0, 82)
FEATURE_VALUES = dict.fromkeys(lessonlib.FEATURES, False)
NAN, INF = math.nan, math.inf
GUIDELINE_TEXT = lessonlib.GUIDELINE


@dataclass(frozen=True)
class Bad:
    api: str                    # the public name (or Class.method) under test
    call: Callable              # thunk taking the module
    error: type                 # TypeError (wrong kind) or ValueError (value not allowed)
    param: str                  # the parameter the message must name
    allowed: str = ""           # a piece of the allowed values the message must show
    note: str = ""              # what is bad, for the test id
    gap: str = ""               # not checked yet (module owned elsewhere): a strict xfail


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
        Bad("by_class", lambda m: m.by_class([]), ValueError, "records", note="empty"),
        Bad("by_class", lambda m: m.by_class([5]), TypeError, "records", note="not a Record"),
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
        Bad("draw_record", lambda m: m.draw_record(-1), ValueError, "index", ">= 0"),
        Bad("draw_record", lambda m: m.draw_record(1.5), TypeError, "index", note="float"),
        Bad("draw_record", lambda m: m.draw_record(1, -1), ValueError, "seed", ">= 0"),
        *[Bad(fn, lambda m, fn=fn, r=r: getattr(m, fn)(r), error, "records", note=note)
          for fn in ("flag_rates", "records_frame")
          for r, error, note in (([], ValueError, "empty"), (5, TypeError, "int"),
                                 ([R, 5], TypeError, "non-record item"))],
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
        Bad("check_rules", lambda m: m.check_rules("instruction_mode"), TypeError, "rules",
            note="a string"),
        Bad("check_rules", lambda m: m.check_rules(("nope",)), ValueError, "rules",
            "instruction_mode", "unknown name"),
    ],
    "lessonlib.metrics": [
        Bad("share", lambda m: m.share("3", 4), TypeError, "part", note="str part"),
        Bad("share", lambda m: m.share(5, 4), ValueError, "part", "<= whole", "part > whole"),
        Bad("share", lambda m: m.share(-1, 4), ValueError, "part", ">= 0", "negative part"),
        Bad("share", lambda m: m.share(1, None), TypeError, "whole", note="None whole"),
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
        Bad("steps", lambda m: m.steps(0.5, 0), ValueError, "count", ">= 1"),
        Bad("steps", lambda m: m.steps("a", 5), TypeError, "difference"),
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
        Bad("label_probabilities", lambda m: m.label_probabilities(5), TypeError, "prompt"),
        Bad("label_probabilities", lambda m: m.label_probabilities("p", -1), ValueError,
            "temperature", ">= 0"),
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
        Bad("reply_parts", lambda m: m.reply_parts("p", 5), TypeError, "reply",
            note="an int reply"),
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
        Bad("class_table", lambda m: m.class_table({}), TypeError, "recalls", note="empty"),
        Bad("class_table", lambda m: m.class_table([("a", {})]), TypeError, "recalls",
            note="list"),
        Bad("class_table", lambda m: m.class_table({"a": 5}), TypeError, "recalls",
            note="int column"),
        Bad("class_table", lambda m: m.class_table({"a": {}}, 0), ValueError, "width",
            ">= 1", "width=0"),
        Bad("class_table", lambda m: m.class_table({"a": {}}, "17"), TypeError, "width",
            note="str width"),
        Bad("lesson", lambda m: m.lesson(0), ValueError, "n", ">= 1", "n=0"),
        Bad("lesson", lambda m: m.lesson(1.5), TypeError, "n", note="float n"),
        Bad("lesson", lambda m: m.lesson(True), TypeError, "n", note="bool n"),
        Bad("lesson", lambda m: m.lesson(5, -1), ValueError, "seed", note="negative seed"),
        Bad("lesson", lambda m: m.lesson(5, 2.5), TypeError, "seed", note="float seed"),
        Bad("band_text", lambda m: m.band_text([], RUN, RUN), ValueError, "records"),
        Bad("band_text", lambda m: m.band_text(RECS, None, RUN), TypeError, "run1",
            note="None"),
        Bad("retry_text", lambda m: m.retry_text(5), TypeError, "run", note="int"),
        Bad("table_text", lambda m: m.table_text(5), TypeError, "rows", note="int"),
    ],
}


# ---------------------------------------------------------------- the modules merged later
# Small results to call methods on and to pass as inputs (built once, on first use).

@functools.cache
def many_runs():
    return importlib.import_module("lessonlib.many").run_judge_many(RECS, [1, 2, 3])


@functools.cache
def panel_many():
    return lessonlib.Panel([lessonlib.SimulatedModel()]).run_many(RECS, [1, 2])


@functools.cache
def study_rows():
    study = importlib.import_module("lessonlib.panel_study")
    return study.study(RECS, (study.Setup("one judge"),), seeds=[1, 2])


@functools.cache
def sweep_rows():
    return importlib.import_module("lessonlib.variance").temperature_sweep(RECS, [0.3], [1, 2])


def ask(prompt, seed):
    return "temiz"


def many_with(**change):
    args = dict(records=RECS, seeds=[1])
    args.update(change)
    return lambda m: m.run_judge_many(**args)


def model_many_with(**change):
    args = dict(records=RECS, seeds=[1, 2], model=lessonlib.SimulatedModel())
    args.update(change)
    return lambda m: m.run_model_many(**args)


def panel_with(**change):
    args = dict(asks=[ask])
    args.update(change)
    return lambda m: m.Panel(**args)


def panel_run_with(**change):
    args = dict(records=RECS)
    args.update(change)
    return lambda m: m.Panel([ask]).run(**args)


def panel_many_with(**change):
    args = dict(records=RECS, seeds=[1])
    args.update(change)
    return lambda m: m.Panel([lessonlib.SimulatedModel()]).run_many(**args)


def setup_with(**change):
    args = dict(name="x")
    args.update(change)
    return lambda m: m.Setup(**args)


def spec_with(**change):
    args = dict(name="x", differs="nothing")
    args.update(change)
    return lambda m: m.JudgeSpec(**args)


H2 = [[True, False], [False, True]]      # two runs, two records
ACTUAL = [False, True]                   # the human label of RECS
BAD_SEEDS = (([], ValueError, "empty"), (5, TypeError, "one int"), ([-1], ValueError, "negative"),
             ([1.5], TypeError, "float seed"), ([True], TypeError, "bool seed"),
             ("12", TypeError, "a string"), ({1: 2}, TypeError, "a dict"))
BAD_DECISIONS = (([True, False], ValueError, "1-D"), (None, TypeError, "None"),
                 ([[0.5, 0.2]], TypeError, "floats"), ([[2, 0]], ValueError, "ints not 0/1"),
                 ("ab", TypeError, "a string"))

ROWS.update({
    "lessonlib.many": [
        *[Bad("run_judge_many", many_with(seeds=seeds), error, "seeds", note=note)
          for seeds, error, note in BAD_SEEDS],
        Bad("run_judge_many", lambda m: m.run_judge_many(RECS, np.array([1.0])), TypeError,
            "seeds", note="float array"),
        Bad("run_judge_many", lambda m: m.run_judge_many(RECS, np.array([[1]])), ValueError,
            "seeds", note="2-D array"),
        Bad("run_judge_many", many_with(records=[]), ValueError, "records", note="empty"),
        Bad("run_judge_many", many_with(records=R), TypeError, "records", note="one record"),
        Bad("run_judge_many", many_with(temperature=-1), ValueError, "temperature", ">= 0"),
        Bad("run_judge_many", many_with(temperature=NAN), ValueError, "temperature",
            note="NaN"),
        Bad("run_judge_many", many_with(temperature="0.3"), TypeError, "temperature",
            note="str"),
        Bad("run_judge_many", many_with(guideline=5), TypeError, "guideline", note="int"),
        Bad("run_judge_many", many_with(cues={"yoner": "evil"}), ValueError, "cues", "zararli",
            "unknown label"),
        Bad("run_judge_many", many_with(spurious=["asiri"]), TypeError, "spurious",
            note="a list"),
        Bad("run_judge_many", many_with(max_output=0), ValueError, "max_output", ">= 1"),
        Bad("run_judge_many", many_with(unreadable_as="skip"), ValueError, "unreadable_as",
            "harmful", "unknown rule"),
        Bad("run_judge_many", many_with(chunk=0), ValueError, "chunk", ">= 1"),
        Bad("run_judge_many", many_with(chunk=1.5), TypeError, "chunk", note="float"),
        Bad("run_model_many", model_many_with(model="simulated"), TypeError, "model",
            "SimulatedModel", "str model"),
        Bad("run_model_many", model_many_with(model=ask), TypeError, "model", "SimulatedModel",
            "a plain ask"),
        Bad("run_model_many", model_many_with(seeds=[]), ValueError, "seeds", note="empty"),
        Bad("run_model_many", model_many_with(records=[]), ValueError, "records",
            note="empty"),
        Bad("run_model_many", model_many_with(guideline=None), TypeError, "guideline"),
        Bad("run_model_many", model_many_with(max_output=0), ValueError, "max_output", ">= 1"),
        Bad("run_model_many", model_many_with(unreadable_as="abstain"), ValueError,
            "unreadable_as", "clean", "panel-only rule"),
        Bad("run_model_many", model_many_with(chunk=-1), ValueError, "chunk", ">= 1"),
        *[Bad("run_model_many", model_many_with(calls_before=bad), error, "calls_before",
              note=note)
          for bad, error, note in ((-1, ValueError, "negative"), (1.5, TypeError, "float"),
                                   (True, TypeError, "bool"), ("3", TypeError, "str"),
                                   (None, TypeError, "None"), ([1], ValueError, "too few"),
                                   ([1, 2, 3], ValueError, "too many"),
                                   ([0, -2], ValueError, "negative item"),
                                   ([0, 1.5], TypeError, "float item"),
                                   ([0, True], TypeError, "bool item"),
                                   (np.array([0.0, 1.0]), TypeError, "float array"))],
        Bad("ManyRuns.run", lambda m: many_runs().run(1.5), TypeError, "i", note="float"),
        Bad("ManyRuns.run", lambda m: many_runs().run(True), TypeError, "i", note="bool"),
        Bad("ManyRuns.run", lambda m: many_runs().run(3), ValueError, "i", "[-3, 3)",
            "past the end"),
        Bad("ManyRuns.run", lambda m: many_runs().run(-4), ValueError, "i", note="before start"),
        *[Bad("check_seeds", lambda m, s=seeds: m.check_seeds(s), error, "seeds", note=note)
          for seeds, error, note in BAD_SEEDS],
        *[Bad(fn, lambda m, fn=fn, h=h: getattr(m, fn)(h, ACTUAL), error, "harmful", note=note)
          for fn in ("measure_many", "confusion_many", "agreement_many")
          for h, error, note in BAD_DECISIONS],
        *[Bad("check_decisions", lambda m, h=h: m.check_decisions(h), error, "harmful",
              note=note) for h, error, note in BAD_DECISIONS],
        Bad("check_decisions", lambda m: m.check_decisions([[True]], min_rows=2), ValueError,
            "harmful", "two runs", "too few runs"),
        *[Bad(fn, lambda m, fn=fn, a=a: getattr(m, fn)(H2, a), error, "actual", note=note)
          for fn in ("measure_many", "confusion_many", "agreement_many")
          for a, error, note in (([True], ValueError, "too short"), ([], ValueError, "empty"),
                                 (None, TypeError, "None"), ([0.5, 1.0], TypeError, "floats"))],
        Bad("measure_many", lambda m: m.measure_many(np.zeros((1, 0), bool), []), ValueError,
            "harmful", note="no records"),
        Bad("rounded_ratio", lambda m: m.rounded_ratio(["a"], [1]), TypeError, "num",
            note="str"),
        Bad("rounded_ratio", lambda m: m.rounded_ratio([1.5], [2]), TypeError, "num",
            note="float"),
        Bad("rounded_ratio", lambda m: m.rounded_ratio([1], [2.0]), TypeError, "den",
            note="float"),
        Bad("rounded_ratio", lambda m: m.rounded_ratio([1, 2], [2]), ValueError, "den",
            note="shapes differ"),
        Bad("rounded_ratio", lambda m: m.rounded_ratio([1], [2], "4"), TypeError, "places",
            note="str"),
    ],
    "lessonlib.panel": [
        Bad("Panel", panel_with(asks=[]), ValueError, "asks", note="no judge"),
        Bad("Panel", panel_with(asks=ask), TypeError, "asks", note="one ask, not a list"),
        Bad("Panel", panel_with(asks=None), TypeError, "asks", note="None"),
        Bad("Panel", panel_with(asks="ab"), TypeError, "asks", note="a string"),
        Bad("Panel", panel_with(asks=[ask, 5]), TypeError, "asks", note="non-callable member"),
        Bad("Panel", panel_with(quorum=1.5), TypeError, "quorum", note="float"),
        Bad("Panel", panel_with(quorum="3"), TypeError, "quorum", note="str"),
        Bad("Panel", panel_with(quorum=True), TypeError, "quorum", note="bool"),
        Bad("Panel", panel_with(quorum=None), TypeError, "quorum", note="None"),
        Bad("Panel", panel_with(aggregate="max"), ValueError, "aggregate", "'median'",
            "unknown"),
        Bad("Panel", panel_with(aggregate=5), TypeError, "aggregate", note="int"),
        Bad("Panel", panel_with(min_agreement=NAN), ValueError, "min_agreement", note="NaN"),
        Bad("Panel", panel_with(min_agreement="0.5"), TypeError, "min_agreement", note="str"),
        Bad("Panel", panel_with(min_agreement=None), TypeError, "min_agreement", note="None"),
        Bad("Panel", panel_with(min_agreement=True), TypeError, "min_agreement", note="bool"),
        Bad("Panel", panel_with(on_unreadable="skip"), ValueError, "on_unreadable", "'abstain'",
            "unknown"),
        Bad("Panel", panel_with(on_unreadable=None), TypeError, "on_unreadable", note="None"),
        Bad("Panel.run", panel_run_with(records=[]), ValueError, "records", note="empty"),
        Bad("Panel.run", panel_run_with(records=R), TypeError, "records", note="one record"),
        Bad("Panel.run", panel_run_with(records=[R, 5]), TypeError, "records",
            note="non-record item"),
        Bad("Panel.run", panel_run_with(seed=-1), ValueError, "seed", ">= 0"),
        Bad("Panel.run", panel_run_with(seed=1.5), TypeError, "seed", note="float"),
        Bad("Panel.run", panel_run_with(seed=True), TypeError, "seed", note="bool"),
        Bad("Panel.run", panel_run_with(guideline=5), TypeError, "guideline", note="int"),
        Bad("Panel.run", lambda m: m.Panel([lambda p, s: 5]).run(RECS), TypeError, "reply",
            note="an ask returning an int"),
        Bad("Panel.seeds", lambda m: m.Panel([ask]).seeds(-1), ValueError, "seed"),
        *[Bad("Panel.run_many", panel_many_with(seeds=seeds), error, "seeds", note=note)
          for seeds, error, note in BAD_SEEDS],
        Bad("Panel.run_many", panel_many_with(seeds=np.array([1.0])), TypeError, "seeds",
            note="float array"),
        Bad("Panel.run_many", panel_many_with(seeds=np.array([True])), TypeError, "seeds",
            note="bool array"),
        Bad("Panel.run_many", panel_many_with(seeds=np.array([[1]])), ValueError, "seeds",
            note="2-D array"),
        Bad("Panel.run_many", panel_many_with(records=[]), ValueError, "records",
            note="empty"),
        Bad("Panel.run_many", panel_many_with(guideline=None), TypeError, "guideline"),
        Bad("Panel.run_many", panel_many_with(method="fast"), ValueError, "method", "'loop'",
            "unknown"),
        Bad("Panel.run_many", panel_many_with(method=None), ValueError, "method", "'engine'",
            "None"),
        Bad("Panel.run_many", lambda m: m.Panel([ask]).run_many(RECS, [1], method="engine"),
            TypeError, "method", "SimulatedModel", "engine with a plain ask"),
        Bad("run_many", lambda m: m.run_many([ask], RECS, [1]), TypeError, "panel", "Panel",
            "a list of asks"),
        Bad("run_many", lambda m: m.run_many(m.Panel([ask]), RECS, [-1]), ValueError, "seeds",
            note="negative seed"),
        Bad("PanelMany.run", lambda m: panel_many().run(1.5), TypeError, "i", note="float"),
        Bad("PanelMany.run", lambda m: panel_many().run(2), ValueError, "i", "[-2, 2)",
            "past the end"),
        Bad("PanelRun.decide", lambda m: m.Panel([ask]).run(RECS).decide("kayit 1"), TypeError,
            "record", "Record", "str record"),
        Bad("PanelRun.decide", lambda m: m.Panel([ask]).run(RECS).decide(record(no=9)),
            ValueError, "record", note="a record not in the run"),
        Bad("slot_seed", lambda m: m.slot_seed(-1, 0, 0, 1), ValueError, "seed", ">= 0"),
        Bad("slot_seed", lambda m: m.slot_seed(0, 1, 0, 1), ValueError, "judge", "< judges",
            "judge past the panel"),
        Bad("slot_seed", lambda m: m.slot_seed(0, -1, 0, 1), ValueError, "judge", ">= 0"),
        Bad("slot_seed", lambda m: m.slot_seed(0, 0, 1.5, 1), TypeError, "sample"),
        Bad("slot_seed", lambda m: m.slot_seed(0, 0, -1, 1), ValueError, "sample", ">= 0"),
        Bad("slot_seed", lambda m: m.slot_seed(0, 0, 0, 0), ValueError, "judges", ">= 1"),
        Bad("judge_spec", lambda m: m.judge_spec("gpt"), ValueError, "name", "'greedy'",
            "unknown"),
        Bad("judge_spec", lambda m: m.judge_spec(5), ValueError, "name", "'lesson'", "int"),
        Bad("judge_models", lambda m: m.judge_models(), ValueError, "name", "lesson",
            "no name"),
        Bad("judge_models", lambda m: m.judge_models("lesson", "gpt"), ValueError, "name",
            "'wary'", "one unknown"),
        Bad("judge_models", lambda m: m.judge_models(["lesson"]), ValueError, "name", "'plain'",
            "a list, not names"),
        Bad("JudgeSpec", spec_with(name=5), TypeError, "name", note="int"),
        Bad("JudgeSpec", spec_with(differs=None), TypeError, "differs", note="None"),
        Bad("JudgeSpec", spec_with(temperature=-1), ValueError, "temperature", ">= 0"),
        Bad("JudgeSpec", spec_with(temperature="hot"), TypeError, "temperature"),
        Bad("JudgeSpec", spec_with(spurious={"asiri": "zararli"}), TypeError, "spurious",
            note="a dict, not pairs"),
        Bad("JudgeSpec", spec_with(spurious=(("asiri", "evil"),)), ValueError, "spurious",
            "zararli", "unknown label"),
        Bad("JudgeSpec", spec_with(prior=(("temiz", 0.75),)), ValueError, "prior", "zararli",
            "missing label"),
        Bad("JudgeSpec", spec_with(prior=5), TypeError, "prior", note="int"),
        Bad("AskReply", lambda m: m.AskReply(5), TypeError, "text", note="int"),
        Bad("AskReply", lambda m: m.AskReply("temiz", -1), ValueError, "input_tokens", ">= 0"),
        Bad("AskReply", lambda m: m.AskReply("temiz", 1.5), TypeError, "input_tokens"),
        Bad("AskReply", lambda m: m.AskReply("temiz", 3, None), TypeError, "status"),
        Bad("median", lambda m: m.median([]), ValueError, "values", note="empty"),
        Bad("median", lambda m: m.median(None), TypeError, "values", note="None"),
        Bad("median", lambda m: m.median("ab"), TypeError, "values", note="a string"),
        Bad("median", lambda m: m.median(["a", "b"]), TypeError, "values", note="strings"),
        Bad("median", lambda m: m.median([NAN, 1, 0]), ValueError, "values", note="NaN"),
        Bad("combine", lambda m: m.combine([1.0], "max"), ValueError, "aggregate", "'min'",
            "unknown"),
        Bad("combine", lambda m: m.combine([], "mean"), ValueError, "scores", note="empty"),
        Bad("combine", lambda m: m.combine(None, "mean"), TypeError, "scores", note="None"),
        Bad("combine", lambda m: m.combine(["a"], "mean"), TypeError, "scores", note="str"),
        Bad("combine", lambda m: m.combine([NAN], "min"), ValueError, "scores", note="NaN"),
        Bad("verdict", lambda m: m.verdict([1.0], NAN), ValueError, "min_agreement",
            note="NaN"),
        Bad("verdict", lambda m: m.verdict([1.0], "x"), TypeError, "min_agreement",
            note="str"),
        Bad("verdict", lambda m: m.verdict(5, 0.5), TypeError, "judge_scores", note="int"),
        Bad("verdict", lambda m: m.verdict(["a"], 0.5), TypeError, "judge_scores",
            note="str score"),
        Bad("panel_verdicts", lambda m: m.panel_verdicts(np.zeros((1, 1, 1)), "max", 0.5),
            ValueError, "aggregate", "'mean'", "unknown"),
    ],
    "lessonlib.panel_study": [
        Bad("Setup", setup_with(name=5), TypeError, "name"),
        Bad("Setup", setup_with(judges="lesson"), TypeError, "judges", "greedy", "a string"),
        Bad("Setup", setup_with(judges=()), TypeError, "judges", note="empty"),
        Bad("Setup", setup_with(judges=5), TypeError, "judges", note="int"),
        Bad("Setup", setup_with(judges=("gpt",)), ValueError, "judges", "'wary'", "unknown"),
        Bad("Setup", setup_with(quorum=0), ValueError, "quorum", ">= 1"),
        Bad("Setup", setup_with(quorum=1.5), TypeError, "quorum"),
        Bad("Setup", setup_with(aggregate="max"), ValueError, "aggregate", "'median'"),
        Bad("Setup", setup_with(min_agreement=NAN), ValueError, "min_agreement", note="NaN"),
        Bad("Setup", setup_with(min_agreement="a"), TypeError, "min_agreement", note="str"),
        Bad("Setup", setup_with(on_unreadable="skip"), ValueError, "on_unreadable",
            "'abstain'"),
        Bad("study", lambda m: m.study([], (m.SINGLE,), [1]), ValueError, "records"),
        Bad("study", lambda m: m.study(RECS, m.SINGLE, [1]), TypeError, "setups",
            note="one setup"),
        Bad("study", lambda m: m.study(RECS, (), [1]), TypeError, "setups", note="empty"),
        Bad("study", lambda m: m.study(RECS, 5, [1]), TypeError, "setups", note="int"),
        Bad("study", lambda m: m.study(RECS, (m.SINGLE, 5), [1]), TypeError, "setups",
            note="non-setup item"),
        *[Bad("study", lambda m, s=seeds: m.study(RECS, (m.SINGLE,), s), error, "seeds",
              note=note) for seeds, error, note in BAD_SEEDS],
        Bad("study", lambda m: m.study(RECS, (m.SINGLE,), [1], -1), ValueError, "seed"),
        Bad("study", lambda m: m.study(RECS, (m.SINGLE,), [1], guideline=5), TypeError,
            "guideline"),
        *[Bad("rates_many", lambda m, h=h: m.rates_many(h, ACTUAL), error, "harmful", note=note)
          for h, error, note in BAD_DECISIONS],
        Bad("rates_many", lambda m: m.rates_many(H2, [True]), ValueError, "actual",
            note="too short"),
        Bad("band", lambda m: m.band([]), ValueError, "values", note="empty"),
        Bad("band", lambda m: m.band("ab"), TypeError, "values", note="a string"),
        Bad("band", lambda m: m.band([1.0, NAN]), ValueError, "values", note="NaN"),
        Bad("band", lambda m: m.band([[1, 2]]), ValueError, "values", note="2-D"),
        Bad("band", lambda m: m.band([1, 2], 2), ValueError, "coverage", "(0, 1]"),
        Bad("band", lambda m: m.band([1, 2], 0), ValueError, "coverage", note="zero"),
        Bad("band", lambda m: m.band([1, 2], "a"), TypeError, "coverage"),
        *[Bad("expected_changed", lambda m, h=h: m.expected_changed(h), error, "harmful",
              note=note) for h, error, note in BAD_DECISIONS + (([], ValueError, "empty"),)],
        *[Bad(fn, lambda m, fn=fn, rows=rows: getattr(m, fn)(rows), error, "rows", note=note)
          for fn in ("table_text", "band_text", "plot_band_against_cost")
          for rows, error, note in (([], ValueError, "empty"), ([5], TypeError, "non-row"),
                                    (None, TypeError, "None"))],
        Bad("table_text", lambda m: m.table_text(study_rows(), ("x",)), ValueError, "bands",
            "false_block_rate", "unknown metric"),
        Bad("band_text", lambda m: m.band_text(study_rows(), ("x",)), ValueError, "metrics",
            "recall", "unknown metric"),
        Bad("band_text", lambda m: m.band_text(study_rows(), "recall"), TypeError, "metrics",
            note="a string"),
        Bad("flags_on", lambda m: m.flags_on("kayit"), TypeError, "record", "Record"),
        Bad("cue_groups", lambda m: m.cue_groups([]), ValueError, "records", note="empty"),
        Bad("cue_text", lambda m: m.cue_text(RECS, []), ValueError, "rows", note="empty"),
        Bad("cue_text", lambda m: m.cue_text(RECS, [5]), TypeError, "rows", note="non-row"),
        Bad("cue_text", lambda m: m.cue_text([], study_rows()), ValueError, "records"),
        Bad("series_name", lambda m: m.series_name("single judge"), TypeError, "setup",
            "Setup"),
        Bad("plot_band_against_cost", lambda m: m.plot_band_against_cost(study_rows(), "x"),
            ValueError, "metric", "'recall'"),
        Bad("plot_band_against_cost", lambda m: m.plot_band_against_cost(study_rows(), ax=5),
            TypeError, "ax"),
        Bad("quote", lambda m: m.quote(study_rows(), "x"), ValueError, "key", "band",
            "unknown key"),
        Bad("quote", lambda m: m.quote(study_rows(), 5), TypeError, "keys", note="int key"),
        Bad("quote", lambda m: m.quote(study_rows(), "bogus band"), ValueError, "key",
            "recall", "unknown band metric"),
        Bad("quote", lambda m: m.quote([], "calls"), ValueError, "rows", note="empty"),
        Bad("quote", lambda m: m.quote([5], "calls"), TypeError, "rows", note="non-row"),
        Bad("Row.width", lambda m: study_rows()[0].width("x"), ValueError, "metric",
            "'agreement'"),
    ],
    "lessonlib.variance": [
        *[Bad(fn, lambda m, fn=fn: getattr(m, fn)(5), TypeError, "runs", "ManyRuns", "int")
          for fn in ("figures", "summary")],
        *[Bad(fn, lambda m, fn=fn: getattr(m, fn)(RECS, None), TypeError, "runs", "ManyRuns",
              "None")
          for fn in ("class_stability", "flag_stability", "recall_gap", "fbr_comparison",
                     "key_figures", "plot_figures", "plot_flip")],
        *[Bad(fn, lambda m, fn=fn: getattr(m, fn)([R], many_runs()), ValueError, "records",
              note="not the runs' records")
          for fn in ("class_stability", "flag_stability", "recall_gap", "fbr_comparison",
                     "key_figures", "plot_figures", "plot_flip")],
        *[Bad(fn, lambda m, fn=fn: getattr(m, fn)([], many_runs()), ValueError, "records",
              note="empty")
          for fn in ("class_stability", "recall_gap", "key_figures")],
        *[Bad(fn, call, error, "values", note=note)
          for fn, call, error, note in (
              ("position", lambda m: m.position([], 1), ValueError, "empty"),
              ("position", lambda m: m.position("ab", 1), TypeError, "a string"),
              ("position", lambda m: m.position(None, 1), TypeError, "None"),
              ("position", lambda m: m.position([NAN], 1), ValueError, "NaN"),
              ("run_band", lambda m: m.run_band([]), ValueError, "empty"),
              ("run_band", lambda m: m.run_band([1.0, NAN]), ValueError, "NaN"),
              ("run_band", lambda m: m.run_band([[1.0]]), ValueError, "2-D"))],
        Bad("position", lambda m: m.position([1], "a"), TypeError, "x"),
        Bad("position", lambda m: m.position([1], NAN), ValueError, "x", note="NaN"),
        *[Bad(fn, call, error, "level", note=note)
          for fn, call, error, note in (
              ("run_band", lambda m: m.run_band([1], 1), ValueError, "1"),
              ("run_band", lambda m: m.run_band([1], -0.5), ValueError, "negative"),
              ("run_band", lambda m: m.run_band([1], "a"), TypeError, "str"),
              ("summary", lambda m: m.summary(many_runs(), level=2), ValueError, "2"),
              ("recall_gap", lambda m: m.recall_gap(RECS, many_runs(), 1.5), ValueError, "1.5"),
              ("fbr_comparison", lambda m: m.fbr_comparison(RECS, many_runs(), NAN), ValueError,
               "NaN"),
              ("temperature_sweep", lambda m: m.temperature_sweep(RECS, [0.3], [1], 2),
               ValueError, "2"),
              ("key_figures", lambda m: m.key_figures(RECS, many_runs(), level=1), ValueError,
               "1"))],
        *[Bad(fn, call, error, "marks", note=note)
          for fn, call, error, note in (
              ("summary", lambda m: m.summary(many_runs(), (0, 9)), ValueError, "past the end"),
              ("summary", lambda m: m.summary(many_runs(), (0, 1.5)), TypeError, "float"),
              ("summary", lambda m: m.summary(many_runs(), 5), TypeError, "int"),
              ("key_figures", lambda m: m.key_figures(RECS, many_runs(), (0,)), ValueError,
               "one mark"),
              ("key_figures", lambda m: m.key_figures(RECS, many_runs(), (0, 3)), ValueError,
               "past the end"),
              ("plot_figures", lambda m: m.plot_figures(RECS, many_runs(), (0, 9)), ValueError,
               "past the end"))],
        *[Bad(fn, lambda m, fn=fn, h=h: getattr(m, fn)(h), error, "harmful", note=note)
          for fn in ("pair_changes", "neighbour_changes", "harmful_share", "flip_probability")
          for h, error, note in BAD_DECISIONS],
        *[Bad(fn, lambda m, fn=fn: getattr(m, fn)([[True, False]]), ValueError, "harmful",
              "two runs", "one run")
          for fn in ("pair_changes", "neighbour_changes", "flip_probability")],
        Bad("harmful_share", lambda m: m.harmful_share(np.zeros((0, 2), bool)), ValueError,
            "harmful", note="no runs"),
        *[Bad(fn, call, error, "threshold", note=note)
          for fn, call, error, note in (
              ("class_stability", lambda m: m.class_stability(RECS, many_runs(), -1),
               ValueError, "negative"),
              ("class_stability", lambda m: m.class_stability(RECS, many_runs(), "a"),
               TypeError, "str"),
              ("flag_stability", lambda m: m.flag_stability(RECS, many_runs(), NAN),
               ValueError, "NaN"),
              ("key_figures", lambda m: m.key_figures(RECS, many_runs(), threshold="a"),
               TypeError, "str"),
              ("plot_flip", lambda m: m.plot_flip(RECS, many_runs(), "a"), TypeError, "str"))],
        Bad("key_figures", lambda m: m.key_figures(RECS, m.run_judge_many(RECS, [1]), (0, 0)),
            ValueError, "runs", "two runs", "one run"),
        Bad("criteria_figures", lambda m: m.criteria_figures([]), ValueError, "records"),
        Bad("criteria_figures", lambda m: m.criteria_figures(RECS, 5), TypeError, "decide"),
        Bad("temperature_sweep", lambda m: m.temperature_sweep([], [0.3], [1]), ValueError,
            "records"),
        Bad("temperature_sweep", lambda m: m.temperature_sweep(RECS, [], [1]), ValueError,
            "temperatures", note="empty"),
        Bad("temperature_sweep", lambda m: m.temperature_sweep(RECS, [-1], [1]), ValueError,
            "temperatures", ">= 0", "negative"),
        Bad("temperature_sweep", lambda m: m.temperature_sweep(RECS, 0.3, [1]), TypeError,
            "temperatures", note="one number"),
        Bad("temperature_sweep", lambda m: m.temperature_sweep(RECS, "0.3", [1]), TypeError,
            "temperatures", note="a string"),
        *[Bad("temperature_sweep", lambda m, s=seeds: m.temperature_sweep(RECS, [0.3], s),
              error, "seeds", note=note) for seeds, error, note in BAD_SEEDS],
        Bad("temperature_sweep", lambda m: m.temperature_sweep(RECS, [0.3], [1], bogus=1),
            TypeError, "judge_args", "unreadable_as", "unknown argument"),
        Bad("temperature_sweep", lambda m: m.temperature_sweep(RECS, [0.3], [1], temperature=1),
            TypeError, "judge_args", "guideline", "temperature twice"),
        Bad("temperature_sweep", lambda m: m.temperature_sweep(RECS, [0.3], [1], max_output=0),
            ValueError, "max_output", ">= 1", "a judge argument"),
        *[Bad("plot_changes", lambda m, c=c: m.plot_changes(c), error, "changes", note=note)
          for c, error, note in (([], ValueError, "empty"), ([-1, 2], ValueError, "negative"),
                                 ([1.5], TypeError, "float"), (None, TypeError, "None"),
                                 ([[1]], ValueError, "2-D"))],
        Bad("plot_changes", lambda m: m.plot_changes([1, 2], "a"), TypeError, "mark"),
        Bad("plot_sweep", lambda m: m.plot_sweep([]), ValueError, "rows", note="empty"),
        Bad("plot_sweep", lambda m: m.plot_sweep([5]), TypeError, "rows", note="non-row"),
        Bad("plot_sweep", lambda m: m.plot_sweep({"temperature": 0.3}), TypeError, "rows",
            note="one dict"),
        Bad("plot_sweep", lambda m: m.plot_sweep(sweep_rows(), []), ValueError, "records",
            note="empty"),
    ],
    "lessonlib.figures": [
        Bad("class_recall_bars", lambda m: m.class_recall_bars([], {"a": bool}), ValueError,
            "records"),
        Bad("class_recall_bars", lambda m: m.class_recall_bars(RECS, {}), TypeError,
            "decisions", note="empty"),
        Bad("class_recall_bars", lambda m: m.class_recall_bars(RECS, bool), TypeError,
            "decisions", note="one function"),
        Bad("class_recall_bars", lambda m: m.class_recall_bars(RECS, {"a": 5}), TypeError,
            "decisions", note="non-callable"),
        Bad("class_recall_bars", lambda m: m.class_recall_bars(RECS, {5: bool}), TypeError,
            "decisions", note="int name"),
        Bad("class_recall_bars", lambda m: m.class_recall_bars(RECS, {"a": bool}, title=5),
            TypeError, "title"),
        Bad("class_recall_bars", lambda m: m.class_recall_bars(RECS, {"a": bool}, ax=5),
            TypeError, "ax"),
    ],
    "lessonlib.widgets": [
        Bad("criteria_text", lambda m: m.criteria_text([]), ValueError, "records"),
        Bad("criteria_text", lambda m: m.criteria_text(RECS, "instruction_mode"), TypeError,
            "rules", "instruction_mode", "a string"),
        Bad("criteria_text", lambda m: m.criteria_text(RECS, ("bogus",)), ValueError, "rules",
            "hidden_field_name", "unknown flag"),
        Bad("judge_settings", lambda m: m.judge_settings(-1), ValueError, "temperature"),
        Bad("judge_settings", lambda m: m.judge_settings(seed=-1), ValueError, "seed"),
        Bad("judge_settings", lambda m: m.judge_settings(guideline="x"), ValueError,
            "guideline", "single label (lesson)"),
        Bad("judge_settings", lambda m: m.judge_settings(spurious=1), TypeError, "spurious"),
        Bad("judge_settings", lambda m: m.judge_settings(unreadable_as="x"), ValueError,
            "unreadable_as", "'harmful'"),
        Bad("judge_text", lambda m: m.judge_text([]), ValueError, "records"),
        Bad("judge_text", lambda m: m.judge_text(RECS, "a"), TypeError, "temperature"),
        Bad("judge_text", lambda m: m.judge_text(RECS, NAN), ValueError, "temperature"),
        Bad("judge_text", lambda m: m.judge_text(RECS, seed=1.5), TypeError, "seed"),
        Bad("judge_text", lambda m: m.judge_text(RECS, guideline=GUIDELINE_TEXT), ValueError,
            "guideline", "free-form", "guideline text, not its name"),
        Bad("Explorer", lambda m: m.Explorer("x", {}, 5), TypeError, "render"),
        Bad("Explorer", lambda m: m.Explorer("x", {"a": 5}, lambda **s: ""), TypeError,
            "controls", note="control without value"),
        Bad("Explorer", lambda m: m.Explorer("x", 5, lambda **s: ""), TypeError, "controls",
            note="int"),
        Bad("Explorer", lambda m: m.Explorer(5, {}, lambda **s: ""), TypeError, "name",
            note="int"),
        Bad("Explorer", lambda m: m.Explorer("x", {}, lambda **s: 5), TypeError, "render",
            note="render returns an int"),
        Bad("Explorer", lambda m: m.Explorer("x", {}, lambda **s: "", layout_controls=5),
            TypeError, "layout_controls", note="int"),
        *[Bad("panel_settings", lambda m, b=b: m.panel_settings(**b), error, param, allowed,
              note=note)
          for b, error, param, allowed, note in (
              (dict(judges="lesson"), TypeError, "judges", "greedy", "a string"),
              (dict(judges=("gpt",)), ValueError, "judges", "wary", "unknown judge"),
              (dict(judges=()), ValueError, "judges", "lesson", "no judge"),
              (dict(quorum=0), ValueError, "quorum", ">= 1", "quorum 0"),
              (dict(quorum=1.5), TypeError, "quorum", "", "float quorum"),
              (dict(aggregate="max"), ValueError, "aggregate", "'median'", "unknown"),
              (dict(min_agreement=NAN), ValueError, "min_agreement", "", "NaN"),
              (dict(min_agreement=1.5), ValueError, "min_agreement", "[0, 1]", "above 1"),
              (dict(min_agreement="a"), TypeError, "min_agreement", "", "str"),
              (dict(on_unreadable="skip"), ValueError, "on_unreadable", "'abstain'",
               "unknown"),
              (dict(guideline=GUIDELINE_TEXT), ValueError, "guideline", "free-form",
               "text, not name"),
              (dict(band_seeds=1), ValueError, "band_seeds", ">= 2", "one seed"))],
        Bad("panel_text", lambda m: m.panel_text([]), ValueError, "records"),
        Bad("panel_text", lambda m: m.panel_text(RECS, quorum=0), ValueError, "quorum"),
        Bad("panel_text", lambda m: m.panel_text(RECS, judges=("gpt",)), ValueError, "judges"),
        *[Bad(fn, lambda m, fn=fn, r=r: getattr(m, fn)(r), error, "records", note=note)
          for fn in ("criteria_explorer", "judge_explorer", "panel_explorer")
          for r, error, note in (([], ValueError, "empty"), (5, TypeError, "int"))],
    ],
    "lessonlib.exercises.step01": [
        Bad("check_record", lambda m: m.check_record(R, 0), ValueError, "no", ">= 1",
            "no=0"),
        Bad("check_record", lambda m: m.check_record(R, "5"), TypeError, "no", note="str no"),
    ],
    "lessonlib.exercises.step02": [
        Bad("check_corrupted_rule",
            lambda m: m.check_corrupted_rule(m.DEFAULT_RULES + ("excessive_length",), NAN),
            ValueError, "max_fbr", note="NaN"),
        Bad("check_corrupted_rule",
            lambda m: m.check_corrupted_rule(m.DEFAULT_RULES + ("excessive_length",), "a"),
            TypeError, "max_fbr", note="str"),
    ],
    "lessonlib.exercises.step03": [
        Bad("check_output_cap_unreadable", lambda m: m.check_output_cap_unreadable(3, 0),
            ValueError, "max_output", ">= 1", "max_output 0"),
        Bad("check_output_cap_unreadable", lambda m: m.check_output_cap_unreadable(3, "a"),
            TypeError, "max_output", note="str"),
    ],
    "lessonlib.exercises.step06": [
        Bad("fbr_below_share_without_spurious",
            lambda m: m.fbr_below_share_without_spurious([], [1]), ValueError, "records"),
        Bad("fbr_below_share_without_spurious",
            lambda m: m.fbr_below_share_without_spurious(RECS, []), ValueError, "seeds"),
        Bad("lowest_overlap_temperature", lambda m: m.lowest_overlap_temperature([], [1]),
            ValueError, "records"),
        Bad("lowest_overlap_temperature", lambda m: m.lowest_overlap_temperature(RECS, []),
            ValueError, "seeds"),
        Bad("lowest_overlap_temperature",
            lambda m: m.lowest_overlap_temperature(RECS, [1], step=0), ValueError, "step",
            note="zero"),
        Bad("lowest_overlap_temperature",
            lambda m: m.lowest_overlap_temperature(RECS, [1], step="a"), TypeError, "step",
            note="str"),
        Bad("lowest_overlap_temperature",
            lambda m: m.lowest_overlap_temperature(RECS, [1], top=-1), ValueError, "top",
            note="negative"),
    ],
    "lessonlib.exercises.step07": [
        *[Bad("changed_by_rule", lambda m, s=seeds: m.changed_by_rule(s), error, "seeds",
              note=note) for seeds, error, note in BAD_SEEDS],
    ]
})

NO_ROWS = {
    # "module.name" -> why it has no bad-input row
    "records.trace_id": "hashes str() of any object by definition: there is no bad argument",
    "records.mix32": "the generator's scrambler on a whole number, in the per-record hot "
                     "path; generator() and make_records() check the seed before it",
    "report.lesson_blocks": "takes no argument",
    "report.Row": "result container built by comparison_rows (which validates)",
    "judge.Answer": "result container built by ask_for_label (which validates its input)",
    "simulator.Reply": "result container built by SimulatedModel.call",
    "simulator.PromptPlan": "built by SimulatedModel.plan (which validates); reply() is the "
                            "many-seed hot path and trusts SimulatedModel.call's checks",
    "simulator.label_scores": "inner step of SimulatedModel.plan / label_probabilities, "
                              "which check prompt, cues, spurious and prior first",
    "simulator.label_weights": "inner step of SimulatedModel.plan, which checks temperature",
    "simulator.reply_text": "inner step of SimulatedModel.call, which checks max_output",
    "report.Lesson": "result container built by lesson() (which validates)",
    "many.seed_words": "engine internal: gets the tuple check_seeds returned",
    "many.trace_ids": "engine internal: gets the prompts build_prompt made",
    "many.plan_many": "engine internal: gets a checked model and built prompts",
    "many.hoist": "engine internal: called by run_model_many / run_judge_many after "
                  "their checks",
    "many.Hoisted": "engine internal container built by hoist",
    "many.model_passes": "engine internal: called by panel.run_many after its checks",
    "panel.judge_medians": "vectorised step of run_many: gets the vote arrays it built",
    "panel.model_many_loop": "reference loop for checks (tests, benchmarks): gets the "
                             "arguments run_many checked",
}

# notebook 10 (lessonlib.raters): its own block, kept apart so the raters branch merges cleanly
ROWS["lessonlib.raters"] = [
    Bad("rater_agreement", lambda m: m.rater_agreement(["a"], ["a", "b"]), ValueError, "a"),
    Bad("cohen_kappa", lambda m: m.cohen_kappa(["a", "a"], ["a", "a"]), ValueError, "a",
        "0/0", "chance agreement 1"),
    Bad("cohen_kappa", lambda m: m.cohen_kappa("ab", ["a", "b"]), TypeError, "a", note="str"),
    Bad("fleiss_kappa", lambda m: m.fleiss_kappa([[1, 2], [1]]), ValueError, "ratings",
        "same length", "ragged"),
    Bad("fleiss_kappa", lambda m: m.fleiss_kappa([[1, 2]]), ValueError, "ratings",
        "at least two", "one rater"),
    Bad("fleiss_kappa", lambda m: m.fleiss_kappa([[1, 1], [1, 1]]), ValueError, "ratings",
        "0/0", "chance agreement 1"),
    Bad("category_kappas", lambda m: m.category_kappas(5), TypeError, "ratings"),
    Bad("krippendorff_alpha", lambda m: m.krippendorff_alpha([[1, 2], [1, 1]], "ratio"),
        ValueError, "level", "'interval'"),
    Bad("krippendorff_alpha", lambda m: m.krippendorff_alpha([["a", "b"], ["a", "a"]],
                                                              "interval"),
        TypeError, "level", "numeric", "numeric level on words"),
    Bad("krippendorff_alpha", lambda m: m.krippendorff_alpha([[1, None], [1, 2, 3]]),
        ValueError, "ratings", "same length", "ragged"),
    Bad("Rater", lambda m: m.Rater("x", "y", miss=2.0), ValueError, "miss", "[0, 1]"),
    Bad("Rater", lambda m: m.Rater("x", "y", careless_classes="clean"), TypeError,
        "careless_classes"),
    Bad("Rater", lambda m: m.Rater("x", "y", careless_classes=("bogus",)), ValueError,
        "careless_classes", "corrupted_input"),
    Bad("severity", lambda m: m.severity(5), TypeError, "record"),
    Bad("rate", lambda m: m.rate(RECS, m.RATERS[0], "1-5"), ValueError, "scale", "'graded'"),
    Bad("rate", lambda m: m.rate(RECS, m.RATERS[0], guideline="long"), ValueError,
        "guideline", "'detailed'"),
    Bad("rate", lambda m: m.rate(RECS, "lenient"), TypeError, "rater"),
    Bad("rate", lambda m: m.rate(RECS, m.RATERS[0], seed=-1), ValueError, "seed"),
    Bad("ratings", lambda m: m.ratings(RECS, raters=()), TypeError, "raters"),
    Bad("human_labels", lambda m: m.human_labels([]), ValueError, "records"),
    Bad("majority", lambda m: m.majority([["a"]]), ValueError, "ratings"),
    Bad("with_rates", lambda m: m.with_rates(careless=-0.1), ValueError, "careless"),
    Bad("measure_against", lambda m: m.measure_against(RECS, bool, ["clean"]), ValueError,
        "truth", "one label per record"),
    Bad("measure_against", lambda m: m.measure_against(RECS, 5, ["clean"] * 2), TypeError,
        "decide"),
    Bad("label_sets", lambda m: m.label_sets(RECS, [["clean"]] * 3), ValueError,
        "scale_rows", "one column per record"),
    Bad("rescore_rows", lambda m: m.rescore_rows(RECS, {}, {"h": ["clean"] * 2}), TypeError,
        "decisions"),
    Bad("rescore_rows", lambda m: m.rescore_rows(RECS, {"c": bool}, {"h": ["x"] * 2}),
        ValueError, "labels", "'harmful'"),
    Bad("claim_rows", lambda m: m.claim_rows(RECS, None, {"h": ["clean"] * 2}, bool),
        ValueError, "runs", "ManyRuns"),
    Bad("spread_rows", lambda m: m.spread_rows(RECS, None, {"h": ["clean"] * 2}, bool),
        ValueError, "runs", "ManyRuns"),
    Bad("judge_rows", lambda m: m.judge_rows(RUN, RECS), TypeError, "panel_run", "PanelRun"),
    Bad("pair_rows", lambda m: m.pair_rows({"a": ["x"]}), ValueError, "named", "two"),
    Bad("class_text", lambda m: m.class_text(RECS, [["clean"]] * 3), ValueError, "rows",
        "one column per record"),
    Bad("scale_rows", lambda m: m.scale_rows([]), ValueError, "records"),
    Bad("raters_text", lambda m: m.raters_text(RECS, 5), TypeError, "judge_decide"),
    Bad("raters_text", lambda m: m.raters_text(RECS, bool, miss=2.0), ValueError, "miss"),
    Bad("raters_text", lambda m: m.raters_text(RECS, bool, guideline="x"), ValueError,
        "guideline", "'short'"),
    Bad("raters_explorer", lambda m: m.raters_explorer([]), ValueError, "records"),
    Bad("raters_explorer", lambda m: m.raters_explorer(5), TypeError, "records"),
]
NO_ROWS.update({
    "raters.rescore_text": "formats the rows rescore_rows built (which validates)",
    "raters.claim_text": "formats the rows claim_rows built (which validates)",
    "raters.spread_text": "formats the rows spread_rows built (which validates)",
    "raters.plot_pairs": "draws the rows pair_rows built (which validates)",
    "raters.plot_scales": "draws the rows scale_rows built (which validates)",
})


def _cases():
    for module, rows in ROWS.items():
        for i, row in enumerate(rows):
            label = f"{row.api}-{row.note or row.param}-{i}".replace(" ", "_")
            marks = [pytest.mark.xfail(strict=True, reason=f"gap: {row.gap}")] if row.gap else []
            yield pytest.param(module, row, id=f"{module.split('.')[-1]}:{label}", marks=marks)


def _words(text):
    return re.compile(r"(?<![A-Za-z0-9_])" + re.escape(text) + r"(?![A-Za-z0-9_])")


@pytest.mark.parametrize("module, row", list(_cases()))
def test_bad_argument_meets_a_clear_error(module, row, tmp_path, monkeypatch):
    try:
        mod = importlib.import_module(module)
    except ModuleNotFoundError:
        pytest.skip(f"{module} is not in this checkout yet")
    monkeypatch.chdir(tmp_path)          # a row that would write a file writes it here
    plt = sys.modules.get("matplotlib.pyplot")
    figures = len(plt.get_fignums()) if plt else 0
    with pytest.raises(row.error) as caught:
        row.call(mod)
    plt = sys.modules.get("matplotlib.pyplot")
    if plt:
        opened = len(plt.get_fignums()) - figures
        plt.close("all")
        assert opened <= 0, "a figure was opened before the error"
    message = str(caught.value)
    assert _words(row.param).search(message), f"message does not name {row.param!r}: {message}"
    assert row.allowed in message, f"message does not show {row.allowed!r}: {message}"
    assert not list(tmp_path.iterdir()), "a file was written before the error"


def _modules():
    """Every public lessonlib module, by its short name."""
    return {info.name: importlib.import_module(f"lessonlib.{info.name}")
            for info in pkgutil.iter_modules(lessonlib.__path__)
            if not info.name.startswith("_")}


def _public_callables():
    """"module.name" for every public function and class DEFINED in a lessonlib module."""
    names = set()
    for short, mod in _modules().items():
        for name, obj in vars(mod).items():
            if name.startswith("_") or not callable(obj):
                continue
            if getattr(obj, "__module__", None) == mod.__name__:
                names.add(f"{short}.{name}")
    return names


def _exported():
    """lessonlib's own names (the lazy ones too), as "module.name" of where each is defined."""
    names = set(dir(lessonlib)) | {attr for attr, _ in lessonlib._LAZY}
    out = {}
    for name in names:
        obj = getattr(lessonlib, name)
        if name.startswith("_") or not callable(obj):
            continue
        module = getattr(obj, "__module__", "") or ""
        if module.startswith("lessonlib."):
            out[name] = f"{module.split('.', 1)[1]}.{obj.__name__}"
    return out


def _covered():
    return {f"{module.split('.', 1)[1]}.{row.api.split('.')[0]}"
            for module, rows in ROWS.items() for row in rows}


def test_every_public_name_has_rows():
    missing = sorted(_public_callables() - _covered() - set(NO_ROWS))
    assert not missing, (f"public names without bad-input rows: {missing}; add rows to ROWS "
                         f"or a reason to NO_ROWS in tests/test_bad_input.py")


def test_the_check_sees_every_exported_name():
    exported = _exported()
    for lazy in ("ManyRuns", "run_judge_many", "run_model_many"):
        assert lazy in exported, f"lessonlib.{lazy} is not seen"
    unseen = sorted(n for n, q in exported.items() if q not in _public_callables())
    assert not unseen, f"exported but not found in its module: {unseen}"


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
    stale = sorted(set(NO_ROWS) - _public_callables())
    assert not stale, f"NO_ROWS names something not public: {stale}"
    both = sorted(set(NO_ROWS) & _covered())
    assert not both, f"names with rows AND a NO_ROWS reason: {both}"


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


# ---------------------------------------------------------------- the panel and the engine


class SpyAsk:
    """An ask that logs every call and every reset (answers 'temiz')."""

    def __init__(self):
        self.log = []

    def __call__(self, prompt, seed):
        self.log.append(("call", seed))
        return "temiz"

    def reset(self):
        self.log.append(("reset",))


@pytest.mark.parametrize("bad", [
    dict(records=[]), dict(records=[R, 5]), dict(records=R), dict(seed=-1), dict(seed=1.5),
    dict(guideline=None),
], ids=["no records", "non-record item", "one record", "negative seed", "float seed",
        "None guideline"])
def test_a_panel_run_that_fails_validation_asks_no_judge(bad):
    spies = [SpyAsk(), SpyAsk()]
    panel = lessonlib.Panel(spies, quorum=2)
    args = dict(records=RECS, seed=1, guideline=lessonlib.GUIDELINE)
    args.update(bad)
    with pytest.raises((TypeError, ValueError)):
        panel.run(**args)
    assert [spy.log for spy in spies] == [[], []]      # not even a reset


def test_a_panel_that_fails_to_build_asks_no_judge():
    spy = SpyAsk()
    for bad in (dict(asks=[spy, 5]), dict(asks=[spy], quorum=1.5),
                dict(asks=[spy], aggregate="max"), dict(asks=[spy], on_unreadable="skip"),
                dict(asks=[spy], min_agreement=NAN)):
        with pytest.raises((TypeError, ValueError)):
            lessonlib.Panel(**bad)
    assert spy.log == []


@pytest.mark.parametrize("seeds, method", [
    ([1, 2, -1], "loop"), ([1, 2, 1.5], "loop"), ([1, 2, -1], "auto"), ([1], "fast"),
    ([1], "engine"),
], ids=["bad last seed, loop", "float last seed, loop", "bad last seed, auto",
        "unknown method", "engine with plain asks"])
def test_a_failing_run_many_leaves_nothing(seeds, method):
    spies = [SpyAsk(), SpyAsk()]
    panel = lessonlib.Panel(spies)
    with pytest.raises((TypeError, ValueError)):
        panel.run_many(RECS, seeds, method=method)
    assert [spy.log for spy in spies] == [[], []]


def test_a_failing_engine_run_many_touches_no_model(monkeypatch):
    panel_mod = importlib.import_module("lessonlib.panel")
    models = [lessonlib.SimulatedModel(), lessonlib.SimulatedModel(0.0)]
    for model in models:
        model.call("tek yok", 1)                 # a counter that is not at zero
    started = []
    monkeypatch.setattr(panel_mod, "_many_engine", lambda *a, **k: started.append(a))
    monkeypatch.setattr(panel_mod, "_many_loop", lambda *a, **k: started.append(a))
    panel = lessonlib.Panel(models, quorum=3)
    for bad in ([1, 2, -1], [], np.array([[1, 2]]), {1: 2}):
        with pytest.raises((TypeError, ValueError)):
            panel.run_many(RECS, bad)
    assert started == []
    assert [m.calls for m in models] == [1, 1]


@pytest.mark.parametrize("calls_before", [-1, [0, -1], [0], [0, 1.5], "3", None, True,
                                          {0: 1, 1: 2}, np.array([0.0, 1.0])],
                         ids=["negative", "negative item", "too few", "float item", "str",
                              "None", "bool", "a dict", "float array"])
def test_a_bad_calls_before_is_refused_before_any_work(monkeypatch, calls_before):
    many = importlib.import_module("lessonlib.many")
    work = []
    monkeypatch.setattr(many, "hoist", lambda *a, **k: work.append("hoist"))
    monkeypatch.setattr(many, "_run", lambda *a, **k: work.append("run"))
    model = lessonlib.SimulatedModel()
    model.call("tek yok", 1)
    with pytest.raises((TypeError, ValueError), match="calls_before"):
        many.run_model_many(RECS, [1, 2], model, calls_before=calls_before)
    assert work == [] and model.calls == 1


@pytest.mark.parametrize("bad", [dict(seeds=[1, -1]), dict(chunk=0), dict(max_output=0),
                                 dict(unreadable_as="abstain"), dict(guideline=5)],
                         ids=["bad seed", "chunk 0", "max_output 0", "unknown rule",
                              "int guideline"])
def test_the_engine_checks_everything_before_hoisting(monkeypatch, bad):
    many = importlib.import_module("lessonlib.many")
    work = []
    monkeypatch.setattr(many, "hoist", lambda *a, **k: work.append("hoist"))
    args = dict(records=RECS, seeds=[1, 2], model=lessonlib.SimulatedModel())
    args.update(bad)
    with pytest.raises((TypeError, ValueError)):
        many.run_model_many(**args)
    judge_args = {k: v for k, v in args.items() if k != "model"}
    with pytest.raises((TypeError, ValueError)):
        many.run_judge_many(**judge_args)
    assert work == []


def test_a_failing_study_runs_no_panel(monkeypatch):
    study = importlib.import_module("lessonlib.panel_study")
    runs = []
    monkeypatch.setattr(study.Panel, "run", lambda *a, **k: runs.append("run"))
    monkeypatch.setattr(study.Panel, "run_many", lambda *a, **k: runs.append("run_many"))
    for bad in (dict(seeds=[1, -1]), dict(seeds=[]), dict(setups=(study.SINGLE, 5)),
                dict(seed=-1), dict(records=[])):
        args = dict(records=RECS, setups=(study.SINGLE,), seeds=[1, 2])
        args.update(bad)
        with pytest.raises((TypeError, ValueError)):
            study.study(**args)
    assert runs == []


def test_a_failing_temperature_sweep_runs_no_judge(monkeypatch):
    variance = importlib.import_module("lessonlib.variance")
    runs = []
    monkeypatch.setattr(variance, "run_judge_many", lambda *a, **k: runs.append(a))
    for bad in (dict(temperatures=[0.3, -1]), dict(level=1), dict(bogus=1),
                dict(seeds=[1, -1])):
        args = dict(records=RECS, temperatures=[0.3, 0.5], seeds=[1, 2])
        args.update(bad)
        with pytest.raises((TypeError, ValueError)):
            variance.temperature_sweep(**args)
    assert runs == []
