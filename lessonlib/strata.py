"""Notebook 16 - which records the person labels, and the stratified difference estimator.

:func:`choose_records` picks ``budget`` records by one of DESIGNS: a random sample, or the
week's :func:`score_strata` labelled in proportion to their sizes (``"proportional"``) or to
size times :func:`prior_spread` (``"neyman"``, Cochran 1977 sec. 5.5).  The estimate
(``estimate_rate(..., method="stratified")``) is the judge's mean plus the person's mean
correction per stratum, weighted by its share; its variance is the person's part plus the
week's own.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable

import numpy as np

from ._checks import check_choice, check_collection, check_int, check_seed

__all__ = [
    "DESIGNS",
    "MIN_SHARE",
    "SPREAD_CLIP",
    "choose_records",
    "prior_spread",
    "score_strata",
]

DESIGNS = ("random", "proportional", "neyman")
"""The three ways to choose the records the person labels."""
MIN_SHARE = 0.01
"""The smallest share of the week a stratum holds; smaller score levels join a neighbour."""
SPREAD_CLIP = 0.05
"""Neyman's spread at level s is sqrt(s~ (1 - s~)), s~ = s clipped to [0.05, 0.95]."""


def _values(name, values, *, zero_one=False):
    """A 1-D float array of numbers in [0, 1] (0/1 only with ``zero_one``)."""
    numeric = isinstance(values, np.ndarray) and values.ndim == 1 and values.dtype.kind in "biuf"
    if not (numeric and values.size):  # an array of numbers needs no look at each value
        values = check_collection(name, values, "a list of 0/1 labels or scores", "value")
        for v in values:
            if not isinstance(v, (bool, int, float, np.number, np.bool_)):
                raise TypeError(
                    f"{name} must hold numbers (bools, 0/1 or scores in [0, 1]), "
                    f"found {type(v).__name__} {v!r}"
                )
    array = np.asarray(values, dtype=float)
    bad = array[~((array >= 0) & (array <= 1))]
    if bad.size:
        raise ValueError(
            f"{name} must hold shares in [0, 1] (a label 0/1 or a score P(zararli)); "
            f"found {bad[0]!r}"
        )
    if zero_one:
        other = array[(array != 0) & (array != 1)]
        if other.size:
            raise ValueError(
                f"{name} must hold 0/1 labels (True = 1), found {other[0]!r}: "
                "the person's label is a yes or a no"
            )
    return array


# ------------------------------------------------------------------------------ the strata


def _merge(counts, total):
    """Stratum of each level (levels in score order, ``counts`` records each): levels join
    upward until a stratum holds max(2, MIN_SHARE * total) records; a short top joins below."""
    need = max(2, math.ceil(MIN_SHARE * total - 1e-9))
    out = np.empty(len(counts), dtype=int)
    stratum, held = 0, 0
    for i, c in enumerate(counts):
        out[i] = stratum
        held += c
        if held >= need:
            stratum, held = stratum + 1, 0
    if stratum > 0 and (out == stratum).any():  # a short top joins the stratum below
        out[out == stratum] = stratum - 1
    return out


def _strata(scores):
    """(stratum of each record, stratum count): score levels merged by _merge."""
    levels, inverse, counts = np.unique(scores, return_inverse=True, return_counts=True)
    of_level = _merge(counts, len(scores))
    return of_level[inverse.ravel()], int(of_level[-1]) + 1


def score_strata(judge_scores: Iterable[float]) -> list[int]:
    """The stratum (0, 1, ...; lowest score first) of every record, from ``judge_scores`` in
    [0, 1]: the score levels, a level under MIN_SHARE of the week joined upward."""
    strata, _ = _strata(_values("judge_scores", judge_scores))
    return strata.tolist()


def prior_spread(score: float | np.ndarray) -> float | np.ndarray:
    """Neyman's guess of the person's spread at a score level: sqrt(s~ (1 - s~)), s~ the score
    clipped to [SPREAD_CLIP, 1 - SPREAD_CLIP]."""
    clipped = np.clip(score, SPREAD_CLIP, 1 - SPREAD_CLIP)
    return np.sqrt(clipped * (1 - clipped))


def _allocate(sizes, weights, budget):
    """Labels per stratum: ``budget`` in proportion to ``weights``, at least 2 and at most the
    stratum's size (bounds fixed, the rest shared again), rounded by the largest remainders."""
    sizes = np.asarray(sizes, dtype=float)
    low, high = np.minimum(2.0, sizes), sizes
    fixed = np.full(len(sizes), np.nan)
    for _ in range(len(sizes) + 1):
        free = np.isnan(fixed)
        room = budget - np.nansum(fixed)
        w = np.where(free, weights, 0.0)
        x = np.where(free, room * w / w.sum() if w.sum() > 0 else room / free.sum(), fixed)
        under, over = free & (x < low), free & (x > high)
        if not (under.any() or over.any()):
            break
        fixed[under], fixed[over] = low[under], high[over]
    n = np.floor(x + 1e-9).astype(int)
    left = int(budget - n.sum())
    order = np.argsort(-(x - n), kind="stable")
    for i in order:
        if left <= 0:
            break
        if n[i] < sizes[i]:
            n[i] += 1
            left -= 1
    return n


def _plan(scores, budget, design):
    """(stratum of each record, labels per stratum) for a stratified design; budget checked."""
    strata, count = _strata(scores)
    if budget < 2 * count:
        raise ValueError(
            f"budget must give at least two labels to each of the week's {count} score strata, "
            f"so budget >= {2 * count}; got {budget}"
        )
    sizes = np.bincount(strata, minlength=count)
    if design == "proportional":
        weights = sizes.astype(float)
    else:
        level = np.bincount(strata, scores, minlength=count) / sizes
        weights = sizes * prior_spread(level)
    return strata, _allocate(sizes, weights, budget)


def _pick(strata, labels, rng):
    """Indices: ``labels[h]`` records drawn at random from each stratum h."""
    keys = strata + rng.random(len(strata))
    order = np.argsort(keys, kind="stable")
    starts = np.concatenate([[0], np.cumsum(np.bincount(strata, minlength=len(labels)))])
    ranked = np.arange(len(strata)) - starts[strata[order]]
    return np.sort(order[ranked < labels[strata[order]]])


def choose_records(
    judge_scores: Iterable[float], budget: int, *, design: str = "neyman", seed: int = 0
) -> list[int]:
    """The records (indices into ``judge_scores``, ascending) the person labels: ``budget`` of
    them by ``design``, one of DESIGNS.  A stratified design refuses a budget under two labels
    a stratum; no design takes more records than the week holds."""
    scores = _values("judge_scores", judge_scores)
    budget = check_int("budget", budget, minimum=2)
    check_choice("design", design, DESIGNS)
    seed = check_seed(seed)
    if budget > len(scores):
        raise ValueError(f"budget must be at most the week's {len(scores)} records, got {budget}")
    rng = np.random.default_rng(seed)
    if design == "random":
        return sorted(rng.choice(len(scores), size=budget, replace=False).tolist())
    strata, labels = _plan(scores, budget, design)
    return _pick(strata, labels, rng).tolist()


# --------------------------------------------------------------------------- the estimate


def _codes(name, values, length, other):
    """Stratum values (any hashable) as a tuple, one per record of ``other``."""
    if isinstance(values, (str, bytes)) or not isinstance(values, Iterable):
        raise TypeError(
            f"{name} must be a list of stratum values, one per record, got {type(values).__name__}"
        )
    values = tuple(values)
    for v in values:
        if not isinstance(v, Hashable):
            raise TypeError(
                f"{name} must hold hashable stratum values (ints, strs), found {type(v).__name__}"
            )
    if len(values) != length:
        raise ValueError(
            f"{name} must hold one stratum per record of {other} ({length}), got {len(values)}"
        )
    return values


def _check_strata(strata_labelled, strata_rest, n_labelled, n_rest):
    """(codes of the labelled, of the rest, stratum count); refuses a stratum with one label
    or with unlabelled records and no label."""
    if strata_labelled is None or strata_rest is None:
        raise ValueError(
            "method='stratified' needs strata_labelled and strata_rest: the stratum of every "
            "labelled and every unlabelled record (e.g. from score_strata)"
        )
    lab = _codes("strata_labelled", strata_labelled, n_labelled, "person")
    rest = _codes("strata_rest", strata_rest, n_rest, "judge_rest")
    index: dict[Hashable, int] = {}
    for v in lab + rest:
        index.setdefault(v, len(index))
    sl = np.array([index[v] for v in lab], dtype=int)
    sr = np.array([index[v] for v in rest], dtype=int)
    count = len(index)
    labels = np.bincount(sl, minlength=count)
    one = [v for v, i in index.items() if labels[i] == 1]
    if one:
        raise ValueError(
            f"strata_labelled must give every stratum that has labels at least two (its "
            f"spread needs two); stratum {one[0]!r} has one"
        )
    bare = [v for v, i in index.items() if labels[i] == 0]
    if bare:
        raise ValueError(
            f"strata_rest holds stratum {bare[0]!r}, which has unlabelled records but no "
            "label: its correction cannot be measured (label two of its records, or merge it)"
        )
    return sl, sr, count


def _stratified(y, f, g, sl, sr, count, z):
    """(value, low, high) of the stratified difference estimator (checked arrays)."""
    n_h = np.bincount(sl, minlength=count).astype(float)
    size = n_h + np.bincount(sr, minlength=count)
    total = size.sum()
    d = y - f
    d_mean = np.bincount(sl, d, minlength=count) / n_h
    d_var = (np.bincount(sl, d * d, minlength=count) - n_h * d_mean**2) / (n_h - 1)
    judge_sum = np.bincount(sl, f, minlength=count) + np.bincount(sr, g, minlength=count)
    value = float((judge_sum + size * d_mean).sum() / total)
    person_part = _person_part(size / total, d_var, n_h, z)
    corrected = np.concatenate([f + d_mean[sl], g + d_mean[sr]])
    week_part = float(corrected.var(ddof=1)) / total if total > 1 else 0.0
    half = z * math.sqrt(person_part + week_part)
    return value, max(value - half, 0.0), min(value + half, 1.0)


def _person_part(share, d_var, n_h, z):
    """The person's part of the stratified variance, sum W_h^2 s_h^2 / n_h (last axis); a
    stratum whose corrections are all alike gets u (1 - u), u = z^2 / (n_h + z^2), the
    small-sample rule of ``estimate_rate``."""
    u = z * z / (n_h + z * z)
    s2 = np.where(d_var <= 1e-12, u * (1 - u), np.maximum(d_var, 0.0))
    return (share**2 * s2 / n_h).sum(axis=-1)
