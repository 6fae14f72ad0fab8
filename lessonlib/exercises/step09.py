"""Exercise checks for notebooks/09_cascade_designs.ipynb.

Each check prints ``PASS: ...`` or ``Not yet: ...`` (a hint) and returns True or False;
the right answer is computed here from lessonlib, never typed in.
"""

from __future__ import annotations

import functools
from typing import Any

from .._frozen import ReadOnlyDict as _ReadOnlyDict
from ..designs import cascade as _cascade
from ..judge import run_judge as _run_judge
from ..records import SEED as _SEED
from ..records import make_records as _make_records
from ._common import _grade_number

__all__ = ["BIG_DRAW", "check_calls_saved"]

BIG_DRAW = 2400
"""The exercise runs on the first ``BIG_DRAW`` records: ``make_records(BIG_DRAW)``, the
lesson's 240 and the 2,160 after them."""


@functools.lru_cache(maxsize=2)  # the same two runs for every answer checked: once a session
def _runs(n=BIG_DRAW):
    records = _make_records(n)
    return _run_judge(records, _SEED), _cascade(records, _SEED)


def _calls_saved(n=BIG_DRAW):
    """Judge calls the cascade (filter, then judge) saves against the judge alone on the
    first ``n`` records, at the lesson's seed."""
    alone, first = _runs(n)
    return alone.calls - first.calls


def _blocked(n=BIG_DRAW):
    return len(_runs(n)[1].blocked)


def check_calls_saved(answer: Any) -> bool:
    """09, exercise 1: the judge calls the cascade saves against the judge alone on
    ``make_records(BIG_DRAW)`` at the lesson's seed."""
    return _grade_number(
        answer,
        _calls_saved,
        places=None,
        fill=f"fill in answer: a whole number, the judge calls 'filter, then judge' "
        f"saves against 'judge alone' on make_records({BIG_DRAW}) at the lesson's seed.",
        kind="a whole number of calls",
        passed=lambda n: (
            f"the cascade makes {n} fewer calls: the filter's blocks are never asked, "
            "and fewer records asked also means fewer asked again."
        ),
        slips=(
            (
                _blocked,
                "that counts the records the filter blocks. A call is a record asked or "
                "asked again: compare the two runs' calls.",
            ),
            (
                lambda: _calls_saved(240),
                f"that is the saving on the lesson's 240 records; the question asks about "
                f"make_records({BIG_DRAW}).",
            ),
        ),
        hint="not that count. Run both designs on the same records and seed and compare "
        "the calls each run reports.",
    )


_ANSWERS = _ReadOnlyDict({"check_calls_saved": _calls_saved})
"""Each check's right answer, computed (read by tests/test_course_read.py)."""
