"""Notebook 02 - how a decision (a function record -> bool, True = block) is scored.

The one home of the course's figures: :data:`FIGURES` names each figure and its titles,
:func:`rates` turns the four counts into the figures (for one run, or for arrays of runs).
Every table, plot and explorer takes its figure names and titles from here.
"""

from __future__ import annotations

import numbers
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ._checks import check_callable
from ._frozen import ReadOnlyDict
from .criteria import lesson_rules, rule_filter
from .judge import Run
from .records import Record, by_class, check_records, is_harmful

if TYPE_CHECKING:
    import numpy as np

__all__ = [
    "COUNTS",
    "FIGURES",
    "RATES",
    "Figure",
    "agreement",
    "class_recall",
    "confusion",
    "disagreements",
    "measure",
    "rates",
    "resolution",
    "share",
    "steps",
    "trusted",
]

COUNTS = ("tp", "fp", "fn", "tn")


@dataclass(frozen=True)
class Figure:
    """How a figure is printed: its ``title`` and a ``short`` one for narrow columns."""

    title: str
    short: str


FIGURES = ReadOnlyDict(
    {
        "precision": Figure("precision", "precision"),
        "recall": Figure("recall", "recall"),
        "false_block_rate": Figure("false block rate", "FBR"),
        "agreement": Figure("agreement", "agreement"),
    }
)
"""The course's four figures, in the order the lesson prints them: name -> :class:`Figure`.
The three rates are rounded to four places (:func:`share`); agreement is not."""
RATES = ("precision", "recall", "false_block_rate")
"""The figures of :data:`FIGURES` that ``measure`` gives (rounded rates)."""


def _checked(records, decide):
    """The door's check of measure, agreement and class_recall: once per call, not per record."""
    records = check_records(records)
    return records, trusted(records, check_callable("decide", decide, "a function record -> bool"))


def trusted(
    records: Sequence[Record], decide: Callable[[Record], bool]
) -> Callable[[Record], bool]:
    """``decide`` for checked ``records`` without its own per-record door checks: a run's
    ``decide`` checks once here that the records are the run's own (else ValueError); the
    lesson's rule filter needs no check.  Any other function is returned as it is."""
    if getattr(decide, "__func__", None) is Run.decide:
        return decide.__self__._decider(records)  # type: ignore[attr-defined]
    return lesson_rules if decide is rule_filter else decide


def confusion(
    records: Iterable[Record], decide: Callable[[Record], bool]
) -> tuple[int, int, int, int]:
    """Counts (tp, fp, fn, tn) of ``decide`` against the human label (notebook 02)."""
    pairs = Counter((bool(decide(r)), is_harmful(r)) for r in records)
    return pairs[True, True], pairs[True, False], pairs[False, True], pairs[False, False]


def share(part: float, whole: float) -> float:
    """``part / whole`` rounded to four places, as the lesson prints rates; 0.0 when whole is 0."""
    return round(part / whole, 4) if whole else 0.0


def _exact(part, whole):
    return part / whole if whole else 0.0


def rates(
    tp: int | np.ndarray,
    fp: int | np.ndarray,
    fn: int | np.ndarray,
    tn: int | np.ndarray,
    *,
    rounded: bool = True,
) -> dict[str, Any]:
    """The four figures from the four counts: ``{name: value}`` in :data:`FIGURES` order.

    Precision, recall and false block rate are rounded by :func:`share` (``rounded=False``:
    not rounded, still 0.0 where a rate has no denominator); agreement is never rounded.
    The counts are ints (one run) or numpy integer arrays of one shape (many runs, e.g.
    :meth:`ManyRuns.confusion`); then each figure is an array of that shape, and each
    distinct (tp, fp, fn, tn) is rounded by ``share`` once, as Python rounds.  With
    ``rounded=False`` the arrays may also hold expected counts (floats).  Notebook 02.
    """
    counts = (tp, fp, fn, tn)
    if all(isinstance(c, numbers.Integral) for c in counts):
        ratio: Callable[[Any, Any], float] = share if rounded else _exact
        total = tp + fp + fn + tn
        return {
            "precision": ratio(tp, tp + fp),
            "recall": ratio(tp, tp + fn),
            "false_block_rate": ratio(fp, fp + tn),
            "agreement": (tp + tn) / total if total else 0.0,
        }
    return _rates_array(counts, rounded)


def _rates_array(counts, rounded):
    """:func:`rates` for arrays of counts (numpy is imported here, not by the core path)."""
    import numpy as np

    # expected counts (floats: a decision per record given as a share) are never rounded
    kind = np.int64 if rounded else np.float64
    counts = np.stack(np.broadcast_arrays(*(np.asarray(c, dtype=kind) for c in counts)))
    tp, fp, fn, tn = counts
    total = tp + fp + fn + tn
    agree = np.divide(tp + tn, total, out=np.zeros(total.shape), where=total > 0)
    if not rounded:

        def ratio(num, den):
            return np.divide(num, den, out=np.zeros(num.shape), where=den > 0)

        out = (ratio(tp, tp + fp), ratio(tp, tp + fn), ratio(fp, fp + tn))
    else:
        flat = counts.reshape(4, -1)
        rows, inverse = np.unique(flat, axis=1, return_inverse=True)
        table = np.array(
            [
                (share(a, a + b), share(a, a + c), share(b, b + d))
                for a, b, c, d in rows.T.tolist()
            ],
            dtype=float,
        ).reshape(-1, 3)
        out = tuple(col[inverse.reshape(-1)].reshape(tp.shape) for col in table.T)
    return dict(zip(FIGURES, (*out, agree)))


def measure(records: Sequence[Record], decide: Callable[[Record], bool]) -> dict[str, Any]:
    """The four counts plus precision, recall and false block rate, rounded (notebook 02)."""
    return _measure(*_checked(records, decide))


def _measure(records, decide):
    """:func:`measure` for checked arguments (the library's own callers)."""
    counts = dict(zip(COUNTS, confusion(records, decide)))
    figures = rates(*counts.values())
    counts.update((name, figures[name]) for name in RATES)
    return counts


def agreement(records: Sequence[Record], decide: Callable[[Record], bool]) -> float:
    """Share of records on which ``decide`` matches the human label, not rounded (notebook 02)."""
    return _agreement(*_checked(records, decide))


def _agreement(records, decide):
    return sum(1 for r in records if bool(decide(r)) == is_harmful(r)) / len(records)


def class_recall(
    records: Sequence[Record], decide: Callable[[Record], bool]
) -> dict[str, tuple[int, float]]:
    """Per class present: (number of records, share that ``decide`` blocks) (notebook 02)."""
    return _class_recall(*_checked(records, decide))


def _class_recall(records, decide):
    return {
        cls: (len(members), sum(1 for r in members if decide(r)) / len(members))
        for cls, members in by_class(records).items()
    }


def resolution(count: int) -> float:
    """The smallest step a rate over ``count`` records can move: 1 / count (notebook 05)."""
    return 1 / count


def disagreements(labels_a: Mapping[int, str], labels_b: Mapping[int, str]) -> list[int]:
    """Record numbers whose label differs between two runs (notebook 04)."""
    if set(labels_a) != set(labels_b):
        raise ValueError("labels_a and labels_b must cover the same record numbers")
    return [no for no in labels_a if labels_a[no] != labels_b[no]]


def steps(difference: float, count: int) -> int:
    """Whole steps of 1 / ``count`` that the rate ``difference`` spans, sign kept (notebook 04)."""
    return round(difference / resolution(count))
