"""Notebook 14 - agreement between raters, from the definitions (pure Python).

``ratings`` is one row per rater and one column per record, any hashable labels.  Cohen's
kappa (1960, two raters), Fleiss' kappa (1971, two or more; per label: ``category_kappas``)
and Krippendorff's alpha (2011: missing ratings as ``None``; nominal, ordinal or interval).
Every function here is a door: it checks its arguments.
"""

from __future__ import annotations

import math
import numbers
from collections import Counter
from collections.abc import Hashable, Sequence

from ._checks import check_collection

__all__ = [
    "LEVELS",
    "category_kappas",
    "cohen_kappa",
    "fleiss_kappa",
    "krippendorff_alpha",
    "rater_agreement",
]

LEVELS = ("nominal", "ordinal", "interval")
"""The scale levels of :func:`krippendorff_alpha`."""


def _labels(name, values, missing=False):
    values = check_collection(name, values, "a sequence of labels (one per record)", "label")
    for v in values:
        if getattr(type(v), "__hash__", None) is None:
            raise TypeError(
                f"{name} must hold labels (str, int, ...), found {type(v).__name__} {v!r}"
            )
        if isinstance(v, float) and v != v:
            raise ValueError(f"{name} holds NaN; write None for a missing rating")
    if not missing and any(v is None for v in values):
        raise ValueError(
            f"{name} holds a missing rating (None); only krippendorff_alpha takes missing ratings"
        )
    return values


def _pair(a, b):
    a, b = _labels("a", a), _labels("b", b)
    if len(a) != len(b):
        raise ValueError(f"a and b must label the same records: got {len(a)} and {len(b)} labels")
    return a, b


def _table(ratings, missing=False):
    """``ratings`` checked: a tuple of rows of equal length, at least two raters."""
    rows = check_collection(
        "ratings", ratings, "one row of labels per rater (a list of lists)", "row of labels"
    )
    rows = tuple(_labels(f"ratings[{i}]", row, missing) for i, row in enumerate(rows))
    if len(rows) < 2:
        raise ValueError(f"ratings must hold at least two raters (rows), got {len(rows)}")
    lengths = sorted({len(row) for row in rows})
    if len(lengths) > 1:
        raise ValueError(
            f"ratings rows must all have the same length (one column per "
            f"record), got lengths {lengths}"
        )
    return rows


def _chance_is_one(name):
    return ValueError(
        f"{name}: chance agreement is 1 (every rating is one and the same label), "
        f"so kappa = (p_o - p_e) / (1 - p_e) is 0/0 and undefined"
    )


def rater_agreement(a: Sequence[Hashable], b: Sequence[Hashable]) -> float:
    """Raw rater agreement: the share of records on which ``a`` and ``b`` match."""
    a, b = _pair(a, b)
    return sum(x == y for x, y in zip(a, b)) / len(a)


def cohen_kappa(a: Sequence[Hashable], b: Sequence[Hashable]) -> float:
    """Cohen's kappa ``(p_o - p_e) / (1 - p_e)`` of two label sequences: ``p_o`` the rater
    agreement, ``p_e = sum_k p_a(k) p_b(k)``.  Refuses p_e = 1 (one label throughout)."""
    a, b = _pair(a, b)
    n = len(a)
    p_o = rater_agreement(a, b)
    count_a, count_b = Counter(a), Counter(b)
    p_e = sum(count_a[k] * count_b[k] for k in count_a) / (n * n)
    if p_e == 1:
        raise _chance_is_one("a and b")
    return (p_o - p_e) / (1 - p_e)


def _counts(rows):
    """Per record (column): how many raters gave each label."""
    return [Counter(column) for column in zip(*rows)]


def fleiss_kappa(ratings: Sequence[Sequence[Hashable]]) -> float:
    """Fleiss' kappa of two or more raters: ``P_bar`` the mean share of rater pairs that agree
    on a record, ``P_e`` that share from the pooled label shares.  Refuses P_e = 1."""
    rows = _table(ratings)
    m, n = len(rows), len(rows[0])
    per_record = _counts(rows)
    p_bar = sum(sum(c * (c - 1) for c in k.values()) for k in per_record) / (n * m * (m - 1))
    pooled = Counter(label for row in rows for label in row)
    p_e = sum((c / (n * m)) ** 2 for c in pooled.values())
    if p_e == 1:
        raise _chance_is_one("ratings")
    return (p_bar - p_e) / (1 - p_e)


def category_kappas(ratings: Sequence[Sequence[Hashable]]) -> dict[Hashable, float]:
    """Fleiss' kappa of each label, ``kappa_j = 1 - sum_i x_ij (m - x_ij) / (n m (m - 1) p_j
    (1 - p_j))``; a label given to every rating has none and is left out."""
    rows = _table(ratings)
    m, n = len(rows), len(rows[0])
    per_record = _counts(rows)
    pooled = Counter(label for row in rows for label in row)
    out = {}
    for label in sorted(pooled, key=repr):
        p = pooled[label] / (n * m)
        if p < 1:
            split = sum(k[label] * (m - k[label]) for k in per_record)
            out[label] = 1 - split / (n * m * (m - 1) * p * (1 - p))
    if not out:
        raise _chance_is_one("ratings")
    return out


def _positions(level, values):
    """Each label's place on the scale, its distance the squared difference of places: the
    value ('interval') or its mid-rank among the pooled ratings ('ordinal': the ordinal
    distance is the squared difference of mid-ranks); None for 'nominal'."""
    if level == "nominal":
        return None
    if level == "interval":
        return {c: float(c) for c in values}
    positions, below = {}, 0.0
    for g in sorted(values):
        positions[g] = below + values[g] / 2
        below += values[g]
    return positions


def _disagreements(level, pairs, values, total):
    """(D_o, D_e): the mean distance of the paired ratings and of all pooled pairs."""
    positions = _positions(level, values)
    if positions is None:
        d_o = sum(w for (c, k), w in pairs.items() if c != k) / total
        d_e = total * total - sum(n * n for n in values.values())
    else:
        d_o = sum(w * (positions[c] - positions[k]) ** 2 for (c, k), w in pairs.items()) / total
        mean = sum(n * positions[c] for c, n in values.items()) / total
        # sum over c, k of n_c n_k (x_c - x_k)**2 = 2 N sum_c n_c (x_c - mean)**2
        d_e = 2 * total * sum(n * (positions[c] - mean) ** 2 for c, n in values.items())
    return d_o, d_e / (total * (total - 1))


def krippendorff_alpha(
    ratings: Sequence[Sequence[Hashable | None]], level: str = "nominal"
) -> float:
    """Krippendorff's alpha ``1 - D_o / D_e``: ``None`` a missing rating, records with fewer
    than two ratings left out, each record's ratings paired every way (weight 1 / (m - 1));
    ``level`` 'nominal' (0 or 1), 'ordinal' or 'interval' (numeric labels only)."""
    rows = _table(ratings, missing=True)
    if not isinstance(level, str) or level not in LEVELS:
        raise ValueError(f"level must be one of {', '.join(map(repr, LEVELS))}; got {level!r}")
    if level != "nominal":
        for value in (v for row in rows for v in row if v is not None):
            if isinstance(value, bool) or not isinstance(value, numbers.Real):
                raise TypeError(
                    f"level={level!r} needs numeric labels in ratings, found "
                    f"{type(value).__name__} {value!r} (use level='nominal')"
                )
            if level == "interval" and not math.isfinite(value):
                raise ValueError(
                    f"ratings: level='interval' needs finite numbers, found "
                    f"{value!r}: an interval distance to it is not a number"
                )
    units = [[v for v in column if v is not None] for column in zip(*rows)]
    units = [u for u in units if len(u) >= 2]
    pairs: Counter[tuple[Hashable, Hashable]] = Counter()  # the coincidence matrix o_ck
    for u in units:
        for i, c in enumerate(u):
            for j, k in enumerate(u):
                if i != j:
                    pairs[c, k] += 1 / (len(u) - 1)  # type: ignore[assignment]  # weights
    values: Counter[Hashable] = Counter()  # n_c
    for (c, _), weight in pairs.items():
        values[c] += weight
    total = sum(values.values())
    d_o, d_e = _disagreements(level, pairs, values, total) if len(values) > 1 else (0.0, 0.0)
    if d_e == 0:
        raise ValueError(
            "ratings: every pairable rating is the same label (or no record has "
            "two ratings), so the expected disagreement D_e is 0 and alpha = "
            "1 - D_o / D_e is 0/0 and undefined"
        )
    return 1 - d_o / d_e
