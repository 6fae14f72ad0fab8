"""Exercise checks for notebooks/01_records.ipynb.

Each check prints ``PASS: ...`` or ``Not yet: ...`` (a hint) and returns True or False;
the right answer is computed here from lessonlib, never typed in.
"""

from __future__ import annotations

from .._checks import check_int
from ..records import RECORD_STRIDE, SEED, Record, draw_record, is_harmful, make_records
from ._common import _is_whole, _say


def check_flagged_clean_count(answer):
    """01, exercise 1: how many clean records carry at least one flag?"""
    records = make_records()
    clean = [r for r in records if not is_harmful(r)]
    truth = sum(1 for r in clean if r.features.on())
    flagged = sum(1 for r in records if r.features.on())
    if not _is_whole(answer):
        return _say(False, f"give a whole number (got {answer!r}). Hint: keep the rows of df "
                           "whose cls is 'clean', then count those with any flag set.")
    if answer == truth:
        return _say(True, f"{truth} of the {len(clean)} clean records carry at least one flag. "
                          "Any approach that reads every flag as a sign of harm is at risk of "
                          "blocking them - notebook 04 meets them again.")
    if answer == len(clean):
        return _say(False, "that is every clean record; count only those with at least one "
                           "flag set.")
    if answer == flagged:
        return _say(False, "that counts the harmful records too; keep only the clean ones.")
    return _say(False, f"{answer} is not it. Try df[df['cls'] == 'clean'][list(L.FEATURES)]"
                       ".any(axis=1).sum().")


def check_record(record, no=200):
    """01, exercise 2: build record number ``no`` on its own, without the ones before it."""
    check_int("no", no, minimum=1)
    truth = draw_record(no - 1)
    if not isinstance(record, Record):
        return _say(False, f"give a Record (got {type(record).__name__}). Hint: "
                           "lessonlib.records.draw_record(index) builds one record.")
    if record == truth:
        return _say(True, f"record {no} ({truth.cls}, source {truth.source}) comes from the "
                          f"generator seeded with SEED + {RECORD_STRIDE} * {no - 1} = "
                          f"{SEED + RECORD_STRIDE * (no - 1)} alone, so it never depends on "
                          "the records before it.")
    if record.no == no + 1:
        return _say(False, f"you built record {record.no}, one too far: draw_record(i) builds "
                           "record number i + 1 (record numbers start at 1, indexes at 0).")
    if record.no != no:
        return _say(False, f"you built record {record.no}; the exercise asks for record {no}.")
    return _say(False, f"right record number, but not the lesson's record {no}: was it drawn "
                       "from another seed? Use the lesson's SEED.")
