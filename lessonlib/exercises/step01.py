"""Notebook 01 - exercise checks for notebooks/01_records.ipynb.

Each check prints ``PASS: ...`` or ``Not yet: ...`` (a hint) and returns True or False;
the right answer is computed here from lessonlib, never typed in.  A hint points
toward the idea, never at the code that computes the answer.
"""

from __future__ import annotations

from typing import Any

from .._frozen import ReadOnlyDict as _ReadOnlyDict
from ..records import FEATURES as _FEATURES
from ..records import is_harmful as _is_harmful
from ..records import make_records as _make_records
from ._common import _grade_number

__all__ = ["BIG_DRAW", "check_flagged_clean_count", "check_unflagged_harmful_count"]


# The larger draw of exercise 2: the lesson's 240 records hold only a handful of harmful
# records with no flag, a count a student could walk in a few tries; the first 2,400 records
# drawn with the lesson's seed (the 240 among them) hold enough for a count worth computing.
BIG_DRAW = 2400
"""Exercise 2 counts in the first ``BIG_DRAW`` records: ``make_records(BIG_DRAW)``."""


def _flagged_clean_count():
    """The answer of 01, exercise 1: clean records with at least one flag on."""
    return sum(1 for r in _make_records() if not _is_harmful(r) and r.features.on())


def _unflagged_harmful_count(records=None):
    """The answer of 01, exercise 2: harmful records of the larger draw with no flag on."""
    records = _make_records(BIG_DRAW) if records is None else records
    return sum(1 for r in records if _is_harmful(r) and not r.features.on())


def check_flagged_clean_count(answer: Any) -> bool:
    """01, exercise 1: how many clean records carry at least one flag?"""
    records = _make_records()
    clean = [r for r in records if not _is_harmful(r)]
    one_flag = {sum(1 for r in clean if r.features[f]) for f in _FEATURES}
    slips = [
        (
            lambda: len(clean),
            "that is every clean record. A clean record counts only when "
            "at least one of its seven flag columns is True.",
        ),
        (
            lambda: len(clean) - _flagged_clean_count(),
            "that is the clean records with NO flag at all - the other side of the question.",
        ),
        (
            lambda: sum(1 for r in records if r.features.on()),
            "that counts every record with a flag, harmful ones included. Keep only the "
            "records whose class is clean.",
        ),
        (
            lambda: sum(1 for r in records if _is_harmful(r) and r.features.on()),
            "that is the harmful records with a flag; the question is about the clean ones.",
        ),
    ] + [
        (
            n,
            "that is the clean records with ONE particular flag on; a record counts when "
            "ANY of its seven flags is on.",
        )
        for n in sorted(one_flag)
    ]
    return _grade_number(
        answer,
        _flagged_clean_count,
        places=None,
        fill="fill in answer: replace ... with the number of clean records "
        "with one or more of the seven flags switched on.",
        kind="a whole number of records",
        passed=lambda n: f"{n} of the {len(clean)} clean records carry at least one flag.",
        slips=slips,
        hint="not that count. A record counts when its class is clean and any of its "
        "seven flags is on; count them in df or records.",
    )


def check_unflagged_harmful_count(answer: Any) -> bool:
    """01, exercise 2: how many harmful records of the first ``BIG_DRAW`` carry no flag?"""
    records = _make_records(BIG_DRAW)
    harmful = [r for r in records if _is_harmful(r)]
    return _grade_number(
        answer,
        lambda: _unflagged_harmful_count(records),
        places=None,
        fill="fill in answer: replace ... with the number of harmful records "
        "with none of the seven flags switched on.",
        kind="a whole number of records",
        passed=lambda n: (
            f"{n} of the {len(harmful):,} harmful records among the first "
            f"{len(records):,} carry no flag: nothing in them tells a flag reader they "
            "are harmful, so only the human label knows."
        ),
        slips=[
            (
                _unflagged_harmful_count(_make_records()),
                "that is the count in the lesson's records. The question asks about the "
                f"larger draw, make_records({BIG_DRAW}).",
            ),
            (
                lambda: sum(1 for r in records if not r.features.on()),
                "that counts every record with no flag, clean ones included. Keep only the "
                "harmful records.",
            ),
            (
                lambda: len(harmful) - _unflagged_harmful_count(records),
                "that is the harmful records WITH a flag - the other side of the question.",
            ),
        ],
        hint="not that count. A record counts when its class is not clean and none of "
        "its seven flags is on.",
    )


_ANSWERS = _ReadOnlyDict(
    {
        "check_flagged_clean_count": _flagged_clean_count,
        "check_unflagged_harmful_count": _unflagged_harmful_count,
    }
)
"""Each check's right answer, computed (read by tests/test_course_read.py)."""
