"""Exercise checks for notebooks/06_many_seeds.ipynb.

Each check prints ``PASS: ...`` or ``Not yet: ...`` (a hint) and returns True or False;
the right answer is computed here from lessonlib, never typed in.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from .._checks import check_number
from .._frozen import ReadOnlyDict
from ..many import run_judge_many
from ..records import SEED, Record, check_records, make_records
from ..variance import criteria_figures, fbr_comparison, temperature_sweep
from ._common import _is_number, _say

__all__ = [
    "EXERCISE_SEEDS",
    "check_fbr_without_spurious",
    "check_overlap_temperature",
    "fbr_below_share_without_spurious",
    "lowest_overlap_temperature",
]

EXERCISE_SEEDS = range(SEED, SEED + 1000)
"""Notebook 06's 1,000 seeds: the lesson's seed and the 999 after it."""


def fbr_below_share_without_spurious(
    records: Sequence[Record] | None = None, seeds: Iterable[int] = EXERCISE_SEEDS
) -> float:
    """Share of runs whose FBR is below the criteria's when the judge has no spurious cue."""
    records = make_records() if records is None else records
    return fbr_comparison(records, run_judge_many(records, seeds, spurious={}))[
        "share judge below"
    ]


def check_fbr_without_spurious(answer: Any) -> bool:
    """06, exercise 1: the share of the 1,000 runs (spurious cue off) with FBR below the
    criteria filter's."""
    if answer is ...:
        return _say(
            False,
            "fill in answer: a share between 0 and 1 (not a percentage) of the "
            "1,000 runs without the spurious cue.",
        )
    if not _is_number(answer):
        return _say(
            False, f"give the share as a number between 0 and 1, not {type(answer).__name__}."
        )
    if not 0 <= answer <= 1:
        return _say(
            False,
            f"{answer!r} is not a share: give a number between 0 and 1, not a "
            "percentage or a count of runs.",
        )
    truth = fbr_below_share_without_spurious()
    if _is_number(answer) and answer >= 0 and abs(answer - truth) < 5e-4:
        return _say(
            True,
            f"without its spurious cue the judge blocks fewer clean records than "
            f"the criteria filter in a share of {truth:.3f} of the "
            f"{len(EXERCISE_SEEDS):,} runs.",
        )
    return _say(
        False,
        "compare each run's count of blocked clean records with the filter's "
        "and count only the runs strictly below it (a tie is not below); give "
        "a share between 0 and 1, not a percentage.",
    )


GRID = 0.05
"""The temperature grid of exercise 2."""


def lowest_overlap_temperature(
    records: Sequence[Record] | None = None,
    seeds: Iterable[int] = EXERCISE_SEEDS,
    step: float = GRID,
    top: float = 2.0,
) -> float | None:
    """Lowest temperature on a ``step`` grid whose 95% run band of recall reaches the
    criteria's."""
    step = check_number("step", step)
    if step <= 0:
        raise ValueError(f"step must be a number > 0, got {step!r}")
    top = check_number("top", top, minimum=0.0)
    records = make_records() if records is None else check_records(records)
    criteria = criteria_figures(records)["recall"]
    grid = [round(k * step, 10) for k in range(int(round(top / step)) + 1)]
    for row in temperature_sweep(records, grid, seeds):
        if row["recall low"] <= criteria:
            return row["temperature"]
    return None


def check_overlap_temperature(answer: Any) -> bool:
    """06, exercise 2: lowest temperature (steps of 0.05) where the recall gap is no longer
    clear."""
    if answer is ...:
        return _say(False, "fill in answer: a temperature on the grid 0, 0.05, 0.10, ...")
    if not _is_number(answer):
        return _say(
            False,
            f"give the temperature as a number (0, 0.05, 0.10, ...), not {type(answer).__name__}.",
        )
    truth = lowest_overlap_temperature() if _is_number(answer) and answer >= 0 else None
    if truth is not None and abs(answer - truth) < 1e-9:
        return _say(
            True,
            f"{truth:.2f} is the lowest temperature in steps of {GRID:.2f} at "
            "which the low end of the judge's 95% run band of recall is at or below "
            "the criteria filter's recall.",
        )
    return _say(
        False,
        "not that temperature. The plot's 0.1 grid brackets the answer; look "
        "between its points in steps of 0.05 and take the first temperature "
        "where the band's low end is at or below the filter's recall.",
    )


_ANSWERS = ReadOnlyDict(
    {
        "check_fbr_without_spurious": fbr_below_share_without_spurious,
        "check_overlap_temperature": lowest_overlap_temperature,
    }
)
"""Each check's right answer, computed (read by tests/test_course_read.py)."""
