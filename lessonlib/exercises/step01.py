"""Notebook 01 - exercise checks for notebooks/01_records.ipynb.

Each check prints ``PASS: ...`` or ``Not yet: ...`` (a hint) and returns True or False;
the right answer is computed here from lessonlib, never typed in.  A hint points
toward the idea, never at the code that computes the answer.
"""

from __future__ import annotations

from .._checks import check_int
from ..records import RECORD_STRIDE, SEED, draw_record, is_harmful, make_records
from ._common import _is_whole, _say

__all__ = ["check_flagged_clean_count", "check_record_seed"]


def check_flagged_clean_count(answer):
    """01, exercise 1: how many clean records carry at least one flag?"""
    records = make_records()
    clean = [r for r in records if not is_harmful(r)]
    truth = sum(1 for r in clean if r.features.on())
    if answer is None or answer is ...:
        return _say(False, "put a whole number in place of None: the number of clean records "
                           "with one or more of the seven flags switched on.")
    if not _is_whole(answer):
        return _say(False, f"give a whole number of records (got {answer!r}).")
    if answer == truth:
        return _say(True, f"{truth} of the {len(clean)} clean records carry at least one flag.")
    if answer == len(clean):
        return _say(False, f"{answer} is every clean record. A clean record counts only when "
                           "at least one of its seven flag columns is True.")
    if answer == len(clean) - truth:
        return _say(False, f"{answer} is the clean records with NO flag at all - the other "
                           "side of the question.")
    if answer == sum(1 for r in records if r.features.on()):
        return _say(False, f"{answer} counts every record with a flag, harmful ones included. "
                           "Keep only the records whose class is clean.")
    if answer == sum(1 for r in records if is_harmful(r) and r.features.on()):
        return _say(False, f"{answer} is the harmful records with a flag; the question is "
                           "about the clean ones.")
    if 0 <= answer < truth:
        return _say(False, f"{answer} is too few. Did you look at one flag only? A record "
                           "counts when ANY of its seven flags is on.")
    return _say(False, f"{answer} is not it. Keep the clean records, then count those with "
                       "at least one flag on (any of the seven).")


def check_record_seed(answer, no=200):
    """01, exercise 2: the seed of record number ``no``'s own generator."""
    no = check_int("no", no, minimum=1)
    truth = SEED + RECORD_STRIDE * (no - 1)
    if answer is None or answer is ...:
        return _say(False, f"put a whole number in place of None: the seed that record number "
                           f"{no}'s own generator starts from.")
    if not _is_whole(answer):
        return _say(False, f"give the seed as a whole number (got {answer!r}).")
    if answer == truth:
        record = draw_record(no - 1)
        return _say(True, f"record {no} ({record.cls}) is drawn from its own generator, "
                          f"seeded with {truth}.")
    if answer == SEED + RECORD_STRIDE * no:
        return _say(False, f"{answer} is the seed of record {no + 1}, one too far: record "
                           "numbers start at 1, the index i in the formula starts at 0.")
    if answer == RECORD_STRIDE * (no - 1) or answer == RECORD_STRIDE * no:
        return _say(False, f"{answer} is only the stride part; the formula starts from the "
                           "lesson's SEED.")
    if answer == SEED:
        return _say(False, f"{answer} is the lesson's SEED itself, the seed of record 1 only. "
                           "Each later record moves the seed on by the stride.")
    return _say(False, f"{answer} is not it. The notebook gives the seed of record i + 1 as a "
                       f"formula of its index i; which index does record {no} have?")
