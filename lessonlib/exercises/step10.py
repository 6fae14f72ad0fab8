"""Exercise checks for notebooks/10_judge_panel.ipynb.

Each check prints ``PASS: ...`` or ``Not yet: ...`` (a hint) and returns True or False;
the right answer is computed here from lessonlib, never typed in.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .._frozen import ReadOnlyDict as _ReadOnlyDict
from ..criteria import DEFAULT_RULES as _DEFAULT_RULES
from ..criteria import rule_filter as _rule_filter
from ..panel import JUDGE_NAMES as _JUDGE_NAMES
from ..panel import Panel as _Panel
from ..panel import judge_models as _judge_models
from ..records import SEED as _SEED
from ..records import Record as _Record
from ..records import make_records as _make_records
from ..simulator import FLAG_WORD as _FLAG_WORD
from ._common import _grade_number, _say

__all__ = ["MAJORITY", "UNANIMOUS", "check_rule_ask", "check_vetoed"]


def check_rule_ask(ask: Any) -> bool:
    """10, exercise 1: an ask that answers like the rule filter, run as a one-judge panel."""
    if ask is Ellipsis:
        return _say(
            False,
            "fill in my_ask: a function ask(prompt, seed) that returns the "
            "reply text, 'zararli' or 'temiz'.",
        )
    if not callable(ask):
        return _say(
            False,
            f"my_ask must be a function ask(prompt, seed) that returns "
            f"'zararli' or 'temiz' (got {type(ask).__name__}).",
        )
    records = _make_records()
    try:
        run = _Panel([ask]).run(records, _SEED)
    except Exception as error:  # the student's code may fail in any way: give a hint
        return _say(
            False,
            f"calling your ask failed ({type(error).__name__}: {error}). The "
            "panel calls it with the prompt text and a whole number, and reads "
            "the text it returns.",
        )
    if run.unreadable:
        return _say(
            False,
            f"{run.unreadable} replies carried no label the reader knows (the "
            "panel counted them harmful, its default). Reply with exactly one "
            "of the two Turkish labels.",
        )
    wrong = [r for r in records if run.decide(r) != _rule_filter(r)]
    if wrong:
        first = wrong[0]
        does = "blocks" if _rule_filter(first) else "lets through"
        return _say(
            False,
            f"{len(wrong)} of the {len(records)} records are decided unlike "
            f"the rule filter; the first is record {first.no}, which the filter "
            f"{does}. Print that record's prompt: which of its words could the "
            "filter's rules be reading?",
        )
    return _say(
        True,
        f"run as a one-judge panel, your ask decides all {len(records)} records "
        f"as the rule filter does ({run.calls} calls).",
    )


MAJORITY, UNANIMOUS = 0.5, 1.0
"""The two bars of exercise 2."""


def _vetoed_records(records: Sequence[_Record] | None = None, seed: int = _SEED) -> list[int]:
    """Records the four-judge panel (every judge of JUDGES, quorum 1) flags at
    min_agreement 0.5 but not at 1.0, at ``seed``."""
    records = _make_records() if records is None else records
    majority, unanimous = (
        _Panel(_judge_models(*_JUDGE_NAMES), min_agreement=m).run(records, seed)
        for m in (MAJORITY, UNANIMOUS)
    )
    return [r.no for r in records if majority.decide(r) and not unanimous.decide(r)]


def check_vetoed(answer: Any) -> bool:
    """10, exercise 2: how many records one dissenting judge clears when the four-judge
    panel must be unanimous."""
    return _grade_number(
        answer,
        _vetoed,
        places=None,
        fill=f"fill in vetoed: a whole number, the count of records the "
        f"four-judge panel flags at min_agreement {MAJORITY} and not at "
        f"{UNANIMOUS}.",
        kind="a whole number of records",
        passed=lambda n: (
            f"the {len(_JUDGE_NAMES)}-judge panel flags {n} records at "
            f"min_agreement {MAJORITY} and not at {UNANIMOUS}: on each of them "
            "at least half of the judges flag and at least one does not."
        ),
        hint="not that count. With four judges the panel share of a record is 0, 1/4, "
        "1/2, 3/4 or 1: count the records whose share reaches 0.5 and not 1.0.",
    )


def _rule_ask_answer():
    """A right answer of 10, exercise 1: an ask that reads the four rule words in the prompt."""
    words = {_FLAG_WORD[f] for f in _DEFAULT_RULES}

    def ask(prompt, seed):
        return "zararli" if words & set(prompt.split()) else "temiz"

    return ask


def _vetoed():
    """The answer of 10, exercise 2."""
    return len(_vetoed_records())


_ANSWERS = _ReadOnlyDict(
    {
        "check_rule_ask": _rule_ask_answer,
        "check_vetoed": _vetoed,
    }
)
"""Each check's right answer, computed (read by tests/test_course_read.py)."""
