"""Notebook 02 - exercise checks for notebooks/02_criteria_filter.ipynb.

Each check prints ``PASS: ...`` or ``Not yet: ...`` (a hint) and returns True or False;
the right answer is computed here from lessonlib, never typed in.  A hint points
toward the idea, never at the code that computes the answer.
"""

from __future__ import annotations

from typing import Any

from .._checks import check_number as _check_number
from .._frozen import ReadOnlyDict as _ReadOnlyDict
from ..criteria import DEFAULT_RULES as _DEFAULT_RULES
from ..criteria import make_rule_filter as _make_rule_filter
from ..metrics import agreement as _agreement
from ..metrics import class_recall as _class_recall
from ..metrics import measure as _measure
from ..records import FEATURES as _FEATURES
from ..records import is_harmful as _is_harmful
from ..records import make_records as _make_records
from ._common import _grade_number, _names, _names_hint, _say

__all__ = ["check_corrupted_rule", "check_no_rule_agreement"]


def check_corrupted_rule(rules: Any, max_fbr: float = 0.20) -> bool:
    """02: add ONE rule that closes most of the corrupted_input gap, FBR <= ``max_fbr``."""
    max_fbr = _check_number("max_fbr", max_fbr, minimum=0.0)
    records = _make_records()
    if rules is ...:
        return _say(
            False,
            "fill in answer: replace ... with a tuple of flag names, the four "
            "default rules plus the one flag you add.",
        )
    names = _names(rules)
    if names is None:
        return _say(
            False,
            "give the rules as a tuple of flag names, e.g. DEFAULT_RULES + ('a_flag_name',).",
        )
    hint = _names_hint(
        names,
        _FEATURES,
        "unknown flag name(s) {}; the flags are: " + ", ".join(_FEATURES) + ".",
        _DEFAULT_RULES,
        "keep the four default rules (missing: {}) and add one.",
    )
    if hint:
        return _say(False, hint)
    extra = list(dict.fromkeys(n for n in names if n not in _DEFAULT_RULES))
    if not extra:
        return _say(
            False,
            "these are the four default rules only: add one flag name, e.g. "
            "DEFAULT_RULES + ('a_flag_name',).",
        )
    if len(extra) > 1:
        return _say(
            False,
            f"you added {len(extra)} rules ({', '.join(extra)}); the exercise "
            "asks for exactly one.",
        )

    def score(flag):
        decide = _make_rule_filter(_DEFAULT_RULES + (flag,))
        return (
            _class_recall(records, decide)["corrupted_input"][1],
            _measure(records, decide)["false_block_rate"],
        )

    base = _class_recall(records, _make_rule_filter(_DEFAULT_RULES))["corrupted_input"][1]
    candidates = {f: score(f) for f in _FEATURES if f not in _DEFAULT_RULES}
    allowed = {f: s for f, s in candidates.items() if s[1] <= max_fbr}
    best = max((s[0] for s in allowed.values()), default=None)
    recall, fbr = candidates[extra[0]]
    if fbr > max_fbr:
        return _say(
            False,
            f"with {extra[0]} corrupted_input recall rises to {recall:.4f}, but "
            f"the false block rate becomes {fbr:.4f}, above {max_fbr:.2f}. "
            "It buys recall with too many clean records: which flag "
            "catches this class at a lower cost in clean ones?",
        )
    if recall <= base:
        return _say(
            False,
            f"{extra[0]} leaves corrupted_input recall at {recall:.4f}. Which "
            "flags does this class carry? Look at PROFILE['corrupted_input'].",
        )
    if recall < best:
        return _say(
            False,
            f"{extra[0]} lifts corrupted_input recall to {recall:.4f}; another "
            f"single rule gets further within the {max_fbr:.2f} limit.",
        )
    return _say(
        True,
        f"adding {extra[0]} lifts corrupted_input recall from {base:.4f} to "
        f"{recall:.4f} while the false block rate is {fbr:.4f} "
        f"(<= {max_fbr:.2f}); no other single added rule lifts it further "
        "within that limit.",
    )


def check_no_rule_agreement(answer: Any) -> bool:
    """02, exercise 2: the agreement of a filter with no rules (it blocks nothing)."""
    records = _make_records()
    clean = sum(1 for r in records if not _is_harmful(r))
    return _grade_number(
        answer,
        _no_rule_agreement,
        share=True,
        fill="fill in answer: replace ... with the agreement with the human label "
        "of a filter that has no rules, as a share between 0 and 1.",
        kind="the agreement as a number between 0 and 1",
        passed=lambda truth: (
            f"a filter with no rules blocks nothing and is right on exactly the "
            f"{clean} clean records: agreement {clean}/{len(records)} = {truth:.4f}."
        ),
        slips=[
            (
                clean,
                "that is a number of records; agreement is a share of all the records.",
            ),
            (
                len(records) - clean,
                "that is a number of records; agreement is a share of all the records.",
            ),
            (
                0,
                "blocking nothing is not always wrong: on which records is "
                "'not harmful' the right decision?",
            ),
            (
                lambda: 1 - _no_rule_agreement(),
                "that is what a filter that blocks EVERYTHING gets right. This one "
                "blocks nothing.",
            ),
            (
                lambda: _agreement(records, _make_rule_filter(_DEFAULT_RULES)),
                "that is the agreement of the four rules. Take them all away: a filter "
                "with no rules never blocks.",
            ),
        ],
        hint="not that share. Agreement is the share of records whose decision matches "
        "the human label; a filter with no rules never blocks.",
    )


def _corrupted_rule():
    """The answer of 02, exercise 1: the default rules plus the one flag that lifts
    corrupted_input recall most with the false block rate at or below 0.20."""
    records = _make_records()
    best = None
    for flag in _FEATURES:
        if flag in _DEFAULT_RULES:
            continue
        decide = _make_rule_filter(_DEFAULT_RULES + (flag,))
        recall = _class_recall(records, decide)["corrupted_input"][1]
        if _measure(records, decide)["false_block_rate"] <= 0.20 and (
            best is None or recall > best[0]
        ):
            best = (recall, flag)
    assert best is not None, "some flag keeps the false block rate <= 0.20"
    return _DEFAULT_RULES + (best[1],)


def _no_rule_agreement():
    """The answer of 02, exercise 2: the agreement of a filter that blocks nothing."""
    records = _make_records()
    return _agreement(records, _make_rule_filter(()))


_ANSWERS = _ReadOnlyDict(
    {
        "check_corrupted_rule": _corrupted_rule,
        "check_no_rule_agreement": _no_rule_agreement,
    }
)
"""Each check's right answer, computed (read by tests/test_course_read.py)."""
