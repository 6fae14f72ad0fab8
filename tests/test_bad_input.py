"""Bad input meets a clear error at the doors: the names a student calls from a notebook.

Each row calls one door (a function, class or method a notebook calls) with
ONE bad argument and names the error it must raise and the parameter its
message must name (and, where it matters, a word of the allowed values).
Helpers behind the doors trust their callers and have no rows.  Rows are kept
per module in ``ROWS``; the many-seed engine and the panel keep theirs in
tests/test_many.py and tests/test_panel.py.  A row whose door does not check
that argument yet is marked ``gap=...``: it runs as a strict xfail, so the
gap stays visible and the mark must go once it is fixed.  The tests after the
table check that a refused call leaves nothing half-done.
"""

from __future__ import annotations

import importlib
import math
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass

import pytest

import lessonlib
from lesson_defs import record

R = record(no=1)
RECS = [R, record(no=2, cls="indirect_instruction", flags=("instruction_mode",))]
RUN = lessonlib.JudgeRun({1: "temiz", 2: "zararli"}, 2, 0, 0, 82)
NAN, INF = math.nan, math.inf
GUIDELINE_TEXT = lessonlib.GUIDELINE


@dataclass(frozen=True)
class Bad:
    api: str  # the door (or Class.method) under test
    call: Callable  # thunk taking the module
    error: type  # TypeError (wrong kind) or ValueError (value not allowed)
    param: str  # the parameter the message must name
    allowed: str = ""  # a piece of the allowed values the message must show
    note: str = ""  # what is bad, for the test id
    gap: str = ""  # not checked yet (module owned elsewhere): a strict xfail


def model_with(**change):
    return lambda m: m.SimulatedModel(**change)


def judge_with(**change):
    args = dict(records=RECS)
    args.update(change)
    return lambda m: m.run_judge(**args)


class Reply:
    """An ask's reply object with the given input_tokens."""

    def __init__(self, input_tokens, text="temiz"):
        self.input_tokens, self.text = input_tokens, text


def asking(reply):
    return lambda m: m.ask_for_label(lambda prompt, seed: reply, "tek kayit", 1)


OTHER = [record(no=1, text="adres degisikligi nasil yapilir"), record(no=2)]
FOREIGN = "a run on other records, same numbers"
BAD_RECORDS = (
    ([], ValueError, "empty"),
    (None, TypeError, "None"),
    ("abc", TypeError, "str"),
    ([R, 5], TypeError, "non-record item"),
    (R, TypeError, "one record, not a list"),
)

ROWS = {
    "lessonlib.records": [
        Bad("make_records", lambda m: m.make_records(0), ValueError, "n", ">= 1", "n=0"),
        Bad("make_records", lambda m: m.make_records(-3), ValueError, "n", ">= 1", "n<0"),
        Bad("make_records", lambda m: m.make_records(2.5), TypeError, "n", "integer", "float n"),
        Bad(
            "make_records",
            lambda m: m.make_records(240.0),
            TypeError,
            "n",
            "integer",
            "whole float n",
        ),
        Bad("make_records", lambda m: m.make_records("240"), TypeError, "n", note="str n"),
        Bad("make_records", lambda m: m.make_records(True), TypeError, "n", note="bool n"),
        Bad("make_records", lambda m: m.make_records(None), TypeError, "n", note="None n"),
        Bad(
            "make_records",
            lambda m: m.make_records(5, -1),
            ValueError,
            "seed",
            ">= 0",
            "negative seed",
        ),
        Bad(
            "make_records", lambda m: m.make_records(5, 1.5), TypeError, "seed", note="float seed"
        ),
        Bad(
            "make_records", lambda m: m.make_records(5, True), TypeError, "seed", note="bool seed"
        ),
        Bad("make_records", lambda m: m.make_records(5, "7"), TypeError, "seed", note="str seed"),
        *[
            Bad(
                "write_records_csv",
                lambda m, r=r: m.write_records_csv("x.csv", r),
                error,
                "records",
                note=note,
            )
            for r, error, note in BAD_RECORDS
        ],
    ],
    "lessonlib.criteria": [
        Bad(
            "rule_filter",
            lambda m: m.rule_filter(R, "instruction_mode"),
            TypeError,
            "rules",
            "instruction_mode",
            "a single string",
        ),
        Bad(
            "rule_filter",
            lambda m: m.rule_filter(R, ("nope",)),
            ValueError,
            "rules",
            "side_effect_tool_name",
            "unknown name",
        ),
        Bad("rule_filter", lambda m: m.rule_filter(R, 5), TypeError, "rules", note="int"),
        Bad(
            "rule_filter",
            lambda m: m.rule_filter("x"),
            TypeError,
            "record",
            "Record",
            "str record",
        ),
        Bad("rule_filter", lambda m: m.rule_filter(None), TypeError, "record", note="None"),
        Bad(
            "make_rule_filter",
            lambda m: m.make_rule_filter("hidden_field_name"),
            TypeError,
            "rules",
            "hidden_field_name",
            "a single string",
        ),
        Bad(
            "make_rule_filter",
            lambda m: m.make_rule_filter(["instruction_mode", "bogus"]),
            ValueError,
            "rules",
            "bogus",
            "one unknown name",
        ),
        Bad(
            "make_rule_filter", lambda m: m.make_rule_filter(None), TypeError, "rules", note="None"
        ),
    ],
    "lessonlib.metrics": [
        *[
            Bad(fn, lambda m, fn=fn, r=r: getattr(m, fn)(r, bool), error, "records", note=note)
            for fn in ("measure", "agreement", "class_recall")
            for r, error, note in BAD_RECORDS
        ],
        *[
            Bad(fn, lambda m, fn=fn, d=d: getattr(m, fn)(RECS, d), TypeError, "decide", note=note)
            for fn in ("measure", "agreement", "class_recall")
            for d, note in ((5, "int decide"), (None, "None"))
        ],
        *[
            Bad(
                fn,
                lambda m, fn=fn: getattr(m, fn)(RECS, lessonlib.run_judge(RECS[:1]).decide),
                ValueError,
                "record",
                "does not belong",
                note="a run on fewer records",
            )
            for fn in ("measure", "agreement", "class_recall")
        ],
    ],
    "lessonlib.simulator": [
        Bad(
            "SimulatedModel",
            model_with(temperature=-0.1),
            ValueError,
            "temperature",
            ">= 0",
            "negative",
        ),
        Bad(
            "SimulatedModel",
            model_with(temperature=NAN),
            ValueError,
            "temperature",
            "finite",
            "NaN",
        ),
        Bad(
            "SimulatedModel",
            model_with(temperature=INF),
            ValueError,
            "temperature",
            "finite",
            "inf",
        ),
        Bad("SimulatedModel", model_with(temperature="0.3"), TypeError, "temperature", note="str"),
        Bad("SimulatedModel", model_with(temperature=True), TypeError, "temperature", note="bool"),
        Bad("SimulatedModel", model_with(temperature=None), TypeError, "temperature", note="None"),
        Bad("SimulatedModel", model_with(cues=5), TypeError, "cues", note="not a mapping"),
        Bad(
            "SimulatedModel",
            model_with(cues={"yoner": "evil"}),
            ValueError,
            "cues",
            "zararli",
            "unknown label",
        ),
        Bad("SimulatedModel", model_with(cues={3: "temiz"}), TypeError, "cues", note="int token"),
        Bad(
            "SimulatedModel",
            model_with(spurious={"asiri": "harmful"}),
            ValueError,
            "spurious",
            "zararli",
            "unknown label",
        ),
        Bad(
            "SimulatedModel", model_with(spurious=["asiri"]), TypeError, "spurious", note="a list"
        ),
        Bad(
            "SimulatedModel",
            model_with(prior={"temiz": 0.75}),
            ValueError,
            "prior",
            "zararli",
            "missing label",
        ),
        Bad(
            "SimulatedModel",
            model_with(prior={"temiz": 0.7, "zararli": 0.1, "belki": 0.2}),
            ValueError,
            "prior",
            "temiz",
            "unknown label",
        ),
        Bad(
            "SimulatedModel",
            model_with(prior={"temiz": "a", "zararli": 0.1}),
            TypeError,
            "prior",
            note="str weight",
        ),
        Bad(
            "SimulatedModel",
            model_with(prior={"temiz": NAN, "zararli": 0.1}),
            ValueError,
            "prior",
            note="NaN weight",
        ),
        Bad("SimulatedModel", model_with(prior=5), TypeError, "prior", note="not a mapping"),
        Bad("SimulatedModel", model_with(window=0), ValueError, "window", ">= 1", "0"),
        Bad("SimulatedModel", model_with(window=1.5), TypeError, "window", note="float"),
        Bad("SimulatedModel", model_with(max_output=0), ValueError, "max_output", ">= 1", "0"),
        Bad("SimulatedModel", model_with(max_output="24"), TypeError, "max_output", note="str"),
        Bad(
            "SimulatedModel",
            model_with(rate_limit_every=0),
            ValueError,
            "rate_limit_every",
            ">= 1",
            "0",
        ),
        Bad("SimulatedModel", model_with(name=5), TypeError, "name", note="int"),
        Bad(
            "SimulatedModel.call",
            lambda m: m.SimulatedModel().call(5),
            TypeError,
            "prompt",
            note="int prompt",
        ),
        Bad(
            "SimulatedModel.call",
            lambda m: m.SimulatedModel().call(None),
            TypeError,
            "prompt",
            note="None prompt",
        ),
        Bad(
            "SimulatedModel.call",
            lambda m: m.SimulatedModel().call("p", -1),
            ValueError,
            "seed",
            ">= 0",
            "negative seed",
        ),
        Bad(
            "SimulatedModel.call",
            lambda m: m.SimulatedModel().call("p", 1.5),
            TypeError,
            "seed",
            note="float seed",
        ),
        Bad(
            "SimulatedModel.call",
            lambda m: m.SimulatedModel().call("p", True),
            TypeError,
            "seed",
            note="bool seed",
        ),
        Bad(
            "SimulatedModel.call",
            lambda m: m.SimulatedModel().call("p", None),
            TypeError,
            "seed",
            note="None seed",
        ),
        Bad(
            "SimulatedModel.call",
            lambda m: m.SimulatedModel().call("p", 1, 0),
            ValueError,
            "max_output",
            ">= 1",
            "max_output 0",
        ),
        Bad(
            "SimulatedModel.call",
            lambda m: m.SimulatedModel().call("p", 1, 2.0),
            TypeError,
            "max_output",
            note="float max_output",
        ),
        Bad(
            "label_probabilities",
            lambda m: m.label_probabilities("p", -1),
            ValueError,
            "temperature",
            ">= 0",
        ),
    ],
    "lessonlib.judge": [
        Bad("ask_for_label", asking(5), TypeError, "ask", "text", "an int reply"),
        Bad(
            "ask_for_label",
            asking(Reply(10, text=None)),
            TypeError,
            "ask",
            "text",
            "a reply without text",
        ),
        *[
            Bad("ask_for_label", asking(Reply(tokens)), error, "input_tokens", note=note)
            for tokens, error, note in (
                ("abc", TypeError, "str"),
                (NAN, TypeError, "NaN"),
                (-1, ValueError, "negative"),
                (True, TypeError, "bool"),
                (2.5, TypeError, "float"),
            )
        ],
        *[
            Bad("run_judge", judge_with(records=r), error, "records", note=note)
            for r, error, note in BAD_RECORDS
        ],
        Bad("run_judge", judge_with(seed=-1), ValueError, "seed", ">= 0", "negative seed"),
        Bad("run_judge", judge_with(seed=2.5), TypeError, "seed", note="float seed"),
        Bad("run_judge", judge_with(seed=True), TypeError, "seed", note="bool seed"),
        Bad(
            "run_judge", judge_with(temperature=-1), ValueError, "temperature", ">= 0", "negative"
        ),
        Bad("run_judge", judge_with(temperature=NAN), ValueError, "temperature", note="NaN"),
        Bad("run_judge", judge_with(temperature="0.3"), TypeError, "temperature", note="str"),
        Bad("run_judge", judge_with(guideline=None), TypeError, "guideline", note="None"),
        Bad("run_judge", judge_with(guideline=5), TypeError, "guideline", note="int"),
        Bad(
            "run_judge",
            judge_with(cues={"yoner": "harmful"}),
            ValueError,
            "cues",
            "temiz",
            "unknown label",
        ),
        Bad("run_judge", judge_with(cues=["yoner"]), TypeError, "cues", note="a list"),
        Bad(
            "run_judge",
            judge_with(spurious={"asiri": "x"}),
            ValueError,
            "spurious",
            "zararli",
            "unknown label",
        ),
        Bad("run_judge", judge_with(max_output=0), ValueError, "max_output", ">= 1", "0"),
        Bad("run_judge", judge_with(max_output=1.5), TypeError, "max_output", note="float"),
        Bad("run_judge", judge_with(max_output=True), TypeError, "max_output", note="bool"),
        Bad(
            "run_judge",
            judge_with(unreadable_as="maybe"),
            ValueError,
            "unreadable_as",
            "clean",
            "unknown rule",
        ),
        Bad(
            "run_judge",
            judge_with(unreadable_as=None),
            ValueError,
            "unreadable_as",
            "harmful",
            "None",
        ),
        Bad(
            "JudgeRun.decide",
            lambda m: RUN.decide("kayit 1"),
            TypeError,
            "record",
            "Record",
            "str record",
        ),
        Bad(
            "JudgeRun.decide",
            lambda m: RUN.decide(record(no=3)),
            ValueError,
            "record",
            "does not belong",
            "a record it did not judge",
        ),
        Bad(
            "JudgeRun.decide",
            lambda m: m.run_judge(RECS).decide(record(no=2)),
            ValueError,
            "record",
            "does not belong",
            "same number, other record",
        ),
    ],
    "lessonlib.report": [
        Bad(
            "sample_call_block",
            lambda m: m.sample_call_block(R, -1),
            ValueError,
            "seed",
            note="negative seed",
        ),
        *[
            Bad(
                "comparison_rows",
                lambda m, r=r: m.comparison_rows(r, [RUN]),
                error,
                "records",
                note=note,
            )
            for r, error, note in BAD_RECORDS
        ],
        *[
            Bad(
                "comparison_block",
                lambda m, r=r: m.comparison_block(r, RUN, RUN),
                error,
                "records",
                note=note,
            )
            for r, error, note in BAD_RECORDS
        ],
        Bad(
            "comparison_block",
            lambda m: m.comparison_block(RECS, RUN, lessonlib.run_judge(OTHER)),
            ValueError,
            "record",
            "does not belong",
            FOREIGN,
        ),
        *[
            Bad("class_block", lambda m, r=r: m.class_block(r, RUN), error, "records", note=note)
            for r, error, note in BAD_RECORDS
        ],
        Bad(
            "class_block",
            lambda m: m.class_block(RECS, lessonlib.run_judge(OTHER)),
            ValueError,
            "record",
            "does not belong",
            FOREIGN,
        ),
        Bad("lesson", lambda m: m.lesson(1), ValueError, "n", ">= 2", "no sample record"),
        Bad("lesson", lambda m: m.lesson(1.5), TypeError, "n", note="float n"),
        Bad("lesson", lambda m: m.lesson(True), TypeError, "n", note="bool n"),
        Bad("lesson", lambda m: m.lesson(5, -1), ValueError, "seed", note="negative seed"),
        Bad("lesson", lambda m: m.lesson(5, 2.5), TypeError, "seed", note="float seed"),
    ],
}

# ---------------------------------------------------------------- the notebooks' other doors

BAD_SEEDS = (
    ([], ValueError, "empty"),
    (5, TypeError, "one int"),
    ([-1], ValueError, "negative"),
    ([1.5], TypeError, "float seed"),
    ([True], TypeError, "bool seed"),
    ("12", TypeError, "a string"),
    ({1: 2}, TypeError, "a dict"),
)

ROWS.update(
    {
        "lessonlib.widgets": [
            Bad("criteria_tables", lambda m: m.criteria_tables([]), ValueError, "records"),
            Bad(
                "criteria_tables",
                lambda m: m.criteria_tables(RECS, "instruction_mode"),
                TypeError,
                "rules",
                "instruction_mode",
                "a string",
            ),
            Bad(
                "criteria_tables",
                lambda m: m.criteria_tables(RECS, ("bogus",)),
                ValueError,
                "rules",
                "hidden_field_name",
                "unknown flag",
            ),
            Bad("judge_tables", lambda m: m.judge_tables(RECS, -1), ValueError, "temperature"),
            Bad("judge_tables", lambda m: m.judge_tables(RECS, seed=-1), ValueError, "seed"),
            Bad(
                "judge_tables",
                lambda m: m.judge_tables(RECS, guideline="x"),
                ValueError,
                "guideline",
                "single label (lesson)",
            ),
            Bad("judge_tables", lambda m: m.judge_tables(RECS, spurious=1), TypeError, "spurious"),
            Bad(
                "judge_tables",
                lambda m: m.judge_tables(RECS, unreadable_as="x"),
                ValueError,
                "unreadable_as",
                "'harmful'",
            ),
            Bad("judge_tables", lambda m: m.judge_tables([]), ValueError, "records"),
            Bad("judge_tables", lambda m: m.judge_tables(RECS, "a"), TypeError, "temperature"),
            Bad("judge_tables", lambda m: m.judge_tables(RECS, NAN), ValueError, "temperature"),
            Bad("judge_tables", lambda m: m.judge_tables(RECS, seed=1.5), TypeError, "seed"),
            Bad(
                "judge_tables",
                lambda m: m.judge_tables(RECS, guideline=GUIDELINE_TEXT),
                ValueError,
                "guideline",
                "free-form",
                "guideline text, not its name",
            ),
            Bad("Explorer", lambda m: m.Explorer("x", {}, 5), TypeError, "render"),
            Bad(
                "Explorer",
                lambda m: m.Explorer("x", {"a": 5}, lambda **s: {}),
                TypeError,
                "controls",
                note="control without value",
            ),
            Bad(
                "Explorer",
                lambda m: m.Explorer("x", 5, lambda **s: {}),
                TypeError,
                "controls",
                note="int",
            ),
            Bad(
                "Explorer",
                lambda m: m.Explorer(5, {}, lambda **s: {}),
                TypeError,
                "name",
                note="int",
            ),
            Bad(
                "Explorer",
                lambda m: m.Explorer("x", {}, lambda **s: 5),
                TypeError,
                "render",
                note="render returns an int",
            ),
            Bad(
                "Explorer",
                lambda m: m.Explorer("x", {}, lambda **s: "text"),
                TypeError,
                "render",
                "DataFrame",
                note="render returns a text table",
            ),
            *[
                Bad(
                    "panel_tables",
                    lambda m, b=b: m.panel_tables(RECS, **b),
                    error,
                    param,
                    allowed,
                    note=note,
                )
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
                    (
                        dict(on_unreadable="skip"),
                        ValueError,
                        "on_unreadable",
                        "'abstain'",
                        "unknown",
                    ),
                    (
                        dict(guideline=GUIDELINE_TEXT),
                        ValueError,
                        "guideline",
                        "free-form",
                        "text, not name",
                    ),
                    (dict(band_seeds=1), ValueError, "band_seeds", ">= 2", "one seed"),
                )
            ],
            Bad("panel_tables", lambda m: m.panel_tables([]), ValueError, "records"),
            Bad("panel_tables", lambda m: m.panel_tables(RECS, quorum=0), ValueError, "quorum"),
            Bad(
                "panel_tables",
                lambda m: m.panel_tables(RECS, judges=("gpt",)),
                ValueError,
                "judges",
            ),
            Bad("raters_tables", lambda m: m.raters_tables([], bool), ValueError, "records"),
            Bad(
                "raters_tables",
                lambda m: m.raters_tables(RECS, bool, miss=1.5),
                ValueError,
                "miss",
                "[0, 1]",
            ),
            Bad(
                "raters_tables",
                lambda m: m.raters_tables(RECS, bool, guideline="long"),
                ValueError,
                "guideline",
                "'detailed'",
            ),
            *[
                Bad(fn, lambda m, fn=fn, r=r: getattr(m, fn)(r), error, "records", note=note)
                for fn in (
                    "criteria_explorer",
                    "judge_explorer",
                    "panel_explorer",
                    "raters_explorer",
                )
                for r, error, note in (([], ValueError, "empty"), (5, TypeError, "int"))
            ],
        ],
        "lessonlib.exercises.step02": [
            Bad(
                "check_corrupted_rule",
                lambda m: m.check_corrupted_rule(m.DEFAULT_RULES + ("excessive_length",), NAN),
                ValueError,
                "max_fbr",
                note="NaN",
            ),
            Bad(
                "check_corrupted_rule",
                lambda m: m.check_corrupted_rule(m.DEFAULT_RULES + ("excessive_length",), "a"),
                TypeError,
                "max_fbr",
                note="str",
            ),
        ],
        "lessonlib.exercises.step03": [
            Bad(
                "check_output_cap_unreadable",
                lambda m: m.check_output_cap_unreadable(3, 0),
                ValueError,
                "max_output",
                ">= 1",
                "max_output 0",
            ),
            Bad(
                "check_output_cap_unreadable",
                lambda m: m.check_output_cap_unreadable(3, "a"),
                TypeError,
                "max_output",
                note="str",
            ),
        ],
        "lessonlib.sample": [
            *[
                Bad("paired_difference", call, error, param, allowed, note)
                for call, error, param, allowed, note in (
                    (
                        lambda m: m.paired_difference([True, False], [0.1], [0.2, 0.3]),
                        ValueError,
                        "a",
                        "same records",
                        "a too short",
                    ),
                    (
                        lambda m: m.paired_difference([True, False], [0.1, 1.5], [0.2, 0.3]),
                        ValueError,
                        "a",
                        "[0, 1]",
                        "a share above 1",
                    ),
                    (
                        lambda m: m.paired_difference([True, False], [0.1, 0.2], ["x", 0.3]),
                        TypeError,
                        "b",
                        "shares",
                        "str in b",
                    ),
                    (
                        lambda m: m.paired_difference([True, False], [0.1, 0.2], [0.2, 0.3], "f1"),
                        ValueError,
                        "figure",
                        "agreement",
                        "unknown figure",
                    ),
                    (
                        lambda m: m.paired_difference(
                            [True, False], [0.1, 0.2], [0.2, 0.3], n_resamples=0
                        ),
                        ValueError,
                        "n_resamples",
                        ">= 1",
                        "no resamples",
                    ),
                    (
                        lambda m: m.paired_difference(
                            [True, False], [0.1, 0.2], [0.2, 0.3], level=0
                        ),
                        ValueError,
                        "level",
                        "between 0 and 1",
                        "level 0",
                    ),
                    (
                        lambda m: m.paired_difference([1, 0], [0.1, 0.2], [0.2, 0.3]),
                        TypeError,
                        "truth",
                        "bools",
                        "ints for truth",
                    ),
                )
            ],
            *[
                Bad(
                    "paired_table",
                    lambda m, args=args: m.paired_table(*args),
                    error,
                    param,
                    allowed,
                    note=note,
                )
                for args, error, param, allowed, note in (
                    (
                        ([True, False], [True], [True, False]),
                        ValueError,
                        "a",
                        "same records",
                        "a shorter",
                    ),
                    (
                        ([True, False], [True, False], [True]),
                        ValueError,
                        "b",
                        "same records",
                        "b shorter",
                    ),
                    (([], [], []), ValueError, "truth", "at least one", "no records"),
                    (([1, 0], [True, False], [True, False]), TypeError, "truth", "bools", "ints"),
                    (("TF", [True, False], [True, False]), TypeError, "truth", "bools", "a str"),
                    (([True], None, [True]), TypeError, "a", "bools", "None"),
                    (([True], [[True]], [True]), TypeError, "a", "bools", "rows"),
                )
            ],
            *[
                Bad("mcnemar_p", lambda m, t=t: m.mcnemar_p(t), error, param, allowed, note=note)
                for t, error, param, allowed, note in (
                    ([[1, 2], [3]], ValueError, "table", "2 rows of 2", "ragged"),
                    ([[1, 2, 3], [3, 4, 5]], ValueError, "table", "2 rows of 2", "2 x 3"),
                    ([1, 2, 3, 4], ValueError, "table", "2 rows of 2", "flat"),
                    (None, ValueError, "table", "2 rows of 2", "None"),
                    ([[1, -2], [3, 4]], ValueError, "table", ">= 0", "negative"),
                    ([[1, 2.5], [3, 4]], TypeError, "table", "integer", "float count"),
                    ([[1, True], [3, 4]], TypeError, "table", "integer", "bool count"),
                )
            ],
            *[
                Bad(
                    "paired_bootstrap",
                    lambda m, k=k: m.paired_bootstrap(
                        [True, False], [True, True], [False, False], **k
                    ),
                    error,
                    param,
                    allowed,
                    note=note,
                )
                for k, error, param, allowed, note in (
                    (dict(figure="f1"), ValueError, "figure", "'false_block_rate'", "unknown"),
                    (dict(figure=None), ValueError, "figure", "'recall'", "None"),
                    (dict(n_resamples=0), ValueError, "n_resamples", ">= 1", "zero"),
                    (dict(n_resamples=10.0), TypeError, "n_resamples", "integer", "float"),
                    (dict(level=1.0), ValueError, "level", "between 0 and 1", "level 1"),
                    (dict(level=95), ValueError, "level", "between 0 and 1", "a percentage"),
                    (dict(level=NAN), ValueError, "level", "finite", "NaN"),
                    (dict(level="95%"), TypeError, "level", "real number", "str"),
                    (dict(seed=-1), ValueError, "seed", ">= 0", "negative"),
                    (dict(seed=1.5), TypeError, "seed", "integer", "float"),
                )
            ],
            Bad(
                "paired_bootstrap",
                lambda m: m.paired_bootstrap([True, False], [[True]], [True, False]),
                ValueError,
                "a",
                "same records",
                "rows of another length",
            ),
            Bad(
                "paired_bootstrap",
                lambda m: m.paired_bootstrap([True, False], [True, False], [[[True, False]]]),
                TypeError,
                "b",
                "one such row of bools per judge run",
                "3-D",
            ),
            Bad(
                "paired_bootstrap",
                lambda m: m.paired_bootstrap([True, False], [0.5, 1.5], [True, False]),
                ValueError,
                "a",
                "shares in [0, 1]",
                "a share above 1",
            ),
            *[
                Bad(
                    "records_needed",
                    lambda m, args=args: m.records_needed(*args),
                    error,
                    param,
                    allowed,
                    note=note,
                )
                for args, error, param, allowed, note in (
                    ((0.0, 0.05), ValueError, "p", "between 0 and 1", "p 0"),
                    ((1.0, 0.05), ValueError, "p", "between 0 and 1", "p 1"),
                    ((1.5, 0.05), ValueError, "p", "between 0 and 1", "p above 1"),
                    ((NAN, 0.05), ValueError, "p", "finite", "p NaN"),
                    (("0.5", 0.05), TypeError, "p", "real number", "p str"),
                    ((0.5, 0.0), ValueError, "half_width", "> 0", "zero"),
                    ((0.5, -0.1), ValueError, "half_width", "> 0", "negative"),
                    ((0.5, INF), ValueError, "half_width", "finite", "inf"),
                    ((0.5, 0.05, 0.0), ValueError, "level", "between 0 and 1", "level 0"),
                    ((0.5, 0.05, 1.2), ValueError, "level", "between 0 and 1", "level above 1"),
                )
            ],
            *[
                Bad(
                    "bootstrap_p",
                    lambda m, k=k: m.bootstrap_p([True, False], [True, True], [False, False], **k),
                    error,
                    param,
                    allowed,
                    note=note,
                )
                for k, error, param, allowed, note in (
                    (dict(figure="f1"), ValueError, "figure", "'recall'", "unknown"),
                    (dict(n_resamples=0), ValueError, "n_resamples", ">= 1", "zero"),
                    (dict(seed=-1), ValueError, "seed", ">= 0", "negative"),
                )
            ],
            Bad(
                "bootstrap_p",
                lambda m: m.bootstrap_p([True, False], [0.5, 2.0], [False, False]),
                ValueError,
                "a",
                "shares in [0, 1]",
                "a share above 1",
            ),
            Bad(
                "bootstrap_p",
                lambda m: m.bootstrap_p([True, False], [True], [False, False]),
                ValueError,
                "a",
                "same records",
                "a shorter",
            ),
        ],
        "lessonlib.truth": [
            *[
                Bad(
                    "band_coverage",
                    lambda m, k=k: m.band_coverage(**{"kind": "run", "n_sets": 1, **k}),
                    error,
                    param,
                    allowed,
                    note=note,
                )
                for k, error, param, allowed, note in (
                    (dict(kind="both"), ValueError, "kind", "'averaged'", "unknown kind"),
                    (dict(kind=None), ValueError, "kind", "'run'", "None kind"),
                    (dict(figure="f1"), ValueError, "figure", "'false_block_rate'", "unknown"),
                    (dict(n_sets=0), ValueError, "n_sets", ">= 1", "no sets"),
                    (dict(n_sets=2.0), TypeError, "n_sets", "integer", "float sets"),
                    (dict(n_records=0), ValueError, "n_records", ">= 1", "no records"),
                    (dict(n_resamples=0), ValueError, "n_resamples", ">= 1", "zero"),
                    (dict(n_resamples="2000"), TypeError, "n_resamples", "integer", "str"),
                    (dict(level=1.0), ValueError, "level", "between 0 and 1", "level 1"),
                    (dict(level=95), ValueError, "level", "between 0 and 1", "a percentage"),
                    (dict(level=NAN), ValueError, "level", "finite", "NaN"),
                    (dict(seed=-1), ValueError, "seed", ">= 0", "negative"),
                    (dict(seed=1.5), TypeError, "seed", "integer", "float"),
                )
            ],
        ],
        "lessonlib.score": [
            *[
                Bad(
                    "judge_probabilities",
                    lambda m, r=r: m.judge_probabilities(r),
                    error,
                    "records",
                    note=note,
                )
                for r, error, note in BAD_RECORDS
            ],
            Bad(
                "judge_probabilities",
                lambda m: m.judge_probabilities(RECS, temperature=-1),
                ValueError,
                "temperature",
                ">= 0",
                "negative temperature",
            ),
            Bad(
                "judge_probabilities",
                lambda m: m.judge_probabilities(RECS, guideline=3),
                TypeError,
                "guideline",
                note="int guideline",
            ),
            Bad(
                "judge_probabilities",
                lambda m: m.judge_probabilities(RECS, prior={"temiz": 1}),
                ValueError,
                "prior",
                "zararli",
                "missing label",
            ),
            Bad(
                "judge_probabilities",
                lambda m: m.judge_probabilities(RECS, cues={"x": "kotu"}),
                ValueError,
                "cues",
                "unknown label",
            ),
            Bad(
                "judge_probabilities",
                lambda m: m.judge_probabilities(RECS, cues=5),
                TypeError,
                "cues",
                "mapping",
                "int cues",
            ),
            Bad(
                "judge_probabilities",
                lambda m: m.judge_probabilities(RECS, spurious=["asiri"]),
                TypeError,
                "spurious",
                "mapping",
                "a list",
            ),
            Bad(
                "judge_probabilities",
                lambda m: m.judge_probabilities(RECS, prior=None),
                TypeError,
                "prior",
                "mapping",
                "None prior",
            ),
            *[
                Bad(fn, lambda m, fn=fn, a=a: getattr(m, fn)(*a), error, param, allowed, note)
                for fn in ("roc_auc", "brier", "calibration_table", "calibration_levels")
                for a, error, param, allowed, note in (
                    (
                        ([True, False], [0.5]),
                        ValueError,
                        "scores" if fn == "roc_auc" else "probs",
                        "unequal lengths",
                        "unequal lengths",
                    ),
                    (([], []), ValueError, "truth", "at least one", "empty"),
                    (("TF", [0.1, 0.2]), TypeError, "truth", "bools", "a string"),
                    (([1, 0], [0.1, 0.2]), TypeError, "truth", "bools", "ints for bools"),
                    (([True, None], [0.1, 0.2]), TypeError, "truth", "bools", "None in truth"),
                    (
                        ([[True, False], [False, True]], [0.1, 0.2]),
                        TypeError,
                        "truth",
                        "bools",
                        "rows for bools",
                    ),
                    (
                        ([True, False], [0.1, NAN]),
                        ValueError,
                        "scores" if fn == "roc_auc" else "probs",
                        "",
                        "NaN score",
                    ),
                    (
                        ([True, False], [0.1, "a"]),
                        TypeError,
                        "scores" if fn == "roc_auc" else "probs",
                        "",
                        "str score",
                    ),
                    (
                        ([True, False], {0: 0.1, 1: 0.2}),
                        TypeError,
                        "scores" if fn == "roc_auc" else "probs",
                        "collection",
                        "a dict",
                    ),
                )
            ],
            Bad(
                "roc_auc",
                lambda m: m.roc_auc([True, True], [0.1, 0.2]),
                ValueError,
                "truth",
                "both classes",
                "one class only",
            ),
            Bad(
                "roc_auc",
                lambda m: m.roc_auc([False], [0.1]),
                ValueError,
                "truth",
                "both classes",
                "one clean record",
            ),
            *[
                Bad(
                    fn,
                    lambda m, fn=fn, p=p: getattr(m, fn)([True, False], [0.5, p]),
                    ValueError,
                    "probs",
                    "[0, 1]",
                    note,
                )
                for fn in ("brier", "calibration_table")
                for p, note in ((1.5, "probability above 1"), (-0.1, "negative probability"))
            ],
            Bad(
                "calibration_table",
                lambda m: m.calibration_table([True], [0.5], 0),
                ValueError,
                "n_bins",
                ">= 1",
                "n_bins 0",
            ),
            Bad(
                "calibration_table",
                lambda m: m.calibration_table([True], [0.5], -2),
                ValueError,
                "n_bins",
                ">= 1",
                "negative n_bins",
            ),
            Bad(
                "calibration_table",
                lambda m: m.calibration_table([True], [0.5], 2.5),
                TypeError,
                "n_bins",
                "integer",
                "float n_bins",
            ),
            Bad(
                "calibration_levels",
                lambda m: m.calibration_levels([True, False], [0.1, 0.2], level=1.0),
                ValueError,
                "level",
                "between 0 and 1",
                "level 1",
            ),
        ],
        "lessonlib.population": [
            Bad("population_levels", lambda m: m.population_levels([]), ValueError, "table"),
            Bad(
                "population_levels",
                lambda m: m.population_levels([5]),
                TypeError,
                "table",
                "profile_table",
            ),
            Bad(
                "population_levels",
                lambda m: m.population_levels([("clean", 1.0, 0.2, False)], class_shares=[1.0]),
                ValueError,
                "class_shares",
            ),
            Bad("population_score", lambda m: m.population_score(5), TypeError, "table"),
            Bad(
                "population_score",
                lambda m: m.population_score([("clean", 1.0, 0.2)]),
                TypeError,
                "table",
                "profile_table",
            ),
        ],
        "lessonlib.designs": [
            *[
                Bad("cascade", lambda m, r=r: m.cascade(r), error, "records", note=note)
                for r, error, note in BAD_RECORDS
            ],
            Bad(
                "cascade",
                lambda m: m.cascade(RECS, -1),
                ValueError,
                "seed",
                ">= 0",
                "negative seed",
            ),
            Bad("cascade", lambda m: m.cascade(RECS, 1.5), TypeError, "seed", note="float seed"),
            Bad(
                "cascade",
                lambda m: m.cascade(RECS, rules=("bogus",)),
                ValueError,
                "rules",
                "instruction_mode",
                "unknown rule",
            ),
            Bad(
                "cascade",
                lambda m: m.cascade(RECS, rules="instruction_mode"),
                TypeError,
                "rules",
                note="a single string",
            ),
            Bad(
                "cascade",
                lambda m: m.cascade(RECS, temperature=-1),
                ValueError,
                "temperature",
                ">= 0",
                "negative temperature",
            ),
            Bad(
                "cascade",
                lambda m: m.cascade(RECS, unreadable_as="skip"),
                ValueError,
                "unreadable_as",
                "'clean'",
                "unknown rule",
            ),
            *[
                Bad(
                    "cascade",
                    lambda m, b=b: m.cascade(RECS[1:], **b),
                    error,
                    param,
                    allowed,
                    "nothing passes the filter: " + note,
                )
                for b, error, param, allowed, note in (
                    (
                        dict(temperature=-1),
                        ValueError,
                        "temperature",
                        ">= 0",
                        "negative temperature",
                    ),
                    (
                        dict(unreadable_as="skip"),
                        ValueError,
                        "unreadable_as",
                        "'clean'",
                        "bad rule",
                    ),
                    (dict(guideline=3), TypeError, "guideline", "", "int guideline"),
                    (dict(max_output=0), ValueError, "max_output", ">= 1", "max_output 0"),
                )
            ],
            Bad(
                "cascade",
                lambda m: m.cascade(RECS, low=0.9, high=0.1),
                ValueError,
                "low",
                "out of order",
                "thresholds out of order",
            ),
            Bad(
                "cascade",
                lambda m: m.cascade(RECS, low=0.1),
                ValueError,
                "high",
                "both",
                "low without high",
            ),
            Bad(
                "cascade",
                lambda m: m.cascade(RECS, high=0.9),
                ValueError,
                "low",
                "both",
                "high without low",
            ),
            Bad(
                "cascade",
                lambda m: m.cascade(RECS, low=-0.1, high=0.9),
                ValueError,
                "low",
                "[0, 1]",
                "negative low",
            ),
            Bad(
                "cascade",
                lambda m: m.cascade(RECS, low=0.1, high=1.5),
                ValueError,
                "high",
                "[0, 1]",
                "high above 1",
            ),
            Bad(
                "cascade",
                lambda m: m.cascade(RECS, low="a", high=0.9),
                TypeError,
                "low",
                note="str low",
            ),
            Bad(
                "cascade",
                lambda m: m.cascade(RECS, low=0.1, high=NAN),
                ValueError,
                "high",
                note="NaN high",
            ),
            Bad(
                "CascadeRun.decide",
                lambda m: m.cascade(RECS).decide(5),
                TypeError,
                "record",
                note="int record",
            ),
            Bad(
                "CascadeRun.decide",
                lambda m: m.cascade(RECS[:1]).decide(RECS[1]),
                ValueError,
                "record",
                "does not belong",
                "a record it did not see",
            ),
        ],
        "lessonlib.planted": [
            Bad("planted_twins", lambda m: m.planted_twins([]), ValueError, "records"),
            Bad("planted_twins", lambda m: m.planted_twins(RECS, 5), TypeError, "line", "str"),
            Bad("planted_reading", lambda m: m.planted_reading(RECS, -1), ValueError, "seed"),
            Bad(
                "quoting_reply",
                lambda m: m.quoting_reply(R, "clean"),
                ValueError,
                "label",
                "temiz",
                "English label",
            ),
            Bad("quoting_reply", lambda m: m.quoting_reply(R, "temiz", 1), TypeError, "as_json"),
        ],
        "lessonlib.client": [
            Bad(
                "SimulatorServer",
                lambda m: m.SimulatorServer(host="0.0.0.0"),
                ValueError,
                "host",
                "127.0.0.1",
                "not loopback",
            ),
            Bad(
                "SimulatorServer",
                lambda m: m.SimulatorServer(latency=-0.5),
                ValueError,
                "latency",
                ">= 0",
                "negative",
            ),
            Bad(
                "SimulatorServer",
                lambda m: m.SimulatorServer(rate_limit="yes"),
                TypeError,
                "rate_limit",
                "True or False",
                "str",
            ),
            Bad(
                "OpenAIAsk",
                lambda m: m.OpenAIAsk("http://127.0.0.1:9/v1", "k", "lesson", timeout=0),
                ValueError,
                "timeout",
                "> 0",
                "zero",
            ),
            Bad(
                "judge_records",
                lambda m: m.judge_records(lambda p, s: "temiz", RECS, max_connections=0),
                ValueError,
                "max_connections",
                ">= 1",
                "zero",
            ),
            Bad(
                "judge_records",
                lambda m: m.judge_records(lambda p, s: "temiz", RECS, max_connections=2.5),
                TypeError,
                "max_connections",
                "integer",
                "float",
            ),
            Bad(
                "judge_records",
                lambda m: m.judge_records(lambda p, s: "temiz", RECS, unreadable_as="maybe"),
                ValueError,
                "unreadable_as",
                "clean",
                "unknown",
            ),
            Bad("read_reply", lambda m: m.read_reply(3), TypeError, "text", "str", "int"),
            Bad("first_verdict", lambda m: m.first_verdict(b"x"), TypeError, "text", "str"),
            Bad("fold", lambda m: m.fold(None), TypeError, "text", "str", "None"),
            Bad(
                "label_response_format",
                lambda m: m.label_response_format("a name"),
                ValueError,
                "name",
                "letters",
                "space",
            ),
            Bad(
                "OpenAIAsk",
                lambda m: m.OpenAIAsk("http://127.0.0.1:9/v1", "k", "l", response_format="json"),
                TypeError,
                "response_format",
                "type",
                "str",
            ),
            Bad("Backoff", lambda m: m.Backoff(cap=-1), ValueError, "cap", ">= 0", "negative"),
            Bad(
                "judge_records",
                lambda m: m.judge_records(lambda p, s: "temiz", RECS, backoff=3),
                TypeError,
                "backoff",
                "Backoff",
                "int",
            ),
            Bad(
                "Backoff",
                lambda m: m.Backoff(max_waits=-1),
                ValueError,
                "max_waits",
                ">= 0",
                "negative",
            ),
        ],
    }
)


# notebook 15: the five estimates of a rate (lessonlib.production) and the simulated weeks
# (lessonlib.weeks)
ROWS.update(
    {
        "lessonlib.production": [
            Bad(
                "estimate_rate",
                lambda m: m.estimate_rate([1, 0, 1], [1, 0], [1]),
                ValueError,
                "judge_labelled",
                "same records",
                "unequal lengths",
            ),
            Bad(
                "estimate_rate",
                lambda m: m.estimate_rate([1, 1], [1, 0], [1], method="rogan_gladen"),
                ValueError,
                "person",
                "both classes",
                "one class only",
            ),
            Bad(
                "estimate_rate",
                lambda m: m.estimate_rate([1, 0], [0, 1], [1], method="rogan_gladen"),
                ValueError,
                "judge_labelled",
                "TPR + TNR",
                "no better than chance",
            ),
            Bad(
                "estimate_rate",
                lambda m: m.estimate_rate([1, 0], [1.5, 0], [1]),
                ValueError,
                "judge_labelled",
                "[0, 1]",
                "score above 1",
            ),
            Bad(
                "estimate_rate",
                lambda m: m.estimate_rate([1, 0], [0.4, 0], [1], method="rogan_gladen"),
                ValueError,
                "judge_labelled",
                "not scores",
                "scores to Rogan-Gladen",
            ),
            Bad(
                "estimate_rate",
                lambda m: m.estimate_rate([1, 0.5], [1, 0], [1]),
                ValueError,
                "person",
                "0/1",
                "person score",
            ),
            Bad(
                "estimate_rate",
                lambda m: m.estimate_rate([1, 0], [1, 0], [1], method="mean"),
                ValueError,
                "method",
                "ppi++",
                "unknown method",
            ),
            Bad(
                "estimate_rate",
                lambda m: m.estimate_rate([1, 0], [1, 0], [1], level=1.5),
                ValueError,
                "level",
                "between 0 and 1",
            ),
            Bad(
                "estimate_rate",
                lambda m: m.estimate_rate("10", [1, 0], [1]),
                TypeError,
                "person",
                note="a string",
            ),
            Bad(
                "estimate_rate",
                lambda m: m.estimate_rate([1, 0], [1, 0], []),
                ValueError,
                "judge_rest",
                "at least one",
                "empty rest",
            ),
            Bad(
                "estimate_false_block_rate",
                lambda m: m.estimate_false_block_rate([1, 1], [1, 0], [1, 0], [1], [0]),
                ValueError,
                "person",
                "no clean record",
            ),
            Bad(
                "estimate_false_block_rate",
                lambda m: m.estimate_false_block_rate([1, 0], [1, 0], [1, 0], [1, 0], [1]),
                ValueError,
                "judge_rest",
                "filter_rest",
                "unequal lengths",
            ),
            Bad(
                "estimate_false_block_rate",
                lambda m: m.estimate_false_block_rate([1, 0], [0.5, 0], [1, 0], [1], [0]),
                ValueError,
                "filter_labelled",
                "0/1",
                "a score for the filter",
            ),
            Bad(
                "estimate_false_block_rate",
                lambda m: m.estimate_false_block_rate(
                    [1, 0], [1, 0], [1, 0], [1], [0], method="rogan_gladen"
                ),
                ValueError,
                "method",
                "ppi++",
                "Rogan-Gladen for a ratio",
            ),
        ],
        "lessonlib.weeks": [
            Bad("true_rates", lambda m: m.true_rates((0.5, 0.5)), ValueError, "class_shares"),
            Bad(
                "labels_needed",
                lambda m: m.labels_needed(0.7),
                ValueError,
                "half_width",
                "between 0 and 0.5",
            ),
            Bad(
                "labels_needed",
                lambda m: m.labels_needed(0.03, quantity="fbr"),
                ValueError,
                "quantity",
                "filter_right",
            ),
            Bad(
                "labels_needed",
                lambda m: m.labels_needed(0.03, stand_in="vote"),
                ValueError,
                "stand_in",
                "score",
            ),
            Bad(
                "simulate_estimates",
                lambda m: m.simulate_estimates(weeks=0),
                ValueError,
                "weeks",
                ">= 1",
            ),
            Bad(
                "simulate_estimates",
                lambda m: m.simulate_estimates(size=100, labelled=100),
                ValueError,
                "labelled",
                "fewer than size",
            ),
            Bad(
                "simulate_estimates",
                lambda m: m.simulate_estimates(stand_in="score"),
                ValueError,
                "rogan_gladen",
                "stand_in='label'",
                "scores to Rogan-Gladen",
            ),
            Bad(
                "week_of_traffic",
                lambda m: m.week_of_traffic(size=10, labelled=10),
                ValueError,
                "labelled",
                "fewer than size",
            ),
            Bad("week_of_traffic", lambda m: m.week_of_traffic(seed=-1), ValueError, "seed"),
        ],
    }
)
# ---------------------------------------------------------------- the doors the notebooks call
# (issue 28: tests/test_contracts.py requires a row for every library name a notebook calls
# that takes input).  Added to the modules' rows, never replacing them.


def _many_runs():
    return lessonlib.run_judge_many(RECS, [1, 2])


NOTEBOOK_DOORS = {
    "lessonlib.records": [
        Bad("Flags", lambda m: m.Flags(5), TypeError, "values", "FEATURES", "int"),
        Bad("Flags", lambda m: m.Flags("abc"), TypeError, "values", note="str"),
        Bad("Flags", lambda m: m.Flags([True, False]), ValueError, "values", "7", "too few"),
        Bad(
            "Flags",
            lambda m: m.Flags({"instruction_mode": True}),
            ValueError,
            "values",
            "excessive_length",
            "a flag missing",
        ),
        Bad("is_harmful", lambda m: m.is_harmful("x"), TypeError, "record", "Record", "str"),
        Bad("is_harmful", lambda m: m.is_harmful(None), TypeError, "record", note="None"),
    ],
    "lessonlib.metrics": [
        Bad("resolution", lambda m: m.resolution(0), ValueError, "count", ">= 1", "zero"),
        Bad("resolution", lambda m: m.resolution(2.5), TypeError, "count", "integer", "float"),
        Bad("steps", lambda m: m.steps(0.1, 0), ValueError, "count", ">= 1", "zero count"),
        Bad("steps", lambda m: m.steps("0.1", 240), TypeError, "difference", "real", "str"),
        Bad("steps", lambda m: m.steps(NAN, 240), ValueError, "difference", "finite", "NaN"),
        Bad(
            "disagreements",
            lambda m: m.disagreements([1, 2], RUN.labels),
            TypeError,
            "labels_a",
            "mapping",
            "a list",
        ),
        Bad(
            "disagreements",
            lambda m: m.disagreements(RUN.labels, None),
            TypeError,
            "labels_b",
            "mapping",
            "None",
        ),
        Bad(
            "disagreements",
            lambda m: m.disagreements(RUN.labels, {1: "temiz"}),
            ValueError,
            "labels_a",
            "same record numbers",
            "other records",
        ),
    ],
    "lessonlib.simulator": [
        Bad("tokenize", lambda m: m.tokenize(None), TypeError, "text", "str", "None"),
        Bad("tokenize", lambda m: m.tokenize(["a"]), TypeError, "text", "str", "a list"),
        Bad("label_scores", lambda m: m.label_scores("tek"), TypeError, "tokens", "list", "str"),
        Bad("label_scores", lambda m: m.label_scores([1]), TypeError, "tokens", "str", "int"),
    ],
    "lessonlib.judge": [
        Bad("build_prompt", lambda m: m.build_prompt("x"), TypeError, "record", "Record", "str"),
        Bad("build_prompt", lambda m: m.build_prompt(R, 5), TypeError, "guideline", "str", "int"),
        Bad("read_label", lambda m: m.read_label(None), TypeError, "reply_text", "str", "None"),
    ],
    "lessonlib.many": [
        *[
            Bad("run_judge_many", lambda m, s=s: m.run_judge_many(RECS, s), e, "seeds", note=n)
            for s, e, n in BAD_SEEDS
        ],
        *[
            Bad("run_judge_many", lambda m, r=r: m.run_judge_many(r, [1]), e, "records", note=n)
            for r, e, n in BAD_RECORDS
        ],
        Bad(
            "run_judge_many",
            lambda m: m.run_judge_many(RECS, [1], unreadable_as="abstain"),
            ValueError,
            "unreadable_as",
            "clean",
            "unknown rule",
        ),
        Bad(
            "run_judge_many",
            lambda m: m.run_judge_many(RECS, [1], chunk=0),
            ValueError,
            "chunk",
            ">= 1",
            "zero",
        ),
    ],
    "lessonlib.panel": [
        Bad("Panel", lambda m: m.Panel(None), TypeError, "asks", "ask", "None"),
        Bad("Panel", lambda m: m.Panel([lambda p, s: "temiz"], quorum=2.0), TypeError, "quorum"),
        Bad(
            "Panel",
            lambda m: m.Panel([lambda p, s: "temiz"], aggregate="max"),
            ValueError,
            "aggregate",
            "median",
            "unknown",
        ),
        Bad("judge_models", lambda m: m.judge_models("gpt"), ValueError, "names", "lesson"),
    ],
    "lessonlib.agreement_stats": [
        Bad("cohen_kappa", lambda m: m.cohen_kappa(None, ["a"]), TypeError, "a", note="None"),
        Bad("cohen_kappa", lambda m: m.cohen_kappa(["a"], ["a", "b"]), ValueError, "b", "same"),
        Bad(
            "rater_agreement",
            lambda m: m.rater_agreement(["a", "b"], ["a"]),
            ValueError,
            "b",
            "same",
            "other records",
        ),
        Bad("rater_agreement", lambda m: m.rater_agreement("ab", ["a"]), TypeError, "a"),
        *[
            Bad(fn, lambda m, fn=fn: getattr(m, fn)(None), TypeError, "ratings", note="None")
            for fn in ("fleiss_kappa", "krippendorff_alpha", "category_kappas")
        ],
        *[
            Bad(fn, lambda m, fn=fn: getattr(m, fn)([["a", "b"]]), ValueError, "ratings", "two")
            for fn in ("fleiss_kappa", "krippendorff_alpha", "category_kappas")
        ],
        Bad(
            "krippendorff_alpha",
            lambda m: m.krippendorff_alpha([["a"], ["b"]], level="ratio"),
            ValueError,
            "level",
            "nominal",
            "unknown level",
        ),
    ],
    "lessonlib.variance": [
        Bad("figures", lambda m: m.figures([[True]]), TypeError, "runs", "ManyRuns", "a list"),
        Bad("run_band", lambda m: m.run_band(5), TypeError, "values", "numbers", "an int"),
        Bad("run_band", lambda m: m.run_band([]), ValueError, "values", "at least one", "empty"),
        Bad("run_band", lambda m: m.run_band(["a"]), TypeError, "values", "numbers", "str"),
        Bad("run_band", lambda m: m.run_band([0.5, NAN]), ValueError, "values", "NaN", "NaN"),
        Bad("run_band", lambda m: m.run_band([0.5], 1.0), ValueError, "level", "between", "1"),
        Bad("run_band", lambda m: m.run_band([0.5], "0.95"), TypeError, "level", "real"),
        *[
            Bad(fn, lambda m, fn=fn, h=h: getattr(m, fn)(h), e, "harmful", allowed, note)
            for fn in ("pair_changes", "flip_probability", "expected_changed")
            for h, e, allowed, note in (
                ([True, False], TypeError, "(runs, records)", "one row"),
                ([[1, 0], [0, 1]], TypeError, "bools", "ints"),
                ([[True, False]], ValueError, "two runs", "one run"),
                (None, TypeError, "(runs, records)", "None"),
            )
        ],
        *[
            Bad(fn, lambda m, fn=fn, r=r: getattr(m, fn)(r, _many_runs()), e, "records", note=n)
            for fn in ("recall_gap", "fbr_comparison", "key_figures")
            for r, e, n in BAD_RECORDS
        ],
        *[
            Bad(fn, lambda m, fn=fn: getattr(m, fn)(RECS, RUN), TypeError, "runs", "ManyRuns")
            for fn in ("recall_gap", "fbr_comparison", "key_figures")
        ],
        *[
            Bad(
                fn,
                lambda m, fn=fn: getattr(m, fn)(RECS[:1], _many_runs()),
                ValueError,
                "records",
                "the runs judged",
                "other records",
            )
            for fn in ("recall_gap", "fbr_comparison", "key_figures")
        ],
        *[
            Bad(
                fn,
                lambda m, fn=fn: getattr(m, fn)(RECS, _many_runs(), level=95),
                ValueError,
                "level",
                "between",
                "a percent",
            )
            for fn in ("recall_gap", "fbr_comparison", "key_figures")
        ],
        Bad(
            "key_figures",
            lambda m: m.key_figures(RECS, _many_runs(), marks=(0, 5)),
            ValueError,
            "marks",
            "run numbers",
            "a run that is not there",
        ),
        *[
            Bad("criteria_figures", lambda m, r=r: m.criteria_figures(r), e, "records", note=n)
            for r, e, n in BAD_RECORDS
        ],
        Bad("criteria_figures", lambda m: m.criteria_figures(RECS, 5), TypeError, "decide"),
        Bad(
            "criteria_figures",
            lambda m: m.criteria_figures(RECS, lessonlib.run_judge(RECS[:1]).decide),
            ValueError,
            "record",
            "does not belong",
            "a run on fewer records",
        ),
        Bad(
            "temperature_sweep",
            lambda m: m.temperature_sweep(RECS, [0.3, -1.0], [1, 2]),
            ValueError,
            "temperatures",
            ">= 0",
            "negative temperature",
        ),
        Bad(
            "temperature_sweep",
            lambda m: m.temperature_sweep(RECS, 0.3, [1, 2]),
            TypeError,
            "temperatures",
            "collection",
            "one number",
        ),
        Bad(
            "temperature_sweep",
            lambda m: m.temperature_sweep(RECS, [0.3], [1, -2]),
            ValueError,
            "seeds",
            ">= 0",
            "negative seed",
        ),
        Bad(
            "temperature_sweep",
            lambda m: m.temperature_sweep(RECS, [0.3], [1, 2], level=0),
            ValueError,
            "level",
            "between",
            "zero",
        ),
    ],
    "lessonlib.widgets": [
        *[
            Bad("raters_explorer", lambda m, r=r: m.raters_explorer(r), e, "records", note=n)
            for r, e, n in BAD_RECORDS
            if r is not None  # None: the lesson's records
        ],
    ],
}
for _module, _rows in NOTEBOOK_DOORS.items():
    ROWS.setdefault(_module, []).extend(_rows)

# ---------------------------------------------------------------- the judge's settings doors
# (issue 28: one JudgeSettings value, taken whole as settings= or built from keyword changes;
# an unknown keyword names itself and the settings allowed).  Added to the modules' rows.

PAIR = ("judge alone", "filter, then judge", "agreement")


def _shares():
    from lessonlib import designs

    return designs.design_shares(RECS, [1, 2], 0.1, 0.9)


SETTINGS_DOORS = {
    "lessonlib.judge": [
        Bad("JudgeSettings", lambda m: m.JudgeSettings(temperature=-1), ValueError, "temperature"),
        Bad("JudgeSettings", lambda m: m.JudgeSettings(max_output=0), ValueError, "max_output"),
        Bad("JudgeSettings", lambda m: m.JudgeSettings(guideline=5), TypeError, "guideline"),
        Bad(
            "JudgeSettings",
            lambda m: m.JudgeSettings(cues={"yoner": "bad"}),
            ValueError,
            "cues",
            "temiz",
        ),
        Bad("JudgeSettings", lambda m: m.JudgeSettings(prior={"temiz": 1}), ValueError, "prior"),
        Bad(
            "JudgeSettings",
            lambda m: m.JudgeSettings(unreadable_as="skip"),
            ValueError,
            "unreadable_as",
            "'harmful'",
        ),
        Bad("run_judge", lambda m: m.run_judge(RECS, settings=0.3), TypeError, "settings"),
        Bad(
            "run_judge",
            lambda m: m.run_judge(RECS, 1, temprature=0),
            TypeError,
            "temprature",
            "temperature",
            "unknown setting",
        ),
        Bad(
            "resolve_settings",
            lambda m: m.resolve_settings(None, {"seed": 1}),
            TypeError,
            "seed",
            "unreadable_as",
        ),
    ],
    "lessonlib.many": [
        Bad("run_judge_many", lambda m: m.run_judge_many(RECS, [1], "x"), TypeError, "settings"),
        Bad(
            "run_judge_many",
            lambda m: m.run_judge_many(RECS, [1], prior={"temiz": 1, "zararli": "a"}),
            TypeError,
            "prior['zararli']",
        ),
    ],
    "lessonlib.variance": [
        Bad(
            "temperature_sweep",
            lambda m: m.temperature_sweep(RECS, [0.1], [1], temperature=0.3),
            TypeError,
            "temperature",
            "temperatures",
        ),
        Bad(
            "temperature_sweep",
            lambda m: m.temperature_sweep(RECS, [0.1], [1], max_output=0),
            ValueError,
            "max_output",
        ),
    ],
    "lessonlib.designs": [
        Bad("cascade", lambda m: m.cascade(RECS, settings={}), TypeError, "settings"),
        Bad("cascade", lambda m: m.cascade(RECS, spurious=5), TypeError, "spurious"),
        Bad("designs", lambda m: m.designs(0.9, 0.1), ValueError, "low", "out of order"),
        Bad("designs", lambda m: m.designs(0.1, None), ValueError, "high"),
        Bad("design_shares", lambda m: m.design_shares([], [1], 0.1, 0.9), ValueError, "records"),
        Bad("design_shares", lambda m: m.design_shares(RECS, [], 0.1, 0.9), ValueError, "seeds"),
        Bad("design_shares", lambda m: m.design_shares(RECS, [1], 0.9, 0.1), ValueError, "low"),
        Bad(
            "design_shares",
            lambda m: m.design_shares(RECS, [1], 0.1, 0.9, temprature=0),
            TypeError,
            "temprature",
        ),
        Bad("design_shares", lambda m: m.design_shares(RECS, [1], 0.1, 2), ValueError, "high"),
        Bad(
            "design_shares",
            lambda m: m.design_shares(RECS, [1], 0.1, 0.9, settings=1),
            TypeError,
            "settings",
        ),
        Bad(
            "design_comparisons",
            lambda m: m.design_comparisons(RECS, [], [PAIR], PAIR),
            TypeError,
            "shares",
        ),
        Bad(
            "design_comparisons",
            lambda m: m.design_comparisons(RECS, _shares(), [("a", "b", "agreement")], PAIR),
            ValueError,
            "pairs",
            "'judge alone'",
        ),
        Bad(
            "design_comparisons",
            lambda m: m.design_comparisons(RECS, _shares(), [PAIR], PAIR[::-1]),
            ValueError,
            "primary",
        ),
        Bad(
            "design_comparisons",
            lambda m: m.design_comparisons(RECS, _shares(), [PAIR], PAIR, n_resamples=0),
            ValueError,
            "n_resamples",
        ),
    ],
    "lessonlib.score": [
        Bad(
            "judge_probabilities",
            lambda m: m.judge_probabilities(RECS, 0.3),
            TypeError,
            "settings",
        ),
    ],
    "lessonlib.truth": [
        Bad("population_figures", lambda m: m.population_figures(5), TypeError, "settings"),
        Bad(
            "population_figures",
            lambda m: m.population_figures(temperature=-1),
            ValueError,
            "temperature",
        ),
        Bad("profile_table", lambda m: m.profile_table(rules=("x",)), ValueError, "rules"),
        Bad("profile_table", lambda m: m.profile_table(max_output=0), ValueError, "max_output"),
        Bad("block_chances", lambda m: m.block_chances([]), ValueError, "records"),
        Bad("block_chances", lambda m: m.block_chances(RECS, guideline=1), TypeError, "guideline"),
    ],
    "lessonlib.probing": [
        Bad("probe", lambda m: m.probe(RECS, "length", temprature=0), TypeError, "temprature"),
        Bad("probe", lambda m: m.probe(RECS, "size"), ValueError, "change", "'length'"),
    ],
    "lessonlib.weeks": [
        Bad("true_rates", lambda m: m.true_rates(settings=5), TypeError, "settings"),
        Bad(
            "simulate_estimates",
            lambda m: m.simulate_estimates(temprature=1),
            TypeError,
            "temprature",
        ),
        Bad(
            "labels_needed",
            lambda m: m.labels_needed(0.05, max_output=0),
            ValueError,
            "max_output",
        ),
    ],
}
for _module, _rows in SETTINGS_DOORS.items():
    ROWS.setdefault(_module, []).extend(_rows)


def _cases():
    for module, rows in ROWS.items():
        for i, row in enumerate(rows):
            label = f"{row.api}-{row.note or row.param}-{i}".replace(" ", "_")
            marks = [pytest.mark.xfail(strict=True, reason=f"gap: {row.gap}")] if row.gap else []
            yield pytest.param(module, row, id=f"{module.split('.')[-1]}:{label}", marks=marks)


def _words(text):
    return re.compile(r"(?<![A-Za-z0-9_])" + re.escape(text) + r"(?![A-Za-z0-9_])")


def pytest_generate_tests(metafunc):
    """The rows of the whole table, read once the module has run (every ``ROWS.update``, the
    last ones below the tests included)."""
    if metafunc.function is test_bad_argument_meets_a_clear_error:
        metafunc.parametrize("module, row", list(_cases()))


def test_bad_argument_meets_a_clear_error(module, row, tmp_path, monkeypatch):
    try:
        mod = importlib.import_module(module)
    except ModuleNotFoundError:
        pytest.skip(f"{module} is not in this checkout yet")
    monkeypatch.chdir(tmp_path)  # a row that would write a file writes it here
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


# ---------------------------------------------------------------- nothing half-built


def test_a_refused_call_leaves_the_counter_unchanged():
    model = lessonlib.SimulatedModel(0)
    for _ in range(36):
        model.call("tek yok", 1)
    for bad in (
        lambda: model.call("tek yok", -1),
        lambda: model.call(5, 1),
        lambda: model.call("tek yok", 1, 0),
        lambda: model.call("tek yok", True),
        lambda: model("tek yok", 1.5),
    ):
        with pytest.raises((TypeError, ValueError)):
            bad()
        assert model.calls == 36
    # so the next good call is still the 37th, the rate-limited one
    assert model.call("tek yok", 1).status == "rate_limit"


@pytest.mark.parametrize(
    "call",
    [
        lambda spy: lessonlib.measure([R, 5], spy),
        lambda spy: lessonlib.agreement([R, "x"], spy),
        lambda spy: lessonlib.class_recall([R, None], spy),
    ],
    ids=["measure", "agreement", "class_recall"],
)
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


def test_records_stay_frozen():
    with pytest.raises(AttributeError):
        R.cls = "indirect_instruction"
    assert R.cls == "clean"


# ---------------------------------------------------------------- the panel and the engine
# (through their public names only; their own door rows are in test_panel.py / test_many.py)


class SpyAsk:
    """An ask that logs every call and every reset (answers 'temiz')."""

    def __init__(self):
        self.log = []

    def __call__(self, prompt, seed):
        self.log.append(("call", seed))
        return "temiz"

    def reset(self):
        self.log.append(("reset",))


@pytest.mark.parametrize(
    "bad",
    [
        dict(records=[]),
        dict(records=[R, 5]),
        dict(records=R),
        dict(seed=-1),
        dict(seed=1.5),
        dict(guideline=None),
    ],
    ids=[
        "no records",
        "non-record item",
        "one record",
        "negative seed",
        "float seed",
        "None guideline",
    ],
)
def test_a_panel_run_that_fails_validation_asks_no_judge(bad):
    spies = [SpyAsk(), SpyAsk()]
    panel = lessonlib.Panel(spies, quorum=2)
    args = dict(records=RECS, seed=1, guideline=lessonlib.GUIDELINE)
    args.update(bad)
    with pytest.raises((TypeError, ValueError)):
        panel.run(**args)
    assert [spy.log for spy in spies] == [[], []]  # not even a reset


def test_a_panel_that_fails_to_build_asks_no_judge():
    spy = SpyAsk()
    for bad in (
        dict(asks=[spy, 5]),
        dict(asks=[spy], quorum=1.5),
        dict(asks=[spy], aggregate="max"),
        dict(asks=[spy], on_unreadable="skip"),
        dict(asks=[spy], min_agreement=NAN),
    ):
        with pytest.raises((TypeError, ValueError)):
            lessonlib.Panel(**bad)
    assert spy.log == []


@pytest.mark.parametrize(
    "seeds",
    [[1, 2, -1], [1, 2, 1.5], [], {1: 2}],
    ids=["bad last seed", "float last seed", "no seed", "a dict"],
)
def test_a_failing_run_many_leaves_nothing(seeds):
    spies = [SpyAsk(), SpyAsk()]
    with pytest.raises((TypeError, ValueError)):
        lessonlib.Panel(spies).run_many(RECS, seeds)
    assert [spy.log for spy in spies] == [[], []]
    models = [lessonlib.SimulatedModel(), lessonlib.SimulatedModel(0.0)]
    for model in models:
        model.call("tek yok", 1)  # a counter that is not at zero
    with pytest.raises((TypeError, ValueError)):
        lessonlib.Panel(models, quorum=3).run_many(RECS, seeds)
    assert [m.calls for m in models] == [1, 1]


@pytest.mark.parametrize(
    "bad",
    [dict(seeds=[1, -1]), dict(max_output=0), dict(unreadable_as="abstain"), dict(guideline=5)],
    ids=["bad seed", "max_output 0", "unknown rule", "int guideline"],
)
def test_a_failing_many_seed_run_raises(bad):
    args = dict(records=RECS, seeds=[1, 2])
    args.update(bad)
    with pytest.raises((TypeError, ValueError)):
        lessonlib.run_judge_many(**args)


# ---------------------------------------------------------------- issue 28's contracts
# The study helpers the notebooks call (issue 28, "the contracts derived from the notebooks":
# tests/test_contracts.py asks a row for each): one door check of the first argument's kind
# at least.  Added to each module's rows, never replacing them.

TRUTH, SCORES = [False, True], [0.2, 0.9]
COST_ROWS = [{"threshold": math.inf, "false blocks": 0, "misses": 1, "cost": 1.0}]


def _rater_table():
    from lessonlib import raters

    return raters.rating_table(RECS)


def _labels():
    from lessonlib import raters

    return raters.label_sets(RECS, _rater_table())


CONTRACT_DOORS = {
    "lessonlib.score": [
        *[
            Bad(fn, lambda m, fn=fn, t=t: getattr(m, fn)(t, SCORES), e, "truth", note=n)
            for fn in ("threshold_costs", "plot_roc")
            for t, e, n in (
                ([], ValueError, "empty"),
                ([1, 0], TypeError, "ints"),
                ("ab", TypeError, "str"),
            )
        ],
        *[
            Bad(fn, lambda m, fn=fn: getattr(m, fn)(TRUTH, [0.2]), ValueError, "scores", "unequal")
            for fn in ("threshold_costs", "plot_roc")
        ],
        *[
            Bad(
                fn,
                lambda m, fn=fn: getattr(m, fn)(TRUTH, SCORES, -1),
                ValueError,
                "false_block",
                ">= 0",
            )
            for fn in ("threshold_costs",)
        ],
        Bad(
            "plot_roc",
            lambda m: m.plot_roc(TRUTH, SCORES, [(0, 1, 1)]),
            TypeError,
            "marks",
            "mapping",
        ),
        *[
            Bad(fn, lambda m, fn=fn, rows=rows: getattr(m, fn)(rows), e, "rows", "LevelRow", n)
            for fn in ("plot_levels",)
            for rows, e, n in (([], ValueError, "empty"), (COST_ROWS, TypeError, "dict rows"))
        ],
        Bad(
            "first_run_percentile",
            lambda m: m.first_run_percentile(0.5),
            TypeError,
            "values",
            "per run",
        ),
        Bad(
            "first_run_percentile",
            lambda m: m.first_run_percentile([]),
            ValueError,
            "values",
            "at least one",
        ),
        Bad(
            "first_run_percentile",
            lambda m: m.first_run_percentile([[0.5]]),
            TypeError,
            "values",
            note="a matrix",
        ),
    ],
    "lessonlib.client": [
        *[
            Bad("run_cost", lambda m, r=r: m.run_cost(r), e, "records", note=n)
            for r, e, n in BAD_RECORDS
        ],
        Bad("run_cost", lambda m: m.run_cost(RECS, 0), ValueError, "judges", ">= 1"),
        Bad("run_cost", lambda m: m.run_cost(RECS, 1, 1.5), TypeError, "quorum", "integer"),
        Bad("run_cost", lambda m: m.run_cost(RECS, guideline=None), TypeError, "guideline"),
        Bad(
            "plot_wait_minutes", lambda m: m.plot_wait_minutes([240]), TypeError, "runs", "mapping"
        ),
        Bad(
            "plot_wait_minutes", lambda m: m.plot_wait_minutes({}), TypeError, "runs", note="empty"
        ),
        Bad(
            "plot_wait_minutes",
            lambda m: m.plot_wait_minutes({"one judge": "240"}),
            TypeError,
            "runs",
            "integer",
            "str calls",
        ),
        Bad(
            "plot_wait_minutes",
            lambda m: m.plot_wait_minutes({"one judge": 240}, (1, 0)),
            ValueError,
            "connections",
            ">= 1",
        ),
        Bad(
            "plot_wait_minutes",
            lambda m: m.plot_wait_minutes({"one judge": 240}, reply_seconds=-1),
            ValueError,
            "reply_seconds",
            ">= 0",
        ),
    ],
    "lessonlib.reply_cache": [
        Bad("ReplyCache", lambda m: m.ReplyCache(5), TypeError, "folder", "path", "an int"),
        Bad("ReplyCache", lambda m: m.ReplyCache(None), TypeError, "folder", note="None"),
    ],
    "lessonlib.sample": [
        Bad("holm", lambda m: m.holm(0.05), TypeError, "p_values", "sequence", "one number"),
        Bad("holm", lambda m: m.holm("0.05"), TypeError, "p_values", note="str"),
        Bad("holm", lambda m: m.holm([]), ValueError, "p_values", "at least one", "empty"),
        Bad("holm", lambda m: m.holm([0.1, 1.5]), ValueError, "p_values", "[0, 1]", "above 1"),
        Bad("holm", lambda m: m.holm([0.1, NAN]), ValueError, "p_values[1]", "finite", "NaN"),
    ],
    "lessonlib.verdict": [
        Bad("first_label", lambda m: m.first_label(None), TypeError, "text", "str", "None"),
        Bad("first_label", lambda m: m.first_label(b"temiz"), TypeError, "text", note="bytes"),
    ],
    "lessonlib.figures": [
        *[
            Bad(fn, lambda m, c=call, fn=fn, r=r: c(m, fn, r), e, "records", note=n)
            for fn, call in (
                ("confusion_picture", lambda m, fn, r: m.confusion_picture(r, bool)),
                ("class_recall_bars", lambda m, fn, r: m.class_recall_bars(r, {"x": bool})),
                ("plot_class_sources", lambda m, fn, r: m.plot_class_sources(r)),
                ("plot_harmful_probability", lambda m, fn, r: m.plot_harmful_probability(r)),
            )
            for r, e, n in BAD_RECORDS
        ],
        Bad("confusion_picture", lambda m: m.confusion_picture(RECS, 5), TypeError, "decide"),
        Bad(
            "confusion_picture",
            lambda m: m.confusion_picture(RECS, lessonlib.run_judge(RECS[:1]).decide),
            ValueError,
            "record",
            "does not belong",
            "a run on fewer records",
        ),
        Bad(
            "class_recall_bars",
            lambda m: m.class_recall_bars(RECS, [bool]),
            TypeError,
            "decisions",
            "mapping",
        ),
        Bad(
            "plot_harmful_probability",
            lambda m: m.plot_harmful_probability(RECS),
            ValueError,
            "records",
            "flags",
            "no record with 2 or 3 flags",
        ),
    ],
    "lessonlib.variance": [
        *[
            Bad(fn, lambda m, fn=fn, rows=rows: getattr(m, fn)(rows), e, "rows", note=n)
            for fn in ("plot_gap_steps", "plot_sweep")
            for rows, e, n in (([], ValueError, "empty"), ([5], TypeError, "an int row"))
        ],
        *[
            Bad(
                "plot_figures",
                lambda m, r=r: m.plot_figures(r, _many_runs()),
                e,
                "records",
                note=n,
            )
            for r, e, n in BAD_RECORDS
        ],
        Bad("plot_figures", lambda m: m.plot_figures(RECS, RUN), TypeError, "runs", "ManyRuns"),
        Bad(
            "plot_figures",
            lambda m: m.plot_figures(RECS[:1], _many_runs()),
            ValueError,
            "records",
            "the runs judged",
            "other records",
        ),
        Bad(
            "plot_figures",
            lambda m: m.plot_figures(RECS, _many_runs(), marks=(0, 5)),
            ValueError,
            "marks",
            "below 2",
            "a run that is not there",
        ),
        Bad("plot_changes", lambda m: m.plot_changes(3), TypeError, "changes", "counts", "an int"),
        Bad("plot_changes", lambda m: m.plot_changes([0.5]), TypeError, "changes", note="floats"),
        Bad("plot_changes", lambda m: m.plot_changes([]), ValueError, "changes", "at least one"),
        Bad("plot_changes", lambda m: m.plot_changes([1, -1]), ValueError, "changes", ">= 0"),
        Bad("plot_changes", lambda m: m.plot_changes([1, 2], mark=1.5), TypeError, "mark"),
    ],
    "lessonlib.raters": [
        *[
            Bad(fn, lambda m, c=call, r=r: c(m, r), e, "records", note=n)
            for fn, call in (
                ("rate", lambda m, r: m.rate(r, m.RATERS[0])),
                ("rating_table", lambda m, r: m.rating_table(r)),
                ("human_labels", lambda m, r: m.human_labels(r)),
                ("label_sets", lambda m, r: m.label_sets(r, _rater_table())),
                ("rescore_rows", lambda m, r: m.rescore_rows(r, {"x": bool}, _labels())),
            )
            for r, e, n in BAD_RECORDS
        ],
        Bad("rate", lambda m: m.rate(RECS, "careful"), TypeError, "rater", "Rater"),
        Bad("rate", lambda m: m.rate(RECS, m.RATERS[0], "five"), ValueError, "scale", "graded"),
        Bad(
            "rating_table",
            lambda m: m.rating_table(RECS, guideline="long"),
            ValueError,
            "guideline",
        ),
        Bad("rating_table", lambda m: m.rating_table(RECS, raters=[5]), TypeError, "raters[0]"),
        *[
            Bad(fn, lambda m, fn=fn, rows=rows: getattr(m, fn)(RECS, rows), e, arg, note=n)
            for fn, arg in (("label_sets", "scale_rows"),)
            for rows, e, n in (
                ([], ValueError, "empty"),
                (["clean", "harmful"], TypeError, "one row of str"),
                (5, TypeError, "an int"),
            )
        ],
        *[
            Bad(fn, lambda m, c=call: c(m), TypeError, arg, "mapping", note)
            for fn, arg, note, call in (
                (
                    "rescore_rows",
                    "decisions",
                    "a list",
                    lambda m: m.rescore_rows(RECS, [bool], _labels()),
                ),
                (
                    "rescore_rows",
                    "labels",
                    "a list",
                    lambda m: m.rescore_rows(RECS, {"x": bool}, []),
                ),
                ("pair_rows", "named", "a list", lambda m: m.pair_rows([("a", "b")])),
            )
        ],
        *[
            Bad(fn, lambda m, fn=fn, rows=rows: getattr(m, fn)(rows), e, "rows", note=n)
            for fn in (
                "plot_pairs",
                "plot_scales",
            )
            for rows, e, n in (
                ([], ValueError, "empty"),
                ([5], TypeError, "an int row"),
                ({"a": 1}, TypeError, "one dict"),
            )
        ],
        Bad("with_rates", lambda m: m.with_rates(miss=1.5), ValueError, "miss", "[0, 1]"),
        Bad("with_rates", lambda m: m.with_rates(false_alarm="0.1"), TypeError, "false_alarm"),
        Bad("with_rates", lambda m: m.with_rates(careless=NAN), ValueError, "careless", "finite"),
    ],
    "lessonlib.truth": [
        *[
            Bad(fn, lambda m, fn=fn, r=r: getattr(m, fn)(r), e, "results", "Coverage", n)
            for fn in ("plot_coverage",)
            for r, e, n in (([5], TypeError, "an int"), ([], ValueError, "empty"))
        ],
    ],
    "lessonlib.weeks": [
        Bad(
            "coverage_rows",
            lambda m: m.coverage_rows([1, 2], 0.1),
            TypeError,
            "estimates",
            "mapping",
        ),
        Bad(
            "coverage_rows",
            lambda m: m.coverage_rows({}, 0.1),
            TypeError,
            "estimates",
            note="empty",
        ),
        Bad(
            "coverage_rows",
            lambda m: m.coverage_rows({"ppi": [0.1, 0.2]}, 0.1),
            TypeError,
            "estimates['ppi']",
            "(weeks, 3)",
            "a list",
        ),
        *[
            Bad(fn, lambda m, fn=fn, rows=rows: getattr(m, fn)(rows), e, "rows", note=n)
            for fn in ("plot_widths",)
            for rows, e, n in (
                ([], ValueError, "empty"),
                ([5], TypeError, "an int row"),
                ({"a": 1}, TypeError, "one dict"),
            )
        ],
    ],
    "lessonlib.probing": [
        Bad("twin", lambda m: m.twin(5, "length"), TypeError, "record", "Record"),
        Bad("twin", lambda m: m.twin(R, "colour"), ValueError, "change", "length"),
        Bad("with_length", lambda m: m.with_length("x", True), TypeError, "record", "Record"),
        Bad("with_length", lambda m: m.with_length(R, 1), TypeError, "on", "True or False"),
    ],
}
ROWS.update({name: [*ROWS.get(name, []), *rows] for name, rows in CONTRACT_DOORS.items()})


# notebook 15, the second pass (issue 35): a shift within a class, the tuned and best lam, the
# Monte Carlo error and coverage against the number of person labels
TRUTH15_DOORS: dict[str, list[Bad]] = {
    "lessonlib.production": [
        Bad(
            "estimate_rate",
            lambda m: m.estimate_rate([1], [1], [1, 0]),
            ValueError,
            "person",
            "at least 2",
            "one label: no interval",
        ),
        Bad(
            "estimate_rate",
            lambda m: m.estimate_rate([], [], [1, 0]),
            ValueError,
            "person",
            note="no labels",
        ),
    ],
    "lessonlib.weeks": [
        Bad(
            "true_rates",
            lambda m: m.true_rates(flag_shares=[("clean", 0.2)]),
            TypeError,
            "flag_shares",
            "{class: {flag: share}}",
        ),
        Bad(
            "true_rates",
            lambda m: m.true_rates(flag_shares={"spam": {"instruction_mode": 0.2}}),
            ValueError,
            "flag_shares",
            "clean",
            "unknown class",
        ),
        Bad(
            "true_rates",
            lambda m: m.true_rates(flag_shares={"clean": {"length": 0.2}}),
            ValueError,
            "flag_shares['clean']",
            "instruction_mode",
            "unknown flag",
        ),
        Bad(
            "true_rates",
            lambda m: m.true_rates(flag_shares={"clean": {"instruction_mode": 1.2}}),
            ValueError,
            "flag_shares['clean']['instruction_mode']",
            "between 0 and 1",
        ),
        Bad(
            "true_rates",
            lambda m: m.true_rates(flag_shares={"clean": 0.2}),
            TypeError,
            "flag_shares['clean']",
            "{flag: share}",
            "a number for a class",
        ),
        Bad(
            "simulate_estimates",
            lambda m: m.simulate_estimates(weeks=1, flag_shares={"clean": {"x": 0.1}}),
            ValueError,
            "flag_shares['clean']",
            "instruction_mode",
        ),
        Bad(
            "simulate_estimates",
            lambda m: m.simulate_estimates(weeks=1, lams=[0.5]),
            TypeError,
            "lams",
            "mapping",
        ),
        Bad(
            "simulate_estimates",
            lambda m: m.simulate_estimates(weeks=1, lams={"ppi": 0.5}),
            ValueError,
            "lams",
            "new row names",
            "a method's name",
        ),
        Bad(
            "simulate_estimates",
            lambda m: m.simulate_estimates(weeks=1, lams={"best": "high"}),
            TypeError,
            "lams['best']",
        ),
        Bad(
            "simulate_estimates",
            lambda m: m.simulate_estimates(weeks=1, quantity="false_block_rate", lams={"b": 1}),
            ValueError,
            "lams",
            "a mean",
            "the ratio",
        ),
        Bad("best_lam", lambda m: m.best_lam(stand_in="vote"), ValueError, "stand_in", "score"),
        Bad("best_lam", lambda m: m.best_lam(labelled=1), ValueError, "labelled", ">= 2"),
        Bad("best_lam", lambda m: m.best_lam(quantity="false_block_rate"), ValueError, "quantity"),
    ],
}
ROWS.update({name: [*ROWS.get(name, []), *rows] for name, rows in TRUTH15_DOORS.items()})
# Issue 35 (notebook 07): the paired power, the one percentile, the Monte Carlo error, the
# cluster band's coverage.
POWER_DOORS = {
    "lessonlib.sample": [
        *[
            Bad(fn, lambda m, fn=fn, a=a: getattr(m, fn)(*a), e, param, allowed, note=n)
            for fn, tail in (("paired_power", (240,)), ("paired_records_needed", ()))
            for a, e, param, allowed, n in (
                (("0.01", 0.3, *tail), TypeError, "difference", "real number", "str"),
                ((0.0, 0.3, *tail), ValueError, "difference", "other than 0", "zero"),
                ((NAN, 0.3, *tail), ValueError, "difference", "finite", "NaN"),
                ((0.01, 0.0, *tail), ValueError, "sd", "> 0", "sd zero"),
                ((0.01, -0.3, *tail), ValueError, "sd", "> 0", "sd negative"),
                ((0.01, None, *tail), TypeError, "sd", "real number", "sd None"),
            )
        ],
        Bad("paired_power", lambda m: m.paired_power(0.01, 0.3, 0), ValueError, "n_records"),
        Bad("paired_power", lambda m: m.paired_power(0.01, 0.3, 2.5), TypeError, "n_records"),
        Bad(
            "paired_power",
            lambda m: m.paired_power(0.01, 0.3, 240, 1.0),
            ValueError,
            "level",
            "between 0 and 1",
        ),
        Bad(
            "paired_records_needed",
            lambda m: m.paired_records_needed(0.01, 0.3, 1.0),
            ValueError,
            "power",
            "[0.5, 1)",
            "power 1",
        ),
        Bad(
            "paired_records_needed",
            lambda m: m.paired_records_needed(0.01, 0.3, 0.2),
            ValueError,
            "power",
            "[0.5, 1)",
            "power below a half",
        ),
        Bad(
            "paired_records_needed",
            lambda m: m.paired_records_needed(0.01, 0.3, level=0.0),
            ValueError,
            "level",
            "between 0 and 1",
        ),
    ],
    "lessonlib.variance": [
        Bad("percentile", lambda m: m.percentile(0.5, 0.5), TypeError, "values", "one figure"),
        Bad("percentile", lambda m: m.percentile("ab", 0.5), TypeError, "values", note="str"),
        Bad("percentile", lambda m: m.percentile([[0.5]], 0.5), TypeError, "values", note="2-D"),
        Bad("percentile", lambda m: m.percentile([], 0.5), ValueError, "values", "at least one"),
        Bad("percentile", lambda m: m.percentile([0.5], "x"), TypeError, "x", "real number"),
        Bad("percentile", lambda m: m.percentile([0.5], NAN), ValueError, "x", "finite"),
    ],
    "lessonlib.truth": [
        Bad("mc_error", lambda m: m.mc_error("0.9", 100), TypeError, "share", "real number"),
        Bad("mc_error", lambda m: m.mc_error(1.5, 100), ValueError, "share", "[0, 1]"),
        Bad("mc_error", lambda m: m.mc_error(0.9, 0), ValueError, "n", ">= 1"),
        Bad("mc_error", lambda m: m.mc_error(0.9, 10.0), TypeError, "n", "integer"),
        Bad("mc_error", lambda m: m.mc_error(0.9, 10, 1.0), ValueError, "level", "between"),
        *[
            Bad("cluster_coverage", lambda m, k=k: m.cluster_coverage(**k), e, p, a, note=n)
            for k, e, p, a, n in (
                ({"n_groups": 1}, ValueError, "n_groups", ">= 2", "one group"),
                ({"n_groups": 4.0}, TypeError, "n_groups", "integer", "float"),
                ({"copies": 0}, ValueError, "copies", ">= 1", "no copies"),
                ({"n_sets": 0}, ValueError, "n_sets", ">= 1", "no sets"),
                ({"n_resamples": 0}, ValueError, "n_resamples", ">= 1", "no resamples"),
                ({"level": 1.5}, ValueError, "level", "between 0 and 1", "level above 1"),
                ({"seed": -1}, ValueError, "seed", ">= 0", "negative seed"),
            )
        ],
    ],
}
ROWS.update({name: [*ROWS.get(name, []), *rows] for name, rows in POWER_DOORS.items()})
# notebook 16: which records the person labels (lessonlib.strata), the stratified estimate
# (estimate_rate, method="stratified"), the person's slips and the dashboard (lessonlib.labelling)
SCORES16 = [0.1] * 10 + [0.9] * 10
STRAT16 = dict(method="stratified", strata_labelled=["a", "a", "b", "b"], strata_rest=["a", "b"])
ARGS16 = ([1, 0, 1, 1], [0.5, 0.5, 0.9, 0.9], [0.5, 0.9])
STEP16_DOORS = {
    "lessonlib.strata": [
        Bad(
            "choose_records",
            lambda m: m.choose_records(SCORES16, 21),
            ValueError,
            "budget",
            "at most",
            "more than the week",
        ),
        Bad(
            "choose_records",
            lambda m: m.choose_records(SCORES16, 3),
            ValueError,
            "budget",
            "two labels",
            "under two a stratum",
        ),
        Bad(
            "choose_records",
            lambda m: m.choose_records(SCORES16, 1, design="random"),
            ValueError,
            "budget",
            ">= 2",
            "one label",
        ),
        Bad(
            "choose_records",
            lambda m: m.choose_records(SCORES16, 4.0),
            TypeError,
            "budget",
            "integer",
            "float budget",
        ),
        Bad(
            "choose_records",
            lambda m: m.choose_records(SCORES16, 4, design="best"),
            ValueError,
            "design",
            "neyman",
            "unknown design",
        ),
        Bad(
            "choose_records",
            lambda m: m.choose_records(SCORES16, 4, seed=-1),
            ValueError,
            "seed",
            ">= 0",
            "negative seed",
        ),
        Bad(
            "choose_records",
            lambda m: m.choose_records([0.1, 1.5], 2),
            ValueError,
            "judge_scores",
            "[0, 1]",
            "score above 1",
        ),
        Bad(
            "choose_records",
            lambda m: m.choose_records([0.1, "x"], 2),
            TypeError,
            "judge_scores",
            "numbers",
            "a str score",
        ),
        Bad(
            "choose_records",
            lambda m: m.choose_records(0.5, 2),
            TypeError,
            "judge_scores",
            note="one number",
        ),
        Bad(
            "choose_records",
            lambda m: m.choose_records([], 2),
            ValueError,
            "judge_scores",
            note="empty",
        ),
        Bad(
            "score_strata",
            lambda m: m.score_strata([0.2, None]),
            TypeError,
            "judge_scores",
            "numbers",
            "None score",
        ),
        Bad(
            "score_strata",
            lambda m: m.score_strata([-0.1]),
            ValueError,
            "judge_scores",
            "[0, 1]",
            "negative score",
        ),
    ],
    "lessonlib.production": [
        Bad(
            "estimate_rate",
            lambda m: m.estimate_rate(*ARGS16, method="stratified"),
            ValueError,
            "strata_labelled",
            "strata_rest",
            "stratified without strata",
        ),
        Bad(
            "estimate_rate",
            lambda m: m.estimate_rate(
                *ARGS16, method="ppi", strata_labelled=[0, 0, 1, 1], strata_rest=[0, 1]
            ),
            ValueError,
            "strata_labelled",
            "stratified",
            "strata with ppi",
        ),
        Bad(
            "estimate_rate",
            lambda m: m.estimate_rate(
                *ARGS16, **{**STRAT16, "strata_labelled": ["a", "a", "a", "b"]}
            ),
            ValueError,
            "strata_labelled",
            "at least two",
            "one label in a stratum",
        ),
        Bad(
            "estimate_rate",
            lambda m: m.estimate_rate(*ARGS16, **{**STRAT16, "strata_rest": ["a", "c"]}),
            ValueError,
            "strata_rest",
            "no label",
            "a stratum without labels",
        ),
        Bad(
            "estimate_rate",
            lambda m: m.estimate_rate(*ARGS16, **{**STRAT16, "strata_rest": ["a"]}),
            ValueError,
            "strata_rest",
            "one stratum per record",
            "too few strata",
        ),
        Bad(
            "estimate_rate",
            lambda m: m.estimate_rate(*ARGS16, **{**STRAT16, "strata_rest": "ab"}),
            TypeError,
            "strata_rest",
            note="a str of strata",
        ),
        Bad(
            "estimate_rate",
            lambda m: m.estimate_rate(*ARGS16, **{**STRAT16, "strata_rest": 3}),
            TypeError,
            "strata_rest",
            note="a number of strata",
        ),
        Bad(
            "estimate_rate",
            lambda m: m.estimate_rate(*ARGS16, **{**STRAT16, "strata_rest": [["a"], ["b"]]}),
            TypeError,
            "strata_rest",
            "hashable",
            "unhashable strata",
        ),
    ],
    "lessonlib.labelling": [
        Bad(
            "score_levels",
            lambda m: m.score_levels([0.5, 0.5]),
            ValueError,
            "class_shares",
            note="two shares",
        ),
        Bad(
            "simulate_designs",
            lambda m: m.simulate_designs(("best",)),
            ValueError,
            "designs",
            "neyman",
            "unknown design",
        ),
        Bad(
            "simulate_designs",
            lambda m: m.simulate_designs(()),
            ValueError,
            "designs",
            note="no design",
        ),
        Bad(
            "simulate_designs",
            lambda m: m.simulate_designs(budget=6000),
            ValueError,
            "budget",
            "fewer than size",
            "budget above the week",
        ),
        Bad(
            "simulate_designs",
            lambda m: m.simulate_designs(weeks=0),
            ValueError,
            "weeks",
            ">= 1",
            "no week",
        ),
        Bad(
            "simulate_designs",
            lambda m: m.simulate_designs(class_shares=[1, 2]),
            ValueError,
            "class_shares",
            note="wrong shares",
        ),
        Bad(
            "design_labels_needed",
            lambda m: m.design_labels_needed(0.7),
            ValueError,
            "half_width",
            "0.5",
            "too wide",
        ),
        Bad(
            "design_labels_needed",
            lambda m: m.design_labels_needed("0.03"),
            TypeError,
            "half_width",
            note="str half_width",
        ),
        Bad(
            "simulate_slips",
            lambda m: m.simulate_slips(0.5, 200),
            ValueError,
            "slip",
            "below 0.5",
            "a coin",
        ),
        Bad(
            "simulate_slips",
            lambda m: m.simulate_slips(0.05, 200, double=300),
            ValueError,
            "double",
            "at most labelled",
            "more doubles than labels",
        ),
        Bad(
            "simulate_slips",
            lambda m: m.simulate_slips(0.05, 200, double=1),
            ValueError,
            "double",
            "at least 2",
            "one double",
        ),
        Bad(
            "simulate_slips",
            lambda m: m.simulate_slips(0.05, 5000),
            ValueError,
            "labelled",
            "fewer than size",
            "all labelled",
        ),
        Bad(
            "slip_rate",
            lambda m: m.slip_rate([0, 1], [0]),
            ValueError,
            "first",
            "same records",
            "unequal lengths",
        ),
        Bad("slip_rate", lambda m: m.slip_rate([0, 2], [0, 1]), ValueError, "first", "0/1", "a 2"),
        Bad(
            "slip_rate",
            lambda m: m.slip_rate([0], [0]),
            ValueError,
            "first",
            "at least 2",
            "one record",
        ),
        Bad(
            "estimate_with_slips",
            lambda m: m.estimate_with_slips(*ARGS16, [0, 1], [0, 1], method="stratified"),
            ValueError,
            "method",
            "ppi++",
            "stratified",
        ),
        Bad(
            "estimate_with_slips",
            lambda m: m.estimate_with_slips(*ARGS16, [0, 1], [0, 0.5]),
            ValueError,
            "second",
            "0/1",
            "a score",
        ),
        Bad(
            "confidence_sequence",
            lambda m: m.confidence_sequence([0, 1], planned=0),
            ValueError,
            "planned",
            ">= 1",
            "planned 0",
        ),
        Bad(
            "confidence_sequence",
            lambda m: m.confidence_sequence([0, 0.5]),
            ValueError,
            "labels",
            "0/1",
            "a score",
        ),
        Bad(
            "confidence_sequence",
            lambda m: m.confidence_sequence([0, 1], level=95),
            ValueError,
            "level",
            "between 0 and 1",
            "a percentage",
        ),
        Bad(
            "plot_dashboard",
            lambda m: m.plot_dashboard([0, 1] * 5, 0.4),
            ValueError,
            "labels",
            "the last look",
            "fewer labels than the looks",
        ),
        Bad(
            "plot_dashboard",
            lambda m: m.plot_dashboard([0, 1] * 300, "0.4"),
            TypeError,
            "truth",
            note="str truth",
        ),
    ],
}
ROWS.update({name: [*ROWS.get(name, []), *rows] for name, rows in STEP16_DOORS.items()})

# Issue 38: doors notebooks 10-12 now call from their own cells (their study in the notebook)
THIN38_DOORS = {
    "lessonlib.panel_study": [
        Bad(
            "rates_many", lambda m: m.rates_many([[1, 0]], [True]), ValueError, "harmful", "shapes"
        ),
        Bad("rates_many", lambda m: m.rates_many("x", [True]), ValueError, "harmful", "runs"),
        Bad("rates_many", lambda m: m.rates_many([[2, 0]], [1, 0]), ValueError, "harmful"),
        Bad("rates_many", lambda m: m.rates_many([[1, 0]], [1, 5]), ValueError, "actual"),
    ],
    "lessonlib.figures": [
        Bad("slide_figure", lambda m: m.slide_figure(5), TypeError, "plot", "function"),
    ],
}
ROWS.update({name: [*ROWS.get(name, []), *rows] for name, rows in THIN38_DOORS.items()})
