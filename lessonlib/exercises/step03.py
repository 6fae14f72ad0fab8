"""Notebook 03 - exercise checks for notebooks/03_judge_simulator.ipynb.

Each check prints ``PASS: ...`` or ``Not yet: ...`` (a hint) and returns True or False;
the right answer is computed here from lessonlib, never typed in.  A hint points
toward the idea, never at the code that computes the answer.
"""

from __future__ import annotations

from typing import Any

from .._checks import check_int as _check_int
from .._frozen import ReadOnlyDict as _ReadOnlyDict
from ..judge import HARMFUL as _HARMFUL
from ..judge import build_prompt as _build_prompt
from ..judge import run_judge as _run_judge
from ..metrics import measure as _measure
from ..records import make_records as _make_records
from ..simulator import TEMPERATURE as _TEMPERATURE
from ..simulator import label_probabilities as _label_probabilities
from ._common import _grade_number

__all__ = ["check_flagless_probability", "check_output_cap_unreadable"]


def _flagless_clean(records):
    return next(r for r in records if r.cls == "clean" and not r.features.on())


def check_flagless_probability(answer: Any) -> bool:
    """03, exercise 1: P('zararli') at the lesson's temperature for a record with no flag."""
    records = _make_records()
    record = _flagless_clean(records)
    prompt = _build_prompt(record)

    def one_flag():
        return next(
            _label_probabilities(_build_prompt(r), _TEMPERATURE)[_HARMFUL]
            for r in records
            if r.cls == "clean"
            and len(r.features.on()) == 1
            and r.features["excessive_length"] is False
        )

    return _grade_number(
        answer,
        _flagless_probability,
        share=True,
        fill="fill in answer: replace ... with the probability (between 0 and 1) "
        "that the judge answers zararli, at temperature 0.30, for a record "
        "with no flag switched on.",
        kind="a probability, a number between 0 and 1",
        passed=lambda truth: (
            f"for a record with no flag (record {record.no} is one) the judge "
            f"answers zararli with probability {truth:.4f} at temperature "
            f"{_TEMPERATURE:.2f}."
        ),
        slips=[
            (
                lambda: 1 - _flagless_probability(),
                "that is the probability of the other label, temiz.",
            ),
            (
                lambda: _label_probabilities(prompt, _TEMPERATURE, cues={}, spurious={})[_HARMFUL],
                "that is what the prior alone gives. Look at the prompt of a "
                "record with no flag: the word written in place of the flags is "
                "itself in the cue table.",
            ),
            (
                one_flag,
                "that is the probability for a record with ONE real flag. "
                "With no flag, which word takes the flags' place in the prompt, "
                "and which label does it pull toward?",
            ),
            (
                0,
                "0 is what temperature 0 would give. At the lesson's 0.30 the "
                "softmax leaves every label some chance.",
            ),
        ],
        hint="not that probability. It is the softmax at temperature 0.30 of the two "
        "labels' scores for the prompt of a record with no flag.",
    )


def check_output_cap_unreadable(answer: Any, max_output: int = 1) -> bool:
    """03, exercise 2: with ``max_output`` = 1, how many records stay unreadable?"""
    max_output = _check_int("max_output", max_output, minimum=1)
    records = _make_records()
    run = None

    def judged():
        nonlocal run
        run = _run_judge(records, max_output=max_output) if run is None else run
        return run

    def passed(unreadable):
        recall = _measure(records, judged().decide)["recall"]
        return (
            f"{unreadable} records stay unreadable after the retry and are "
            f"counted clean; recall of this run is {recall:.4f}."
        )

    return _grade_number(
        answer,
        lambda: judged().unreadable,
        places=None,
        fill=f"fill in answer: replace ... with how many of the records "
        f"are still unreadable after the retry when no reply may be longer "
        f"than {max_output} output token" + ("s." if max_output > 1 else "."),
        kind="a whole number of records",
        passed=passed,
        slips=[
            (
                lambda: judged().retries,
                "that is the number of retries. Some retried records were "
                "read on the second try; count the ones still unreadable after it.",
            ),
            (
                0,
                "a cap of one token cuts any reply longer than one token. Tokenize "
                "the two labels: does each fit in one token?",
            ),
        ],
        hint="not that count. Which of the two labels survives a one-token cap? A reply "
        "cut to something that is no label is unreadable, and the retry meets the same cap.",
    )


def _flagless_probability():
    """The answer of 03, exercise 1: P('zararli') at the lesson's temperature, no flag on."""
    prompt = _build_prompt(_flagless_clean(_make_records()))
    return _label_probabilities(prompt, _TEMPERATURE)[_HARMFUL]


def _output_cap_unreadable(max_output=1):
    """The answer of 03, exercise 2: records still unreadable with a one-token output cap."""
    return _run_judge(_make_records(), max_output=max_output).unreadable


_ANSWERS = _ReadOnlyDict(
    {
        "check_flagless_probability": _flagless_probability,
        "check_output_cap_unreadable": _output_cap_unreadable,
    }
)
"""Each check's right answer, computed (read by tests/test_course_read.py)."""
