"""Exercise checks for notebooks/16_labels_well_spent.ipynb.

Each check prints ``PASS: ...`` or ``Not yet: ...`` (a hint) and returns True or False;
the right answer is computed here from lessonlib, never typed in.
"""

from __future__ import annotations

import functools
from typing import Any

from .._frozen import ReadOnlyDict as _ReadOnlyDict
from ..labelling import design_labels_needed as _design_labels_needed
from ..weeks import true_rates as _true_rates
from ._common import _grade_number

__all__ = [
    "EXERCISE_SHARES",
    "EXERCISE_SLIP",
    "HALF_WIDTH",
    "check_neyman_labels",
    "check_slip_bias",
]

HALF_WIDTH = 0.02
"""Exercise 1: the interval's half-width, +- 0.02."""

EXERCISE_SHARES = (0.70, 0.06, 0.05, 0.05, 0.08, 0.06)
"""Exercise 2: this week's class mix (CLASSES order): a quieter week, 30% harmful."""
EXERCISE_SLIP = 0.07
"""Exercise 2: the person's chance of calling a record the other class."""


@functools.lru_cache(maxsize=1)
def _needed():
    return tuple(_design_labels_needed(HALF_WIDTH).items())


def _count(name):
    return dict(_needed())[name]


def _neyman_labels():
    """The answer of 16, exercise 1."""
    return _count("neyman (prior)")


def _slip_bias():
    """The answer of 16, exercise 2."""
    pi = _true_rates(EXERCISE_SHARES)["harmful"]
    return EXERCISE_SLIP * (1 - 2 * pi)


def check_neyman_labels(answer: Any) -> bool:
    """16, exercise 1: person labels Neyman allocation needs, with the spread choose_records
    uses (the clipped score's), for +- 0.02 on the harmful share (95%, a week of 5,000)."""

    def passed(truth):
        return (
            f"{truth:,} labels; proportional allocation needs {_count('proportional'):,}, "
            f"a random sample alone {_count('random'):,}, and Neyman with the true spread "
            f"(which nobody knows before labelling) {_count('neyman (true)'):,}."
        )

    other = "that count is another design's (or another spread's); the exercise asks for "
    return _grade_number(
        answer,
        _neyman_labels,
        places=None,
        fill="fill in my_labels: a whole number of person labels.",
        kind="the count as a whole number",
        passed=passed,
        slips=[
            (lambda: _count("proportional"), other + "Neyman's."),
            (lambda: _count("random"), other + "Neyman's."),
            (lambda: _count("neyman (true)"), other + "the spread known before any label."),
            (lambda: _count("neyman (score)"), other + "the clipped score's spread."),
            (
                lambda: _design_labels_needed(0.03)["neyman (prior)"],
                "that is the count for +- 0.03; the exercise asks for HALF_WIDTH.",
            ),
        ],
        hint="not yet. Ask design_labels_needed for the half-width HALF_WIDTH and read the "
        "design choose_records uses by default.",
    )


def check_slip_bias(answer: Any) -> bool:
    """16, exercise 2: a person who slips with chance EXERCISE_SLIP labels a week with
    EXERCISE_SHARES; in expectation, a correction's estimate less the true harmful share."""

    def passed(truth):
        pi = _true_rates(EXERCISE_SHARES)["harmful"]
        return (
            f"the person says harmful with chance pi (1 - e) + (1 - pi) e, so every correction "
            f"moves by e (1 - 2 pi) = {EXERCISE_SLIP} x (1 - 2 x {pi:.2f}) = {truth:+.4f}; "
            "more labels only narrow the interval round the wrong value."
        )

    return _grade_number(
        answer,
        _slip_bias,
        places=4,
        fill="fill in my_bias: a number, the expected estimate less the true harmful share.",
        kind="the bias as a number",
        passed=passed,
        slips=[
            (lambda: -_slip_bias(), "check the sign: the estimate less the truth."),
            (
                lambda: EXERCISE_SLIP * (1 - 2 * _true_rates()["harmful"]),
                "that uses the lesson's mix; the exercise's week has EXERCISE_SHARES.",
            ),
        ],
        hint="not yet. Write the chance that the person says harmful in terms of the true "
        "share and the slip chance, and subtract the true share (true_rates gives it).",
    )


_ANSWERS = _ReadOnlyDict(
    {
        "check_neyman_labels": _neyman_labels,
        "check_slip_bias": _slip_bias,
    }
)
"""Each check's right answer, computed (read by tests/test_course_read.py)."""
