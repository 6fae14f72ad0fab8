"""Exercise checks for notebooks/08_judge_score.ipynb.

Each check prints ``PASS: ...`` or ``Not yet: ...`` (a hint) and returns True or False;
the right answer is computed here from lessonlib, never typed in.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from typing import Any

from .._frozen import ReadOnlyDict
from ..records import Record, make_records
from ..score import brier, judge_probabilities, threshold_costs
from ..simulator import TEMPERATURE
from ._common import _grade_number

TEMPERATURES = (0.01, 3.0)
"""Exercise 2's range of temperatures: from 0.01 to 3.00, the answer to two decimals."""
STEP = 0.01
__all__ = ["TEMPERATURES", "check_best_temperature", "check_break_even"]


def _break_even_miss_cost(records: Sequence[Record] | None = None) -> float:
    """The cost of a miss (in false blocks) at which the cheapest threshold of the cost table
    (a miss costing one false block) stops being the only cheapest: the lowest miss cost at
    which a lower threshold costs as little."""
    records = make_records() if records is None else records
    probs = judge_probabilities(records)
    rows = threshold_costs([r.cls != "clean" for r in records], [probs[r.no] for r in records])
    best = min(rows, key=lambda row: row["cost"])  # the highest threshold on a tie
    ratios = [
        (row["false blocks"] - best["false blocks"]) / (best["misses"] - row["misses"])
        for row in rows
        if row["threshold"] < best["threshold"] and row["misses"] < best["misses"]
    ]
    return min(ratios)


@functools.lru_cache(maxsize=1)  # the same answer for every check: computed once a session
def _lesson_break_even() -> float:
    return _break_even_miss_cost()


def check_break_even(answer: Any) -> bool:
    """08, exercise 1: the miss cost at which blocking the one-flag records becomes as cheap
    as the cost table's best threshold at equal costs."""
    positive = "a cost is a positive number: one miss costs m false blocks, with m above zero."
    return _grade_number(
        answer,
        _lesson_break_even,
        places=2,  # two decimals are enough
        fill="fill in answer: how many false blocks one miss is worth at the "
        "break-even point (a number, not a threshold).",
        kind="a positive number: the cost of one miss, counted in false blocks",
        bounds=(0, math.inf),
        outside="is not a cost: " + positive,
        passed=lambda truth: (
            f"at a miss cost of {truth:.4f} false blocks the two thresholds cost "
            "the same; above it, blocking the one-flag records is cheaper."
        ),
        slips=[
            (0, positive),
            (
                lambda: 1 / _lesson_break_even(),
                "that is the cost of a false block counted in misses: turn the "
                "ratio the other way round.",
            ),
            (
                1,
                "at a miss cost of 1 the table's cheapest threshold is still the "
                "only cheapest: make a miss dearer, and solve for the cost at which "
                "the two thresholds tie.",
            ),
        ],
        below=(
            1,
            "a probability is not a cost. Write the cost of each of the two "
            "thresholds as false blocks + m x misses and solve for the m at "
            "which they are equal.",
        ),
        hint="not that cost. Take the cheapest threshold of the table and the one "
        "just below it; set false blocks + m x misses equal for the two and "
        "solve for m.",
    )


def _best_brier_temperature(records: Sequence[Record] | None = None) -> float:
    """The temperature of the range, in steps of 0.01, whose score has the lowest Brier score."""
    records = make_records() if records is None else records
    truth = [r.cls != "clean" for r in records]
    low, high = (round(t / STEP) for t in TEMPERATURES)
    scored = []
    for k in range(low, high + 1):
        probs = judge_probabilities(records, temperature=k * STEP)
        scored.append((brier(truth, [probs[r.no] for r in records]), k))
    return round(min(scored)[1] * STEP, 2)


@functools.lru_cache(maxsize=1)  # the same answer for every check: computed once a session
def _lesson_best_brier_temperature() -> float:
    return _best_brier_temperature()


def check_best_temperature(answer: Any) -> bool:
    """08, exercise 2: the temperature from 0.01 to 3.00 (two decimals) with the lowest Brier
    score."""
    return _grade_number(
        answer,
        _lesson_best_brier_temperature,
        places=2,
        fill="fill in answer: a temperature from 0.01 to 3.00, to two decimals.",
        kind="a number, one temperature from 0.01 to 3.00",
        bounds=TEMPERATURES,
        outside="is outside the range: the temperature runs from 0.01 to 3.00.",
        passed=lambda truth: (
            f"at temperature {truth:.2f} the score is best calibrated by the Brier score; "
            "its ranking, and so its AUC, is the same at every temperature above 0."
        ),
        slips=[
            (
                TEMPERATURE,
                "that is the lesson's temperature. Treat the Brier score as a function of "
                "the temperature and find where it is lowest.",
            )
        ],
        hint="not that temperature. Score the records with judge_probabilities at each "
        "temperature, take the Brier score against the human label, and minimise it over "
        "the range (a fine grid or a one-dimensional minimiser), to two decimals.",
    )


_ANSWERS = ReadOnlyDict(
    {
        "check_break_even": _lesson_break_even,
        "check_best_temperature": _lesson_best_brier_temperature,
    }
)
"""Each check's right answer, computed (read by tests/test_course_read.py)."""
