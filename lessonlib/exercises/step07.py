"""Exercise checks for notebooks/07_records_sample.ipynb.

Each check prints ``PASS: ...`` or ``Not yet: ...`` (a hint) and returns True or False;
the right answer is computed here from lessonlib, never typed in, by a private function
registered in ``_ANSWERS``.  A hint names the method, not the steps.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from typing import Any

from .._frozen import ReadOnlyDict as _ReadOnlyDict
from ..criteria import rule_filter as _rule_filter
from ..judge import run_judge as _run_judge
from ..records import SEED as _SEED
from ..records import Record as _Record
from ..records import is_harmful as _is_harmful
from ..records import make_records as _make_records
from ..sample import paired_bootstrap as _paired_bootstrap
from ..sample import records_needed as _records_needed
from ._common import _grade_number, _grade_numbers

FBR_GUESS, HALF_WIDTH = 0.16, 0.02
"""Exercise 1: a false block rate near 0.16, to be known to +/- 0.02 (at the 95% level)."""
COLD = 0.0
"""Exercise 2: the judge at temperature 0, the most likely label every time."""
_CLOSE = 0.01
"""Exercise 2: ends this near the band (but not on it) get the "close" hint: a band drawn
with other resamples moves its ends by about this much."""
__all__ = ["COLD", "FBR_GUESS", "HALF_WIDTH", "check_cold_fbr_band", "check_records_to_label"]


def _records_to_label(
    records: Sequence[_Record] | None = None, p: float = FBR_GUESS, half_width: float = HALF_WIDTH
) -> int:
    """07, exercise 1: records to label by hand so that the clean ones among them (the clean
    share of ``records``) are enough for a false block rate near ``p`` to +/- ``half_width``."""
    records = _make_records() if records is None else records
    clean_share = sum(1 for r in records if not _is_harmful(r)) / len(records)
    return math.ceil(_records_needed(p, half_width) / clean_share)


def check_records_to_label(answer: Any) -> bool:
    """07, exercise 1: how many records in all a team must label by hand."""
    clean = _records_needed(FBR_GUESS, HALF_WIDTH)
    return _grade_number(
        answer,
        _records_to_label,
        places=None,
        slack=1,
        fill="fill in answer: a whole number of records to label by hand.",
        kind="a whole number of records",
        passed=lambda truth: (
            f"about {truth:,} records: {clean:,} clean ones for the false block "
            f"rate, and only a share of what is labelled turns out clean."
        ),
        slips=[
            (
                clean,
                "that is how many clean records the rate counts. The team labels "
                "records before it knows which are clean: how many must it label "
                "so that enough of them are clean?",
            )
        ],
        below=(
            clean,
            "too few: the false block rate counts only clean records, and "
            "they are only a share of the records a team labels.",
        ),
        hint="not that number. Two ideas meet here: records needed for a rate "
        "(the normal approximation), and which records that rate counts.",
    )


def _cold_fbr_band(records: Sequence[_Record] | None = None, temperature: float = COLD) -> tuple:
    """07, exercise 2: the records' band of the false block rate of the judge at
    ``temperature`` (one run, the lesson's seed) minus the filter's, with the defaults."""
    records = _make_records() if records is None else records
    run = _run_judge(records, _SEED, temperature=temperature)
    truth = [_is_harmful(r) for r in records]
    return _paired_bootstrap(
        truth,
        [run.decide(r) for r in records],
        [_rule_filter(r) for r in records],
        "false_block_rate",
    )


@functools.lru_cache(maxsize=1)  # the same band for every answer: computed once a session
def _lesson_cold_fbr_band() -> tuple:
    return _cold_fbr_band()


def check_cold_fbr_band(answer: Any) -> bool:
    """07, exercise 2: (low, high), the records' band of FBR(cold judge) - FBR(filter)."""
    return _grade_numbers(
        answer,
        _lesson_cold_fbr_band,
        places=4,
        fill="fill in answer = (low, high): the two ends of a records' band, low first.",
        kind="two numbers in parentheses, (low, high)",
        unordered="the low end comes first.",
        passed=lambda band: (
            f"the band runs from {band[0]:+.4f} to {band[1]:+.4f} and stays above "
            "zero: the judge at temperature 0 blocks measurably more clean "
            "records than the filter. With no seed noise, its one run is its "
            "seed-averaged decision: the band answers both questions at once."
        ),
        slips=[
            (
                lambda: tuple(-end for end in reversed(_lesson_cold_fbr_band())),
                "the band has the wrong sign: take the judge's rate minus the "
                "filter's (the judge as a, the filter as b).",
            )
        ],
        close=(
            _CLOSE,
            "close, but not the band itself: a band drawn with other "
            "resamples moves a little. Keep paired_bootstrap's defaults.",
        ),
        hint="not that band. The question is about one run of the cold judge "
        "against the filter on the same records: a records' band of the "
        "paired difference, judge minus filter, false block rate.",
    )


_ANSWERS = _ReadOnlyDict(
    {
        "check_records_to_label": _records_to_label,
        "check_cold_fbr_band": _cold_fbr_band,
    }
)
"""Each check's right answer, computed (read by tests/test_course_read.py)."""
