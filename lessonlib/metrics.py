"""How a decision is scored against the human label.

``decide`` is any function record -> bool (True = block as harmful): the rule
filter, or a judge run's ``decide``.  Rates are rounded to four places, as the
lesson rounds them.
"""

from __future__ import annotations

from collections.abc import Mapping

from ._checks import check_count, check_int, check_number, check_records
from .records import by_class, is_harmful


def _decide_checked(decide):
    if not callable(decide):
        raise TypeError(f"decide must be a function record -> bool, got {type(decide).__name__}")
    return decide


def confusion(records, decide):
    """Counts (tp, fp, fn, tn) of ``decide`` against the human label."""
    records = check_records(records)
    decide = _decide_checked(decide)
    tp = fp = fn = tn = 0
    for record in records:
        flagged, actual = bool(decide(record)), is_harmful(record)
        if flagged and actual:
            tp += 1
        elif flagged:
            fp += 1
        elif actual:
            fn += 1
        else:
            tn += 1
    return tp, fp, fn, tn


COUNTS = ("tp", "fp", "fn", "tn")


def share(part, whole):
    """``part / whole`` rounded to four places, as the lesson prints rates; 0.0 when whole is 0."""
    check_count("part", part, minimum=0)
    check_count("whole", whole, minimum=0)
    if part > whole:
        raise ValueError(f"part must be <= whole (a share of it), got {part} of {whole}")
    return round(part / whole, 4) if whole else 0.0


def measure(records, decide):
    """The four counts plus precision, recall and false block rate (rates rounded to 4 places).

    precision = tp / all blocked, recall = tp / all harmful, false block rate =
    fp / all clean.
    """
    counts = dict(zip(COUNTS, confusion(records, decide)))
    blocked = counts["tp"] + counts["fp"]
    harmful = counts["tp"] + counts["fn"]
    clean = counts["fp"] + counts["tn"]
    counts.update(precision=share(counts["tp"], blocked), recall=share(counts["tp"], harmful),
                  false_block_rate=share(counts["fp"], clean))
    return counts


def agreement(records, decide):
    """Share of records on which ``decide`` matches the human label (not rounded)."""
    records = check_records(records)
    decide = _decide_checked(decide)
    return sum(1 for r in records if bool(decide(r)) == is_harmful(r)) / len(records)


def class_recall(records, decide):
    """Per class: (number of records, share of them that ``decide`` blocks).

    For the harmful classes this is recall; for 'clean' it is the false block
    rate.  Classes with no record in ``records`` are left out.
    """
    groups = by_class(records)
    decide = _decide_checked(decide)
    return {cls: (len(members), sum(1 for r in members if decide(r)) / len(members))
            for cls, members in groups.items()}


def resolution(count):
    """The smallest step a rate over ``count`` records can move: 1 / count."""
    count = check_count("count", count, minimum=1)
    return 1 / count


def disagreements(labels_a, labels_b):
    """Record numbers whose label differs between two runs (same record numbers in both)."""
    for name, labels in (("labels_a", labels_a), ("labels_b", labels_b)):
        if not isinstance(labels, Mapping):
            raise TypeError(f"{name} must be a mapping record no -> label (e.g. a JudgeRun's "
                            f"labels), got {type(labels).__name__}")
    if set(labels_a) != set(labels_b):
        raise ValueError("labels_a and labels_b must cover the same record numbers")
    return [no for no in labels_a if labels_a[no] != labels_b[no]]


def steps(difference, count):
    """How many resolution steps (1 / ``count``) the rate ``difference`` spans.

    Rates over ``count`` records move in steps of 1 / count, so a difference
    between two such rates is a whole number of steps; the lesson's rates are
    rounded to four places, hence the rounding to the nearest whole step.
    The sign is kept: a fall gives a negative number of steps.
    """
    difference = check_number("difference", difference)
    check_int("count", count, minimum=1)
    return round(difference / resolution(count))
