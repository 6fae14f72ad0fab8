"""Notebook 14 - agreement between raters, from the definitions (pure Python).

``ratings`` is one row per rater and one column per record.  Raw *rater
agreement* is the share of records on which two raters say the same thing;
*kappa* and *alpha* subtract what chance alone would give:

* :func:`cohen_kappa` (Cohen 1960), two raters:
  ``(p_o - p_e) / (1 - p_e)`` with ``p_e = sum_k p_a(k) * p_b(k)``;
* :func:`fleiss_kappa` (Fleiss 1971), two or more raters, chance from the
  pooled label shares; :func:`category_kappas` is its per-label form;
* :func:`krippendorff_alpha` (Krippendorff 2011), ``1 - D_o / D_e`` over the
  coincidence matrix, with missing ratings (``None``) and a distance for the
  ``level`` of the scale: nominal, ordinal or interval.

Any labels work (the simulated raters of :mod:`lessonlib.raters` are one source, a panel's
judges another).  Every function here is a door: it checks its arguments.
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
    """Notebook 14: raw rater agreement, the share of records on which ``a`` and ``b`` match."""
    a, b = _pair(a, b)
    return sum(x == y for x, y in zip(a, b)) / len(a)


def cohen_kappa(a: Sequence[Hashable], b: Sequence[Hashable]) -> float:
    """Notebook 14: Cohen's kappa of two label sequences (Cohen 1960).

    ``p_o`` is the rater agreement; ``p_e`` the agreement expected if each
    rater kept its own label shares but chose records at random.
    """
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
    """Notebook 14: Fleiss' kappa of two or more raters (Fleiss 1971).

    ``P_bar`` is the mean, over records, of the share of rater pairs that
    agree on the record; ``P_e`` the same share if every rating were drawn
    from the pooled label shares.
    """
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
    """Notebook 14: Fleiss' kappa for each label separately (Fleiss 1971, eq. for kappa_j).

    ``kappa_j = 1 - sum_i x_ij (m - x_ij) / (n m (m - 1) p_j (1 - p_j))``: how
    much better than chance the raters agree on whether a record gets label j.
    A label given to every rating has no kappa of its own and is left out.
    """
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
    """Where each label sits on the scale, so that its distance is the squared difference of
    positions: the value itself ('interval') or its mid-rank among the pooled ratings
    ('ordinal': the ratings below it plus half its own).  None for 'nominal' (0 or 1).

    The ordinal distance of c and k, (ratings from c to k, the ends counted half) squared,
    is the squared difference of their mid-ranks, so no sum over the labels between is
    needed: alpha takes time linear in the number of distinct labels."""
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
    """Notebook 14: Krippendorff's alpha, ``1 - D_o / D_e`` (Krippendorff 2011).

    ``None`` is a missing rating; records with fewer than two ratings do not
    count.  Each record's ratings are paired every way (a record with m
    ratings contributes weight 1 / (m - 1) per ordered pair); ``D_o`` is the
    mean distance of those pairs, ``D_e`` the mean distance of all pairs of
    pooled ratings.  ``level`` picks the distance: 'nominal' (0 or 1),
    'ordinal' (through the ranks of the labels in between) or 'interval'
    (squared difference); the last two need numeric labels.
    """
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
