"""Exercise checks for notebooks/06_many_seeds.ipynb.

Each check prints ``PASS: ...`` or ``Not yet: ...`` (a hint) and returns True or False;
the right answer is computed here from lessonlib, never typed in.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterable, Sequence
from typing import Any

from .._frozen import ReadOnlyDict as _ReadOnlyDict
from ..criteria import rule_filter as _rule_filter
from ..many import run_judge_many as _run_judge_many
from ..metrics import measure as _measure
from ..records import SEED as _SEED
from ..records import Record as _Record
from ..records import make_records as _make_records
from ..variance import run_band as _run_band
from ._common import _grade_number

__all__ = ["EXERCISE_SEEDS", "GRID", "check_fbr_without_spurious", "check_overlap_temperature"]

EXERCISE_SEEDS = range(_SEED, _SEED + 1000)
"""Notebook 06's 1,000 seeds: the lesson's seed and the 999 after it."""


def _fbr_below_share_without_spurious(
    records: Sequence[_Record] | None = None, seeds: Iterable[int] = EXERCISE_SEEDS
) -> float:
    """Share of runs whose FBR is below the criteria's when the judge has no spurious cue."""
    records = _make_records() if records is None else records
    fp = _run_judge_many(records, seeds, spurious={}).confusion()[1]
    return float((fp < _measure(records, _rule_filter)["fp"]).mean())


@functools.lru_cache(maxsize=1)  # the same answer for every check: computed once a session
def _lesson_fbr_below_share() -> float:
    return _fbr_below_share_without_spurious()


def check_fbr_without_spurious(answer: Any) -> bool:
    """06, exercise 1: the share of the 1,000 runs (spurious cue off) with FBR below the
    criteria filter's."""
    return _grade_number(
        answer,
        _lesson_fbr_below_share,
        places=3,
        share=True,
        fill="fill in answer: a share between 0 and 1 (not a percentage) of the "
        "1,000 runs without the spurious cue.",
        kind="the share as a number between 0 and 1",
        passed=lambda truth: (
            f"without its spurious cue the judge blocks fewer clean records than "
            f"the criteria filter in a share of {truth:.3f} of the "
            f"{len(EXERCISE_SEEDS):,} runs."
        ),
        hint="not that share. It is the share of the runs that block strictly fewer "
        "clean records than the filter does (a tie is not below).",
    )


GRID = 0.05
"""The temperature grid of exercise 2."""


def _lowest_overlap_temperature(
    records: Sequence[_Record] | None = None,
    seeds: Iterable[int] = EXERCISE_SEEDS,
    step: float = GRID,
    top: float = 2.0,
) -> float | None:
    """Lowest temperature on a ``step`` grid whose 95% run band of recall reaches the
    criteria's."""
    records = _make_records() if records is None else records
    criteria = _measure(records, _rule_filter)["recall"]
    for t in [round(k * step, 10) for k in range(int(round(top / step)) + 1)]:
        recall = _run_judge_many(records, seeds, temperature=t).figures()["recall"]
        if _run_band(recall)[0] <= criteria:
            return t
    return None


@functools.lru_cache(maxsize=1)  # the same answer for every check: computed once a session
def _lesson_overlap_temperature() -> float | None:
    return _lowest_overlap_temperature()


def check_overlap_temperature(answer: Any) -> bool:
    """06, exercise 2: lowest temperature (steps of 0.05) where the recall gap is no longer
    clear."""
    return _grade_number(
        answer,
        _lesson_overlap_temperature,
        places=2,
        bounds=(0, math.inf),
        outside="is not on the grid: give 0, 0.05, 0.10, ...",
        grid=GRID,
        off_grid="is not on the grid: give 0, 0.05, 0.10, ...",
        fill="fill in answer: a temperature on the grid 0, 0.05, 0.10, ...",
        kind="the temperature as a number (0, 0.05, 0.10, ...)",
        passed=lambda truth: (
            f"{truth:.2f} is the lowest temperature in steps of {GRID:.2f} at "
            "which the low end of the judge's 95% run band of recall is at or below "
            "the criteria filter's recall."
        ),
        hint="not that temperature. Sweep the grid from 0 with the notebook's 1,000 "
        "seeds and compare the low end of each 95% run band of recall with the "
        "filter's recall.",
    )


_ANSWERS = _ReadOnlyDict(
    {
        "check_fbr_without_spurious": _lesson_fbr_below_share,
        "check_overlap_temperature": _lesson_overlap_temperature,
    }
)
"""Each check's right answer, computed (read by tests/test_course_read.py)."""
