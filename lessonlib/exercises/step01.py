"""Notebook 01 - exercise checks for notebooks/01_records.ipynb.

Each check prints ``PASS: ...`` or ``Not yet: ...`` (a hint) and returns True or False;
the right answer is computed here from lessonlib, never typed in.  A hint points
toward the idea, never at the code that computes the answer.
"""

from __future__ import annotations

from typing import Any

from .._frozen import ReadOnlyDict
from ..records import is_harmful, make_records
from ._common import _is_whole, _say

__all__ = ["check_flagged_clean_count", "check_unflagged_harmful_count"]


def flagged_clean_count():
    """The answer of 01, exercise 1: clean records with at least one flag on."""
    return sum(1 for r in make_records() if not is_harmful(r) and r.features.on())


def unflagged_harmful_count():
    """The answer of 01, exercise 2: harmful records with no flag on at all."""
    return sum(1 for r in make_records() if is_harmful(r) and not r.features.on())


def check_flagged_clean_count(answer: Any) -> bool:
    """01, exercise 1: how many clean records carry at least one flag?"""
    records = make_records()
    clean = [r for r in records if not is_harmful(r)]
    truth = flagged_clean_count()
    if answer is ...:
        return _say(
            False,
            "fill in answer: replace ... with the number of clean records "
            "with one or more of the seven flags switched on.",
        )
    if not _is_whole(answer):
        return _say(False, f"give a whole number of records (got {answer!r}).")
    if answer == truth:
        return _say(True, f"{truth} of the {len(clean)} clean records carry at least one flag.")
    if answer == len(clean):
        return _say(
            False,
            f"{answer} is every clean record. A clean record counts only when "
            "at least one of its seven flag columns is True.",
        )
    if answer == len(clean) - truth:
        return _say(
            False,
            f"{answer} is the clean records with NO flag at all - the other side of the question.",
        )
    if answer == sum(1 for r in records if r.features.on()):
        return _say(
            False,
            f"{answer} counts every record with a flag, harmful ones included. "
            "Keep only the records whose class is clean.",
        )
    if answer == sum(1 for r in records if is_harmful(r) and r.features.on()):
        return _say(
            False,
            f"{answer} is the harmful records with a flag; the question is about the clean ones.",
        )
    if 0 <= answer < truth:
        return _say(
            False,
            f"{answer} is too few. Did you look at one flag only? A record "
            "counts when ANY of its seven flags is on.",
        )
    return _say(
        False,
        f"{answer} is not it. Keep the clean records, then count those with "
        "at least one flag on (any of the seven).",
    )


def check_unflagged_harmful_count(answer: Any) -> bool:
    """01, exercise 2: how many harmful records carry no flag at all?"""
    records = make_records()
    truth = unflagged_harmful_count()
    if answer is ...:
        return _say(
            False,
            "fill in answer: replace ... with the number of harmful records "
            "with none of the seven flags switched on.",
        )
    if not _is_whole(answer):
        return _say(False, f"give a whole number of records (got {type(answer).__name__}).")
    harmful = [r for r in records if is_harmful(r)]
    if answer == truth:
        return _say(
            True,
            f"{truth} of the {len(harmful)} harmful records carry no flag: "
            "nothing in them tells a flag reader they are harmful, so only "
            "the human label knows.",
        )
    if answer == sum(1 for r in records if not r.features.on()):
        return _say(
            False,
            f"{answer} counts every record with no flag, clean ones included. "
            "Keep only the harmful records.",
        )
    if answer == len(harmful) - truth:
        return _say(
            False, f"{answer} is the harmful records WITH a flag - the other side of the question."
        )
    return _say(
        False,
        f"{answer} is not it. Keep the records whose class is not clean, then "
        "count those whose seven flags are all off.",
    )


_ANSWERS = ReadOnlyDict(
    {
        "check_flagged_clean_count": flagged_clean_count,
        "check_unflagged_harmful_count": unflagged_harmful_count,
    }
)
"""Each check's right answer, computed (read by tests/test_course_read.py)."""
