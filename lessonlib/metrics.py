"""Notebook 02 - how a decision (a function record -> bool, True = block) is scored.

The one home of the course's counts (:func:`four_counts`) and of the figures' formulas
(:func:`rates`); :data:`FIGURES` names each figure.  It imports no module above it: what it
measures offers its checked fast path through the decision protocol :func:`trusted` reads.
"""

from __future__ import annotations

import numbers
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ._checks import check_callable, check_int, check_number
from ._frozen import ReadOnlyDict
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
    "four_counts",
    "measure",
    "rates",
    "resolution",
    "share",
    "steps",
    "threshold_counts",
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
    """``decide`` for checked ``records`` without its per-record checks, where it offers that:
    a function with a ``decider`` attribute (:func:`rule_filter`), or the bound ``decide`` of
    an object with a ``decider`` method (a run), is asked ``decider(records)`` once (which may
    refuse the records) and its answer used.  Any other function is returned as it is."""
    fast = getattr(decide, "decider", None)
    if fast is None and getattr(decide, "__name__", None) == "decide":
        fast = getattr(getattr(decide, "__self__", None), "decider", None)
    return decide if fast is None else fast(records)


def four_counts(
    actual: Sequence[bool] | np.ndarray, decided: Sequence[float] | np.ndarray
) -> tuple[Any, Any, Any, Any]:
    """(tp, fp, fn, tn) of ``decided`` against ``actual`` (the human label, True = harmful):
    four ints for two sequences of bools (one run, pure Python); int64 arrays of shape
    ``decided.shape[:-1]`` for a numpy ``decided`` of shape (..., records) (many runs); float
    expected counts for shares in [0, 1].  Trusts its caller (same records, same order)."""
    tp: Any
    fp: Any
    if not hasattr(decided, "ndim"):  # one run, no numpy on the core path
        tp = fp = harmful = total = 0
        for is_harmful_, blocked in zip(actual, decided):
            total += 1
            if is_harmful_:
                harmful += 1
                tp += blocked
            else:
                fp += blocked
        return tp, fp, harmful - tp, total - harmful - fp
    import numpy as np

    truth, matrix = np.asarray(actual, dtype=bool), np.asarray(decided)  # arrays: no copy
    if matrix.dtype == bool:
        tp = np.count_nonzero(matrix & truth, axis=-1)
        fp = np.count_nonzero(matrix & ~truth, axis=-1)
    else:  # shares: expected counts
        tp = np.sum(matrix * truth, axis=-1)
        fp = np.sum(matrix, axis=-1) - tp
    positives = np.count_nonzero(truth, axis=-1)
    return tp, fp, positives - tp, truth.shape[-1] - positives - fp


def threshold_counts(
    actual: Sequence[bool] | np.ndarray, scores: Sequence[float] | np.ndarray
) -> tuple[np.ndarray, tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]]:
    """``(thresholds, (tp, fp, fn, tn))``: for each distinct score, highest first, the counts of
    blocking every record scored at least that (notebook 08's curves)."""
    import numpy as np

    scores = np.asarray(scores, dtype=float)
    thresholds = np.unique(scores)[::-1]
    return thresholds, four_counts(actual, scores[None, :] >= thresholds[:, None])


def confusion(
    records: Iterable[Record], decide: Callable[[Record], bool]
) -> tuple[int, int, int, int]:
    """Counts (tp, fp, fn, tn) of ``decide`` against the human label (notebook 02)."""
    pairs = [(is_harmful(r), bool(decide(r))) for r in records]
    return four_counts([a for a, _ in pairs], [d for _, d in pairs])


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
    """The four figures from the four counts, ``{name: value}`` in :data:`FIGURES` order: the
    three rates rounded by :func:`share` (``rounded=False``: not rounded, and the counts may be
    floats), agreement never.  Ints give floats; numpy arrays give arrays of their shape."""
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
    return _measured(*_checked(records, decide))[0]


def _measured(records, decide):
    """``(measure(records, decide), agreement(records, decide))`` from one count, for
    checked arguments: each record decided once."""
    counts = confusion(records, decide)
    figures = rates(*counts)
    scores = dict(zip(COUNTS, counts))
    scores.update((name, figures[name]) for name in RATES)
    return scores, figures["agreement"]


def agreement(records: Sequence[Record], decide: Callable[[Record], bool]) -> float:
    """Share of records on which ``decide`` matches the human label, not rounded (notebook 02)."""
    return _measured(*_checked(records, decide))[1]


def class_recall(
    records: Sequence[Record], decide: Callable[[Record], bool]
) -> dict[str, tuple[int, float]]:
    """Per class present: (number of records, share that ``decide`` blocks) (notebook 02)."""
    return _class_recall(*_checked(records, decide))


def _class_recall(records, decide):
    out = {}
    for cls, members in by_class(records).items():
        tp, fp, _, _ = confusion(members, decide)  # one class: its blocks are tp or fp
        out[cls] = (len(members), (tp + fp) / len(members))
    return out


def resolution(count: int) -> float:
    """The smallest step a rate over ``count`` records can move: 1 / count (notebook 05)."""
    return 1 / check_int("count", count, minimum=1)


def disagreements(labels_a: Mapping[int, str], labels_b: Mapping[int, str]) -> list[int]:
    """Record numbers whose label differs between two runs (notebook 04)."""
    for name, labels in (("labels_a", labels_a), ("labels_b", labels_b)):
        if not isinstance(labels, Mapping):
            raise TypeError(
                f"{name} must be a mapping record number -> label (a run's .labels), got "
                f"{type(labels).__name__} {labels!r}"
            )
    if set(labels_a) != set(labels_b):
        raise ValueError("labels_a and labels_b must cover the same record numbers")
    return [no for no in labels_a if labels_a[no] != labels_b[no]]


def steps(difference: float, count: int) -> int:
    """Whole steps of 1 / ``count`` that the rate ``difference`` spans, sign kept (notebook 04)."""
    return round(check_number("difference", difference) / resolution(count))
