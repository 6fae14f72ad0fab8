"""Exercise checks for notebooks/05_class_breakdown.ipynb.

Each check prints ``PASS: ...`` or ``Not yet: ...`` (a hint) and returns True or False;
the right answer is computed here from lessonlib, never typed in.
"""

from __future__ import annotations

from typing import Any

from .._frozen import ReadOnlyDict as _ReadOnlyDict
from ..criteria import DEFAULT_RULES as _DEFAULT_RULES
from ..criteria import make_rule_filter as _make_rule_filter
from ..judge import run_judge as _run_judge
from ..metrics import class_recall as _class_recall
from ..metrics import resolution as _resolution
from ..metrics import steps as _steps
from ..records import CLASSES as _CLASSES
from ..records import SEED as _SEED
from ..records import make_records as _make_records
from ._common import _grade_numbers, _names, _names_hint, _say

__all__ = ["check_class_run_steps", "check_classes_beyond_one_step"]


def _class_counts(records):
    return {c: n for c, (n, _) in _class_recall(records, lambda r: False).items()}


def _class_run_steps(records=None):
    """The answer of 05, exercise 1: per harmful class, the judge's recall of run 2
    (SEED + 1) minus run 1 (SEED), in steps of the class's resolution."""
    records = _make_records() if records is None else records
    run1 = _class_recall(records, _run_judge(records, _SEED).decide)
    run2 = _class_recall(records, _run_judge(records, _SEED + 1).decide)
    return {c: _steps(run2[c][1] - run1[c][1], run1[c][0]) for c in _CLASSES[1:] if c in run1}


def check_class_run_steps(answer: Any) -> bool:
    """05, exercise 1: the judge's two-run difference class by class, in steps."""
    records = _make_records()
    counts = _class_counts(records)
    wanted = [c for c in _CLASSES[1:] if c in counts]

    def passed(truth):
        moved = {c: n for c, n in truth.items() if n}
        big = max(wanted, key=lambda c: (abs(truth[c]), -counts[c]))
        detail = ", ".join(f"{c} {n:+d}" for c, n in moved.items()) or "no class"
        return (
            f"between run 1 and run 2 recall moves {detail} (in steps); the largest "
            f"move, {abs(truth[big])} step(s) on {big} ({counts[big]} records), is "
            f"{abs(truth[big]) * _resolution(counts[big]):.4f} of recall: a class "
            "difference of that size can come from the seed alone."
        )

    return _grade_numbers(
        answer,
        lambda: _class_run_steps(records),
        keys=wanted,
        places=None,
        fill="fill in my_steps: a dict from each harmful class name to a whole "
        "number of steps, recall of run 2 minus recall of run 1.",
        kind="a dict from class name to a whole number of steps",
        keys_hint=lambda names: _names_hint(
            names,
            wanted,
            "unknown or non-harmful class name(s) {}; the harmful classes are: "
            + ", ".join(wanted)
            + ".",
            wanted,
            "still missing: {}. Every harmful class has its own row.",
        ),
        element=lambda cls, value: (
            f"{cls}: give a whole number of steps (one step is one record "
            f"of the class), got {value!r}."
        ),
        passed=passed,
        sign="mind the sign: recall of run 2 minus recall of run 1.",
        hint="not those steps. Each row is the class's recall in the second run minus its "
        "recall in the first, counted in steps of that class's own resolution.",
    )


def check_classes_beyond_one_step(classes: Any) -> bool:
    """05, exercise 2: the harmful classes whose criteria/judge recall gap exceeds one step."""
    records = _make_records()
    run = _run_judge(records, _SEED)
    by_rule = _class_recall(records, _make_rule_filter(_DEFAULT_RULES))
    by_judge = _class_recall(records, run.decide)
    gap = {
        c: abs(_steps(by_judge[c][1] - by_rule[c][1], by_rule[c][0]))
        for c in _CLASSES[1:]
        if c in by_rule
    }
    truth = {c for c, n in gap.items() if n > 1}
    if classes is ...:
        return _say(False, "fill in my_classes: a set of harmful class names.")
    names = _names(classes)
    if names is None:
        return _say(False, f"give a set of class names (strings), got {classes!r}.")
    hint = _names_hint(
        names,
        tuple(gap),
        "unknown or non-harmful class name(s) {}; the "
        "harmful classes are: " + ", ".join(gap) + ".",
    )
    if hint:
        return _say(False, hint)
    if set(names) != truth:
        return _say(
            False,
            "not that set. Count each class's difference between the filter and the "
            "judge in steps of that class's own resolution, every row of the table, "
            "and keep the classes where it is more than one step either way.",
        )
    detail = ", ".join(f"{c} {gap[c]} steps" for c in gap if c in truth)
    rest = max((n for c, n in gap.items() if c not in truth), default=0)
    return _say(
        True,
        f"{detail}. Every other row differs by at most {rest} step(s) of its class's resolution.",
    )


def _classes_beyond_one_step():
    """The answer of 05, exercise 2: the harmful classes whose criteria/judge recall gap is
    more than one step."""
    records = _make_records()
    decide = _run_judge(records, _SEED).decide
    by_rule = _class_recall(records, _make_rule_filter(_DEFAULT_RULES))
    by_judge = _class_recall(records, decide)
    return {
        c
        for c in _CLASSES[1:]
        if c in by_rule and abs(_steps(by_judge[c][1] - by_rule[c][1], by_rule[c][0])) > 1
    }


_ANSWERS = _ReadOnlyDict(
    {
        "check_class_run_steps": _class_run_steps,
        "check_classes_beyond_one_step": _classes_beyond_one_step,
    }
)
"""Each check's right answer, computed (read by tests/test_course_read.py)."""
