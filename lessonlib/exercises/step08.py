"""Exercise checks for notebooks/08_judge_score.ipynb.

Each check prints ``PASS: ...`` or ``Not yet: ...`` (a hint) and returns True or False;
the right answer is computed here from lessonlib, never typed in.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from .._frozen import ReadOnlyDict
from ..records import Record, make_records
from ..score import aligned, best_threshold, brier, judge_probabilities, threshold_costs
from ..simulator import TEMPERATURE
from ._common import _is_number, _say

TEMPERATURE_GRID = tuple(round(0.1 * k, 1) for k in range(1, 21))
__all__ = [
    "TEMPERATURE_GRID",
    "best_brier_temperature",
    "break_even_miss_cost",
    "check_best_temperature",
    "check_break_even",
]
"""Exercise 2's grid: 0.1, 0.2, ..., 2.0."""


def break_even_miss_cost(records: Sequence[Record] | None = None) -> float:
    """The cost of a miss (in false blocks) at which the cheapest threshold of the cost table
    (a miss costing one false block) stops being the only cheapest: the lowest miss cost at
    which a lower threshold costs as little."""
    records = make_records() if records is None else records
    truth, scores = aligned(records, judge_probabilities(records))
    best = best_threshold(truth, scores, 1, 1)
    ratios = [
        (row["false blocks"] - best["false blocks"]) / (best["misses"] - row["misses"])
        for row in threshold_costs(truth, scores)
        if row["threshold"] < best["threshold"] and row["misses"] < best["misses"]
    ]
    return min(ratios)


def check_break_even(answer: Any) -> bool:
    """08, exercise 1: the miss cost at which blocking the one-flag records becomes as cheap
    as the cost table's best threshold at equal costs."""
    if answer is ...:
        return _say(
            False,
            "fill in answer: how many false blocks one miss is worth at the "
            "break-even point (a number, not a threshold).",
        )
    if not _is_number(answer):
        return _say(
            False,
            f"give a positive number: the cost of one miss, counted in false "
            f"blocks; got {answer!r}.",
        )
    if answer <= 0:
        return _say(
            False, "a cost is a positive number: one miss costs m false blocks, with m above zero."
        )
    truth = break_even_miss_cost()
    if abs(answer - truth) < 5e-3:  # two decimals are enough
        return _say(
            True,
            f"at a miss cost of {truth:.4f} false blocks the two thresholds cost "
            "the same; above it, blocking the one-flag records is cheaper.",
        )
    if abs(answer * truth - 1) < 1e-3:
        return _say(
            False,
            "that is the cost of a false block counted in misses: turn the "
            "ratio the other way round.",
        )
    if abs(answer - 1) < 1e-9:
        return _say(
            False,
            "at a miss cost of 1 the table's cheapest threshold is still the "
            "only cheapest: make a miss dearer, and solve for the cost at which "
            "the two thresholds tie.",
        )
    if answer < 1:
        return _say(
            False,
            "a probability is not a cost. Write the cost of each of the two "
            "thresholds as false blocks + m x misses and solve for the m at "
            "which they are equal.",
        )
    return _say(
        False,
        "not that cost. Take the cheapest threshold of the table and the one "
        "just below it; set false blocks + m x misses equal for the two and "
        "solve for m.",
    )


def best_brier_temperature(
    records: Sequence[Record] | None = None, grid: Iterable[float] = TEMPERATURE_GRID
) -> float:
    """The temperature on ``grid`` whose score has the lowest Brier score."""
    records = make_records() if records is None else records
    truth = [r.cls != "clean" for r in records]
    scored = [
        (brier(truth, aligned(records, judge_probabilities(records, temperature=t))[1]), t)
        for t in grid
    ]
    return min(scored)[1]


def check_best_temperature(answer: Any) -> bool:
    """08, exercise 2: the temperature on 0.1 .. 2.0 with the lowest Brier score."""
    if answer is ...:
        return _say(False, "fill in answer: a temperature on the grid 0.1, 0.2, ..., 2.0.")
    if not _is_number(answer):
        return _say(
            False,
            f"give a number, one temperature of the grid 0.1, 0.2, ..., 2.0; got {answer!r}.",
        )
    if not any(abs(answer - t) < 1e-9 for t in TEMPERATURE_GRID):
        return _say(
            False, "that temperature is not on the grid: it runs from 0.1 to 2.0 in steps of 0.1."
        )
    truth = best_brier_temperature()
    if abs(answer - truth) < 1e-9:
        return _say(
            True,
            f"at temperature {truth:.1f} the score is best calibrated by the "
            "Brier score; its ranking, and so its AUC, is the same at every "
            "temperature above 0.",
        )
    if abs(answer - TEMPERATURE) < 1e-9:
        return _say(
            False,
            "that is the lesson's temperature. Compute the Brier score at "
            "every temperature of the grid and keep the lowest.",
        )
    if abs(answer - truth) < 0.15:
        return _say(
            False,
            "close, but not the lowest: compare the Brier scores of "
            "neighbouring temperatures to more decimal places.",
        )
    return _say(
        False,
        "not that temperature. Compute judge_probabilities at every "
        "temperature of the grid, then the Brier score of each, and keep the "
        "lowest.",
    )


_ANSWERS = ReadOnlyDict(
    {
        "check_break_even": break_even_miss_cost,
        "check_best_temperature": best_brier_temperature,
    }
)
"""Each check's right answer, computed (read by tests/test_course_read.py)."""
