"""Notebook 03 - exercise checks for notebooks/03_judge_simulator.ipynb.

Each check prints ``PASS: ...`` or ``Not yet: ...`` (a hint) and returns True or False;
the right answer is computed here from lessonlib, never typed in.  A hint points
toward the idea, never at the code that computes the answer.
"""

from __future__ import annotations

from typing import Any

from .._checks import check_int
from .._frozen import ReadOnlyDict
from ..judge import HARMFUL, build_prompt, run_judge
from ..metrics import measure
from ..records import make_records
from ..simulator import TEMPERATURE, label_probabilities
from ._common import _is_number, _is_whole, _say

__all__ = ["CLOSE", "check_flagless_probability", "check_output_cap_unreadable"]

CLOSE = 5e-5
"""An answer within this of the truth passes: a share rounded to four places is right."""


def _flagless_clean(records):
    return next(r for r in records if r.cls == "clean" and not r.features.on())


def check_flagless_probability(answer: Any) -> bool:
    """03, exercise 1: P('zararli') at the lesson's temperature for a record with no flag."""
    records = make_records()
    record = _flagless_clean(records)
    prompt = build_prompt(record)
    truth = label_probabilities(prompt, TEMPERATURE)[HARMFUL]
    prior_only = label_probabilities(prompt, TEMPERATURE, cues={}, spurious={})[HARMFUL]
    one_flag = next(
        label_probabilities(build_prompt(r), TEMPERATURE)[HARMFUL]
        for r in records
        if r.cls == "clean"
        and len(r.features.on()) == 1
        and r.features["excessive_length"] is False
    )
    if answer is ...:
        return _say(
            False,
            "fill in answer: replace ... with the probability (between 0 and 1) "
            "that the judge answers zararli, at temperature 0.30, for a record "
            "with no flag switched on.",
        )
    if not _is_number(answer):
        return _say(False, f"give a probability, a number between 0 and 1 (got {answer!r}).")
    if abs(answer - truth) < CLOSE:
        return _say(
            True,
            f"for a record with no flag (record {record.no} is one) the judge "
            f"answers zararli with probability {truth:.4f} at temperature "
            f"{TEMPERATURE:.2f}.",
        )
    if abs(answer - truth) < 1e-3:
        return _say(False, f"{answer} is close; give the probability to four decimal places.")
    if abs(answer - (1 - truth)) < CLOSE:
        return _say(False, f"{answer} is the probability of the other label, temiz.")
    if abs(answer - 100 * truth) < 5e-3:
        return _say(False, "that looks like a percentage; give a share between 0 and 1.")
    if abs(answer - prior_only) < CLOSE:
        return _say(
            False,
            f"{answer} is what the prior alone gives. Look at the prompt of a "
            "record with no flag: the word written in place of the flags is "
            "itself in the cue table.",
        )
    if abs(answer - one_flag) < CLOSE:
        return _say(
            False,
            f"{answer} is the probability for a record with ONE real flag. "
            "With no flag, which word takes the flags' place in the prompt, "
            "and which label does it pull toward?",
        )
    if answer == 0:
        return _say(
            False,
            "0 is what temperature 0 would give. At the lesson's 0.30 the "
            "softmax leaves every label some chance: small, but not zero.",
        )
    if not 0 <= answer <= 1:
        return _say(False, f"{answer} is not a probability; give a number between 0 and 1.")
    return _say(
        False,
        f"{answer} is not it. Add up the prior and the cue weights for each "
        "label of a flagless prompt, then turn the two scores into "
        "probabilities at temperature 0.30.",
    )


def check_output_cap_unreadable(answer: Any, max_output: int = 1) -> bool:
    """03, exercise 2: with ``max_output`` = 1, how many records stay unreadable?"""
    max_output = check_int("max_output", max_output, minimum=1)
    if answer is ...:
        return _say(
            False,
            f"fill in answer: replace ... with how many of the records "
            f"are still unreadable after the retry when no reply may be longer "
            f"than {max_output} output token" + ("s." if max_output > 1 else "."),
        )
    if not _is_whole(answer):
        return _say(False, f"give a whole number of records (got {answer!r}).")
    records = make_records()
    run = run_judge(records, max_output=max_output)
    if answer == run.unreadable:
        recall = measure(records, run.decide)["recall"]
        return _say(
            True,
            f"{run.unreadable} records stay unreadable after the retry and are "
            f"counted clean; recall of this run is {recall:.4f}.",
        )
    if answer == run.retries:
        return _say(
            False,
            f"{answer} is the number of retries. Some retried records were "
            "read on the second try; count the ones still unreadable after it.",
        )
    if answer == 0:
        return _say(
            False,
            "a cap of one token cuts any reply longer than one token. Tokenize "
            "the two labels: does each fit in one token?",
        )
    return _say(
        False,
        f"{answer} is not it. Which of the two labels survives a one-token cap? "
        "Each record whose answer is the other one ends up unreadable, unless "
        "a retry changes the answer.",
    )


def flagless_probability():
    """The answer of 03, exercise 1: P('zararli') at the lesson's temperature, no flag on."""
    prompt = build_prompt(_flagless_clean(make_records()))
    return label_probabilities(prompt, TEMPERATURE)[HARMFUL]


def output_cap_unreadable(max_output=1):
    """The answer of 03, exercise 2: records still unreadable with a one-token output cap."""
    return run_judge(make_records(), max_output=max_output).unreadable


_ANSWERS = ReadOnlyDict(
    {
        "check_flagless_probability": flagless_probability,
        "check_output_cap_unreadable": output_cap_unreadable,
    }
)
"""Each check's right answer, computed (read by tests/test_course_read.py)."""
