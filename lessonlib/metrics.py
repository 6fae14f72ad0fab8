"""Notebook 02 - how a decision (a function record -> bool, True = block) is scored."""

from __future__ import annotations

from collections import Counter

from ._checks import check_callable
from .records import by_class, check_records, is_harmful

COUNTS = ("tp", "fp", "fn", "tn")


def _checked(records, decide):
    """The door's check of measure, agreement and class_recall."""
    return check_records(records), check_callable("decide", decide, "a function record -> bool")


def confusion(records, decide):
    """Counts (tp, fp, fn, tn) of ``decide`` against the human label (notebook 02)."""
    pairs = Counter((bool(decide(r)), is_harmful(r)) for r in records)
    return pairs[True, True], pairs[True, False], pairs[False, True], pairs[False, False]


def share(part, whole):
    """``part / whole`` rounded to four places, as the lesson prints rates; 0.0 when whole is 0."""
    return round(part / whole, 4) if whole else 0.0


def measure(records, decide):
    """The four counts plus precision, recall and false block rate, rounded (notebook 02)."""
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
    """Per class present: (number of records, share that ``decide`` blocks) (notebook 02)."""
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
    """Whole steps of 1 / ``count`` that the rate ``difference`` spans, sign kept (notebook 04)."""
    return round(difference / resolution(count))
