"""Notebook 15 - a rate of the week from the judge on every record and a person on a few.

:func:`estimate_rate` (the door) gives five estimates with an interval: ``"judge"`` (its
share on the rest), ``"labelled"`` (the person's sample alone), ``"rogan_gladen"`` (Rogan &
Gladen 1978, as judgy), ``"ppi"`` and ``"ppi++"`` (Angelopoulos et al. 2023, as ppi-python);
``"stratified"`` is notebook 16's (:mod:`lessonlib.strata`).  :func:`estimate_false_block_rate`
estimates the filter's false block rate, a ratio, by the delta method.  A sample too uniform
for the classical interval gets the small-sample rule (``_unseen``), so no interval has zero
width.  Every estimator works on arrays (weeks, records): the door passes one week.
"""

from __future__ import annotations

import statistics
import warnings
from collections.abc import Hashable, Iterable
from typing import NamedTuple

import numpy as np

from ._checks import check_between, check_choice, check_int, check_seed
from .strata import _check_strata, _stratified, _values

__all__ = [
    "METHODS",
    "Estimate",
    "estimate_false_block_rate",
    "estimate_rate",
]

METHODS = ("judge", "labelled", "rogan_gladen", "ppi", "ppi++")
"""The five estimates, in the order the notebook shows them."""
STRATIFIED = "stratified"
"""The stratified difference estimator (notebook 16, lessonlib.strata): it needs the strata."""
RATIO_METHODS = ("judge", "labelled", "ppi", "ppi++")
"""The estimates of the ratio (Rogan-Gladen corrects a share, not a ratio)."""

RESAMPLES = 2000
"""Bootstrap resamples of the Rogan-Gladen interval (estimate_rate)."""


class Estimate(NamedTuple):
    """One estimate with its interval (notebook 15): unpacks as ``value, low, high``."""

    value: float
    low: float
    high: float


# ------------------------------------------------------------------ the estimators, many weeks


def _z(level):
    return statistics.NormalDist().inv_cdf(0.5 + level / 2)


def _unseen(n, z):
    """The small-sample rule: Wilson's bound z^2 / (n + z^2) on a share seen in none of ``n``
    records.  A part alike on every record (no variance), its mean c in [a, b], is given
    [c - u (c - a), c + u (b - c)]: for a 0/1 share seen 0 or n times, Wilson's interval."""
    return z * z / (n + z * z)


def _tuned_lam(y, f, g):
    """PPI++'s weight of the judge, one per row: cov(person, judge) / ((1 + n/N) var(judge)),
    clipped to [0, 1]; 0 for a judge that gives every record the same value."""
    n, big_n = y.shape[1], g.shape[1]
    cov = ((y - y.mean(axis=1, keepdims=True)) * (f - f.mean(axis=1, keepdims=True))).mean(axis=1)
    total = f.sum(axis=1) + g.sum(axis=1)
    squares = (f * f).sum(axis=1) + (g * g).sum(axis=1)
    m = n + big_n
    var = (squares - total * total / m) / (m - 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.clip(np.where(var > 1e-15, cov / ((1 + n / big_n) * var), 0.0), 0.0, 1.0)


def _corrected(q, tpr, tnr):
    """Rogan-Gladen: (q + TNR - 1) / (TPR + TNR - 1), clipped to [0, 1]."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.clip((q + tnr - 1) / (tpr + tnr - 1), 0.0, 1.0)


def _rogan_gladen(y, f, g, level, resamples, rng):
    """Rogan-Gladen for each row, with a percentile bootstrap: a resample is a multinomial draw
    of the four (person, judge) counts and a binomial of the rest's share; resamples without
    both classes or with TPR + TNR <= 1 are left out, as judgy does."""
    n, big_n = y.shape[1], g.shape[1]
    yb, fb = y > 0.5, f > 0.5
    pos = yb.sum(axis=1)
    tp = (yb & fb).sum(axis=1)
    tn = (~yb & ~fb).sum(axis=1)
    q = g.mean(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):  # a class missing: NaN, not a warning
        value = _corrected(q, tp / pos, tn / (n - pos))
    cells = np.stack([tp, pos - tp, n - pos - tn, tn], axis=1) / n
    draws = rng.multinomial(n, cells, size=(resamples, y.shape[0]))
    q_star = rng.binomial(big_n, q, size=(resamples, y.shape[0])) / big_n
    pos_star = draws[..., 0] + draws[..., 1]
    neg_star = n - pos_star
    with np.errstate(divide="ignore", invalid="ignore"):
        tpr, tnr = draws[..., 0] / pos_star, draws[..., 3] / neg_star
        keep = (pos_star > 0) & (neg_star > 0) & (tpr + tnr > 1)
        theta = np.where(keep, _corrected(q_star, tpr, tnr), np.nan)
    tail = (1 - level) / 2 * 100
    with np.errstate(invalid="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # a row without one valid resample
        low, high = np.nanpercentile(theta, [tail, 100 - tail], axis=0)
    # the small-sample rule: a rate seen at 0 or 1 is never moved by a resample; such a row's
    # interval also spans the correction at the ends of the rates' Wilson intervals
    neg = n - pos
    stuck = (tp == 0) | (tp == pos) | (tn == 0) | (tn == neg)
    if stuck.any():
        z = _z(level)
        corners = []
        for tpr_end in _wilson(tp, pos, z):
            for tnr_end in _wilson(tn, neg, z):
                with np.errstate(divide="ignore", invalid="ignore"):
                    corner = _corrected(q, tpr_end, tnr_end)
                corners.append(np.where(tpr_end + tnr_end > 1, corner, np.nan))
        ends = np.stack(corners + [low, high])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # a row with no valid corner
            low = np.where(stuck, np.nanmin(ends, axis=0), low)
            high = np.where(stuck, np.nanmax(ends, axis=0), high)
    return value, low, high


def _wilson(k, n, z):
    """Wilson's interval (low, high) of k successes in n, row by row (n = 0: NaN)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        p = k / n
        centre = (k + z * z / 2) / (n + z * z)
        half = z / (n + z * z) * np.sqrt(n * p * (1 - p) + z * z / 4)
    return centre - half, centre + half


def _ppi(y, f, g, z, lam):
    """Prediction-powered estimate of each row, with its interval (as ppi_py): a mean of 2-D
    (rows, records) arrays, or a ratio sum(a) / sum(b) of 3-D arrays whose last axis is (a, b)
    (the false block rate: person (blocked and clean, clean), stand-in (blocked and judged
    clean, judged clean)).  ``lam``: the judge's weight, None to tune it (PPI++).

    theta solves mean(a - theta * b) = 0 (b = 1 for a mean), so psi = a - theta * b is PPI's
    quantity and theta's error is psi's over the denominator (the delta method).  A part alike
    on every labelled record gets the small-sample rule (``_unseen``)."""
    if y.ndim == 2:
        y, f, g = (np.stack([x, np.ones_like(x)], axis=-1) for x in (y, f, g))
    a, b, ah, bh, ag, bg = y[..., 0], y[..., 1], f[..., 0], f[..., 1], g[..., 0], g[..., 1]

    def point(lam):
        num = lam * ag.mean(axis=1) + (a - lam[:, None] * ah).mean(axis=1)
        den = lam * bg.mean(axis=1) + (b - lam[:, None] * bh).mean(axis=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            return num / den, den

    value, den = point(np.ones(a.shape[0]) if lam is None else np.full(a.shape[0], float(lam)))
    if lam is None:
        t = value[:, None]
        lam = _tuned_lam(a - t * b, ah - t * bh, ag - t * bg)
        value, den = point(lam)
    else:
        lam = np.full(a.shape[0], float(lam))
    t, n = value[:, None], a.shape[1]
    psi, psi_hat, psi_rest = a - t * b, ah - t * bh, ag - t * bg
    rect = psi - lam[:, None] * psi_hat
    judge_var = lam**2 * psi_rest.var(axis=1) / ag.shape[1]
    below = above = z * np.sqrt(judge_var + rect.var(axis=1) / n)
    # the small-sample rule: rect alike, its mean c in [-theta - lam (1 - theta), 1 - theta +
    # lam theta], gets u of that range; psi == psi_hat on every labelled record gets lam * u
    # for the part lam * (person - judge); such intervals stay inside [0, 1]
    alike = rect.min(axis=1) == rect.max(axis=1)
    agree = (psi == psi_hat).all(axis=1) & ~alike
    u, c = _unseen(n, z), rect.mean(axis=1)
    wider = np.sqrt(below**2 + (lam * u) ** 2)
    low_room = np.sqrt(z * z * judge_var + (u * (c + value + lam * (1 - value))) ** 2)
    high_room = np.sqrt(z * z * judge_var + (u * (1 - value + lam * value - c)) ** 2)
    below = np.where(alike, low_room, np.where(agree, wider, below)) / np.abs(den)
    above = np.where(alike, high_room, np.where(agree, wider, above)) / np.abs(den)
    ruled = alike | agree
    low, high = value - below, value + above
    return (
        value,
        np.where(ruled, np.maximum(low, 0.0), low),
        np.where(ruled, np.minimum(high, 1.0), high),
    )


def _estimate(method, y, f, g, level, resamples, rng):
    """(value, low, high), three arrays of one entry per row, for one method."""
    z = _z(level)
    if method == "rogan_gladen":
        return _rogan_gladen(y, f, g, level, resamples, rng)
    if method in ("judge", "labelled"):  # one sample's estimate: PPI with no judge
        one = g if method == "judge" else y
        return _ppi(one, np.zeros_like(one), np.zeros_like(one[:, :1]), z, 0.0)
    return _ppi(y, f, g, z, 1.0 if method == "ppi" else None)


# ------------------------------------------------------------------------------- the door


def estimate_rate(
    person: Iterable[bool | float],
    judge_labelled: Iterable[bool | float],
    judge_rest: Iterable[bool | float],
    *,
    method: str = "ppi",
    level: float = 0.95,
    resamples: int = RESAMPLES,
    seed: int = 0,
    strata_labelled: Iterable[Hashable] | None = None,
    strata_rest: Iterable[Hashable] | None = None,
) -> Estimate:
    """An :class:`Estimate` ``(value, low, high)`` of a rate of the week with its ``level``
    interval.  ``person``: the person's 0/1 labels; ``judge_labelled``: the judge's values on
    the same records; ``judge_rest``: on the unlabelled rest (0/1 labels, or scores except for
    ``"rogan_gladen"``).  ``method``: one of METHODS or ``"stratified"`` (which needs
    ``strata_labelled`` and ``strata_rest``, the stratum of every record); ``resamples`` and
    ``seed`` drive Rogan-Gladen's bootstrap.  Refuses fewer than 2 labels; a uniform sample
    gets the small-sample rule (no zero-width interval)."""
    check_choice("method", method, METHODS + (STRATIFIED,))
    if method != STRATIFIED and (strata_labelled is not None or strata_rest is not None):
        raise ValueError(
            "strata_labelled and strata_rest are for method='stratified' only; "
            f"method {method!r} takes no strata"
        )
    level = check_between("level", level, 0, 1, "0.95")
    resamples = check_int("resamples", resamples, minimum=100)
    seed = check_seed(seed)
    y = _values("person", person, zero_one=True)
    f = _values("judge_labelled", judge_labelled)
    g = _values("judge_rest", judge_rest)
    if len(y) != len(f):
        raise ValueError(
            "person and judge_labelled must describe the same records, one value each: "
            f"got {len(y)} person labels and {len(f)} judge values"
        )
    if len(y) < 2:
        raise ValueError(f"person must hold at least 2 labels for an interval, got {len(y)}")
    if method == "rogan_gladen":
        _check_rogan_gladen(y, f, g)
    if method == STRATIFIED:
        sl, sr, count = _check_strata(strata_labelled, strata_rest, len(y), len(g))
        return Estimate(*_stratified(y, f, g, sl, sr, count, _z(level)))
    rng = np.random.default_rng(seed)
    value, low, high = _estimate(method, y[None], f[None], g[None], level, resamples, rng)
    return Estimate(float(value[0]), float(low[0]), float(high[0]))


def _check_rogan_gladen(y, f, g):
    for name, values in (("judge_labelled", f), ("judge_rest", g)):
        other = values[(values != 0) & (values != 1)]
        if other.size:
            raise ValueError(
                f"rogan_gladen corrects the judge's labels with its error rates, so "
                f"{name} must hold 0/1 labels, not scores (found {other[0]!r}); "
                "use ppi or ppi++ for scores"
            )
    pos = int(y.sum())
    if pos == 0 or pos == len(y):
        raise ValueError(
            "rogan_gladen needs both classes among the person's labels (its TPR and TNR "
            f"divide by them): person holds {pos} ones and {len(y) - pos} zeros"
        )
    tpr = float(((y == 1) & (f == 1)).sum()) / pos
    tnr = float(((y == 0) & (f == 0)).sum()) / (len(y) - pos)
    if tpr + tnr <= 1:
        raise ValueError(
            "rogan_gladen needs a judge better than chance on the labelled records, and "
            f"judge_labelled against person gives TPR + TNR = {tpr:.4f} + {tnr:.4f} <= 1: "
            "the correction would divide by zero or flip the sign"
        )


def estimate_false_block_rate(
    person: Iterable[bool | float],
    filter_labelled: Iterable[bool | float],
    judge_labelled: Iterable[bool | float],
    filter_rest: Iterable[bool | float],
    judge_rest: Iterable[bool | float],
    *,
    method: str = "ppi",
    level: float = 0.95,
) -> Estimate:
    """An :class:`Estimate` of the rule filter's false block rate, P(blocks and clean) /
    P(clean), with its ``level`` interval (the delta method).  ``person``: 0/1 labels (1 =
    harmful); ``filter_*``: the filter's 0/1 decisions; ``judge_*``: the judge's labels or
    scores.  ``method``: one of RATIO_METHODS.  Refuses a denominator of 0; a uniform sample
    gets the small-sample rule of :func:`estimate_rate`."""
    check_choice("method", method, RATIO_METHODS)
    level = check_between("level", level, 0, 1, "0.95")
    y = _values("person", person, zero_one=True)
    fl = _values("filter_labelled", filter_labelled, zero_one=True)
    jl = _values("judge_labelled", judge_labelled)
    fr = _values("filter_rest", filter_rest, zero_one=True)
    jr = _values("judge_rest", judge_rest)
    for name, values, other, like in (
        ("filter_labelled", fl, "person", y),
        ("judge_labelled", jl, "person", y),
        ("judge_rest", jr, "filter_rest", fr),
    ):
        if len(values) != len(like):
            raise ValueError(
                f"{name} must hold one value per record, as many as {other} ({len(like)}); "
                f"got {len(values)}"
            )
    if len(y) < 2:
        raise ValueError(f"person must hold at least 2 labels for an interval, got {len(y)}")
    if y.min() == 1:
        raise ValueError(
            "person holds no clean record: the false block rate divides by the clean share"
        )
    if method != "labelled" and jr.min() == 1:
        raise ValueError(
            "judge_rest calls every record harmful: its clean share, the ratio's denominator, is 0"
        )
    clean = 1 - y
    person_parts = np.stack([fl * clean, clean], axis=-1)
    labelled_parts = np.stack([fl * (1 - jl), 1 - jl], axis=-1)
    rest_parts = np.stack([fr * (1 - jr), 1 - jr], axis=-1)
    value, low, high = _estimate(
        method, person_parts[None], labelled_parts[None], rest_parts[None], level, 0, None
    )
    return Estimate(float(value[0]), float(low[0]), float(high[0]))
