"""Notebook 02 - how a decision is scored against the human label.

``decide`` is any function record -> bool (True = block as harmful): the rule
filter, or a judge run's ``decide``.  Rates are rounded to four places, as the
lesson rounds them.
"""

from __future__ import annotations

from ._checks import check_callable, check_items
from .records import Record, by_class, is_harmful

COUNTS = ("tp", "fp", "fn", "tn")


def _checked(records, decide):
    """The door's check of measure, agreement and class_recall."""
    return (check_items("records", records, Record),
            check_callable("decide", decide, "a function record -> bool"))


def confusion(records, decide):
    """Counts (tp, fp, fn, tn) of ``decide`` against the human label."""
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


def share(part, whole):
    """``part / whole`` rounded to four places, as the lesson prints rates; 0.0 when whole is 0."""
    return round(part / whole, 4) if whole else 0.0


def measure(records, decide):
    """The four counts plus precision, recall and false block rate, rounded (notebook 02).

    precision = tp / all blocked, recall = tp / all harmful, false block rate =
    fp / all clean.
    """
    counts = dict(zip(COUNTS, confusion(*_checked(records, decide))))
    tp, fp, fn, tn = counts.values()
    counts.update(precision=share(tp, tp + fp), recall=share(tp, tp + fn),
                  false_block_rate=share(fp, fp + tn))
    return counts


def agreement(records, decide):
    """Share of records on which ``decide`` matches the human label, not rounded (notebook 02)."""
    records, decide = _checked(records, decide)
    return sum(1 for r in records if bool(decide(r)) == is_harmful(r)) / len(records)


def class_recall(records, decide):
    """Per class: (number of records, share of them that ``decide`` blocks) (notebook 02).

    For the harmful classes this is recall; for 'clean' it is the false block
    rate.  Classes with no record in ``records`` are left out.
    """
    records, decide = _checked(records, decide)
    return {cls: (len(members), sum(1 for r in members if decide(r)) / len(members))
            for cls, members in by_class(records).items()}


def resolution(count):
    """The smallest step a rate over ``count`` records can move: 1 / count (notebook 05)."""
    return 1 / count


def disagreements(labels_a, labels_b):
    """Record numbers whose label differs between two runs (notebook 04)."""
    if set(labels_a) != set(labels_b):
        raise ValueError("labels_a and labels_b must cover the same record numbers")
    return [no for no in labels_a if labels_a[no] != labels_b[no]]


def steps(difference, count):
    """How many resolution steps (1 / ``count``) the rate ``difference`` spans (notebook 04).

    Rates over ``count`` records move in steps of 1 / count, so a difference
    between two such rates is a whole number of steps; the lesson's rates are
    rounded to four places, hence the rounding to the nearest whole step.
    The sign is kept: a fall gives a negative number of steps.
    """
    return round(difference / resolution(count))
