"""Exercise checks for notebooks/15_production_week.ipynb.

Each check prints ``PASS: ...`` or ``Not yet: ...`` (a hint) and returns True or False;
the right answer is computed here from lessonlib, never typed in.
"""

from __future__ import annotations

from typing import Any

from .._frozen import ReadOnlyDict
from ..records import CLASS_SHARE
from ..weeks import labels_needed, true_rates
from ._common import _is_number, _is_whole, _say

__all__ = ["EXERCISE_SHARES", "HALF_WIDTH", "check_agreement_saving", "check_drift_bias"]

HALF_WIDTH = 0.02
"""Exercise 1: the interval's half-width, +- 0.02."""

EXERCISE_SHARES = (0.55, 0.10, 0.07, 0.07, 0.14, 0.07)
"""Exercise 2: this week's class mix (CLASSES order): source_spoofing doubled."""


def _needed(stand_in):
    return labels_needed(HALF_WIDTH, quantity="filter_right", stand_in=stand_in)


def _agreement_saving():
    """The answer of 15, exercise 1."""
    n = _needed("score")
    return n["labelled"] - n["ppi++"]


def _drift_bias():
    """The answer of 15, exercise 2."""
    week, lesson = true_rates(EXERCISE_SHARES), true_rates(CLASS_SHARE)
    return (week["judge_blocks"] - week["harmful"]) - (lesson["judge_blocks"] - lesson["harmful"])


def check_agreement_saving(answer: Any) -> bool:
    """15, exercise 1: person labels saved by PPI++ with the judge's score, against the
    person's sample alone, for +- 0.02 on the filter's agreement (95%, 5,000 judged records)."""
    if answer is ...:
        return _say(
            False,
            "fill in my_saving: a whole number of person labels, the sample alone's "
            "count less PPI++'s.",
        )
    if not _is_whole(answer):
        return _say(False, f"give the saving as a whole number, not {type(answer).__name__}.")
    truth = _agreement_saving()
    if answer == truth:
        n = _needed("score")
        return _say(
            True,
            f"the sample alone needs {n['labelled']} labels, PPI++ with the score "
            f"{n['ppi++']}: {truth} fewer, a share of {truth / n['labelled']:.3f} saved. "
            "The filter's agreement is a quantity where the judge helps little.",
        )
    needed = _needed("score")
    if answer == needed["ppi++"] or answer == needed["labelled"]:
        return _say(False, "that is one method's count; the saving is the difference of two.")
    label = _needed("label")
    if answer == label["labelled"] - label["ppi++"]:
        return _say(False, "that saving uses the judge's label; the exercise asks for its score.")
    if answer == -truth:
        return _say(False, "the saving is the sample alone's count less PPI++'s, not the reverse.")
    return _say(
        False,
        "not yet. Ask labels_needed for the filter's agreement (quantity 'filter_right') "
        "with the score as stand-in, at the half-width HALF_WIDTH, and subtract.",
    )


def check_drift_bias(answer: Any) -> bool:
    """15, exercise 2: in expectation, PPI (lam = 1, the judge's label) calibrated on records
    from the lesson's mix, used on a week with EXERCISE_SHARES: estimate minus the truth."""
    if answer is ...:
        return _say(
            False,
            "fill in my_bias: a number, the expected PPI estimate less the week's true "
            "harmful share.",
        )
    if not _is_number(answer):
        return _say(False, f"give the bias as a number, not {type(answer).__name__}.")
    truth = _drift_bias()
    if abs(answer - truth) <= 5e-4:
        week, lesson = true_rates(EXERCISE_SHARES), true_rates(CLASS_SHARE)
        return _say(
            True,
            f"the judge over-blocks by {week['judge_blocks'] - week['harmful']:.4f} this "
            f"week but by {lesson['judge_blocks'] - lesson['harmful']:.4f} on the lesson's "
            f"mix, so PPI's correction is off by {truth:+.4f}. Only this week's own sample "
            "measures this week's gap.",
        )
    if abs(answer + truth) <= 5e-4:
        return _say(False, "check the sign: the estimate less the truth.")
    return _say(
        False,
        "not yet. PPI adds the judge's share this week to the person-minus-judge gap "
        "measured on the lesson's mix; write its expectation with true_rates for both "
        "mixes and subtract the week's truth.",
    )


_ANSWERS = ReadOnlyDict(
    {
        "check_agreement_saving": _agreement_saving,
        "check_drift_bias": _drift_bias,
    }
)
"""Each check's right answer, computed (read by tests/test_course_read.py)."""
