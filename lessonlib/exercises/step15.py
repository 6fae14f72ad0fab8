"""Exercise checks for notebooks/15_production_week.ipynb.

Each check prints ``PASS: ...`` or ``Not yet: ...`` (a hint) and returns True or False;
the right answer is computed here from lessonlib, never typed in.
"""

from __future__ import annotations

import functools
import math
from typing import Any

from .._frozen import ReadOnlyDict as _ReadOnlyDict
from ..records import CLASS_SHARE as _CLASS_SHARE
from ..truth import population_figures as _population_figures
from ..weeks import labels_needed as _labels_needed
from ..weeks import true_rates as _true_rates
from ._common import _grade_number

__all__ = [
    "EXERCISE_SHARES",
    "HALF_WIDTH",
    "SIMULATED_WEEKS",
    "check_agreement_saving",
    "check_drift_bias",
]

HALF_WIDTH = 0.02
"""Exercise 1: the interval's half-width, +- 0.02."""

EXERCISE_SHARES = (0.55, 0.10, 0.07, 0.07, 0.14, 0.07)
"""Exercise 2: this week's class mix (CLASSES order): source_spoofing doubled."""

SIMULATED_WEEKS = 1000
"""Exercise 2: a simulated answer over this many weeks (or more) passes within its error."""


def _needed(stand_in):
    return _labels_needed(HALF_WIDTH, quantity="filter_right", stand_in=stand_in)


def _agreement_saving():
    """The answer of 15, exercise 1."""
    n = _needed("score")
    return n["labelled"] - n["ppi++"]


def _drift_bias():
    """The answer of 15, exercise 2."""
    week, lesson = _true_rates(EXERCISE_SHARES), _true_rates(_CLASS_SHARE)
    return (week["judge_blocks"] - week["harmful"]) - (lesson["judge_blocks"] - lesson["harmful"])


@functools.lru_cache(maxsize=1)
def _simulation_error():
    """Two standard errors of the mean PPI estimate over SIMULATED_WEEKS simulated weeks of
    exercise 2 (200 labels from the lesson's mix, a rest of 4,800 from EXERCISE_SHARES, the
    judge's label), from the exact moments: a simulated answer this close to the exact one
    passes."""
    week, lesson = _true_rates(EXERCISE_SHARES), _true_rates(_CLASS_SHARE)
    judge = _population_figures()["judge"]
    q = week["judge_blocks"]
    gap = lesson["harmful"] - lesson["judge_blocks"]  # mean of person - judge, old mix
    var_gap = (1 - judge["agreement"]) - gap * gap  # (person - judge)^2 is 1 where they differ
    per_week = math.sqrt(q * (1 - q) / 4800 + var_gap / 200)
    return 2 * per_week / math.sqrt(SIMULATED_WEEKS)


def check_agreement_saving(answer: Any) -> bool:
    """15, exercise 1: person labels saved by PPI++ with the judge's score, against the
    person's sample alone, for +- 0.02 on the filter's agreement (95%, 5,000 judged records)."""

    def passed(truth):
        n = _needed("score")
        return (
            f"the sample alone needs {n['labelled']} labels, PPI++ with the score "
            f"{n['ppi++']}: {truth} fewer, a share of {truth / n['labelled']:.3f} saved. "
            "The filter's agreement is a quantity where the judge helps little."
        )

    one = "that is one method's count; the saving is the difference of two."
    return _grade_number(
        answer,
        _agreement_saving,
        places=None,
        fill="fill in my_saving: a whole number of person labels, the sample alone's "
        "count less PPI++'s.",
        kind="the saving as a whole number",
        passed=passed,
        slips=[
            (lambda: _needed("score")["ppi++"], one),
            (lambda: _needed("score")["labelled"], one),
            (
                lambda: _needed("label")["labelled"] - _needed("label")["ppi++"],
                "that saving uses the judge's label; the exercise asks for its score.",
            ),
            (
                lambda: -_agreement_saving(),
                "the saving is the sample alone's count less PPI++'s, not the reverse.",
            ),
        ],
        hint="not yet. Ask labels_needed for the filter's agreement (quantity "
        "'filter_right') with the score as stand-in, at the half-width HALF_WIDTH, "
        "and subtract.",
    )


def check_drift_bias(answer: Any) -> bool:
    """15, exercise 2: in expectation, PPI (lam = 1, the judge's label) calibrated on records
    from the lesson's mix, used on a week with EXERCISE_SHARES: estimate minus the truth."""

    def passed(truth):
        week, lesson = _true_rates(EXERCISE_SHARES), _true_rates(_CLASS_SHARE)
        return (
            f"the judge over-blocks by {week['judge_blocks'] - week['harmful']:.4f} this "
            f"week but by {lesson['judge_blocks'] - lesson['harmful']:.4f} on the lesson's "
            f"mix, so PPI's correction is off by {truth:+.4f}. Only this week's own sample "
            "measures this week's gap."
        )

    return _grade_number(
        answer,
        _drift_bias,
        places=3,
        fill="fill in my_bias: a number, the expected PPI estimate less the week's true "
        "harmful share.",
        kind="the bias as a number",
        passed=passed,
        within=_simulation_error,
        slips=[(lambda: -_drift_bias(), "check the sign: the estimate less the truth.")],
        hint="not yet. The exact expectation is asked (3 decimals), or a simulation of "
        f"{SIMULATED_WEEKS:,} weeks or more within its error. PPI adds the judge's share "
        "this week to the person-minus-judge gap measured on the lesson's mix; write its "
        "expectation with true_rates for both mixes and subtract the week's truth.",
    )


_ANSWERS = _ReadOnlyDict(
    {
        "check_agreement_saving": _agreement_saving,
        "check_drift_bias": _drift_bias,
    }
)
"""Each check's right answer, computed (read by tests/test_course_read.py)."""
