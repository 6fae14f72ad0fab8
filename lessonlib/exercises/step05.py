"""Exercise checks for notebooks/05_class_breakdown.ipynb.

Each check prints ``PASS: ...`` or ``Not yet: ...`` (a hint) and returns True or False;
the right answer is computed here from lessonlib, never typed in.
"""

from __future__ import annotations

from collections.abc import Mapping

from ..criteria import DEFAULT_RULES, make_rule_filter
from ..judge import run_judge
from ..metrics import class_recall, resolution, steps
from ..records import CLASSES, SEED, make_records
from ._common import _is_number, _names, _names_hint, _say

__all__ = ["check_class_resolutions", "check_classes_beyond_one_step"]


def _class_counts(records):
    return {c: n for c, (n, _) in class_recall(records, lambda r: False).items()}


def check_class_resolutions(answer):
    """05, exercise 1: every harmful class's recall resolution (1 / its record count)."""
    counts = _class_counts(make_records())
    wanted = [c for c in CLASSES[1:] if c in counts]
    if answer is ... or answer is None:
        return _say(False, "fill in my_resolutions: a dict from each harmful class name to "
                           "its recall resolution (a number).")
    if not isinstance(answer, Mapping):
        return _say(False, f"give a dict from class name to resolution, got "
                           f"{type(answer).__name__}.")
    hint = _names_hint(tuple(answer), CLASSES,
                       "unknown class name(s) {}; the harmful classes are: "
                       + ", ".join(wanted) + ".",
                       wanted, "still missing: {}. Every harmful class has its own "
                               "resolution.")
    if hint:
        return _say(False, hint)
    for cls in list(wanted) + (["clean"] if "clean" in answer else []):
        value = answer[cls]
        if not _is_number(value) or abs(value - resolution(counts[cls])) > 5e-5:
            return _say(False, f"{cls}: {value!r} is not its resolution. Ask how far one "
                               "record moves the class's recall.")
    coarsest = max(wanted, key=lambda c: resolution(counts[c]))
    finest = min(wanted, key=lambda c: resolution(counts[c]))
    return _say(True, f"every resolution is right. The coarsest class is {coarsest} "
                      f"({counts[coarsest]} records, one step = "
                      f"{resolution(counts[coarsest]):.4f}), the finest {finest} "
                      f"({counts[finest]} records, {resolution(counts[finest]):.4f}).")


def check_classes_beyond_one_step(classes):
    """05, exercise 2: the harmful classes whose criteria/judge recall gap exceeds one step."""
    records = make_records()
    run = run_judge(records, SEED)
    by_rule = class_recall(records, make_rule_filter(DEFAULT_RULES))
    by_judge = class_recall(records, run.decide)
    gap = {c: abs(steps(by_judge[c][1] - by_rule[c][1], by_rule[c][0]))
           for c in CLASSES[1:] if c in by_rule}
    truth = {c for c, n in gap.items() if n > 1}
    if classes is ... or classes is None:
        return _say(False, "fill in my_classes: a set of harmful class names.")
    names = _names(classes)
    if names is None:
        return _say(False, f"give a set of class names (strings), got {classes!r}.")
    hint = _names_hint(names, tuple(gap), "unknown or non-harmful class name(s) {}; the "
                                          "harmful classes are: " + ", ".join(gap) + ".")
    if hint:
        return _say(False, hint)
    extra = [c for c in gap if c in names and c not in truth]
    if extra:
        return _say(False, "; ".join(f"{c} differs by {gap[c]} step(s)" for c in extra)
                    + " - that is not more than one.")
    if set(names) != truth:
        return _say(False, f"you have {len(set(names)) - len(extra)} of the {len(truth)} "
                           "classes. Count every row's difference in steps of that row's own "
                           "resolution, not only the rows the notebook discussed.")
    detail = ", ".join(f"{c} {gap[c]} steps" for c in gap if c in truth)
    rest = max((n for c, n in gap.items() if c not in truth), default=0)
    return _say(True, f"{detail}. Every other row differs by at most {rest} step(s) of its "
                      "class's resolution.")
