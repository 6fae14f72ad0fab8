"""Notebook 15 - the defense measured in production: the judge on every record, a person on a few.

In production there is no label column.  The judge labels every record of the week; a person
labels a random few.  Five ways to turn that into a rate with a 95% interval
(:func:`estimate_rate`, the door):

* ``"judge"`` - the judge's share on the unlabelled rest: it measures the judge, not the truth;
* ``"labelled"`` - the person's sample alone (the classical interval, as
  ``ppi_py.classical_mean_ci``);
* ``"rogan_gladen"`` - the judge's share corrected with its error rates (TPR, TNR) measured on
  the labelled records (Rogan & Gladen 1978; the point estimate of
  ``judgy.estimate_success_rate``), interval by a bootstrap;
* ``"ppi"`` - prediction-powered inference: the judge's share on the rest plus the mean of
  (person - judge) on the labelled records (Angelopoulos et al. 2023; ``ppi_py.ppi_mean_ci``
  with ``lam=1``);
* ``"ppi++"`` - the same with the judge's weight ``lam`` tuned from the data (Angelopoulos,
  Duchi & Zrnic 2023; ``ppi_mean_ci`` with ``lam=None``).

The quantity is any mean of a 0/1 value: the harmful share (person: the human label; stand-in:
the judge's label or its score P(zararli)) or the filter's agreement (person: the filter is
right; stand-in: the filter agrees with the judge).  How often each interval holds the truth is
counted over simulated weeks in :mod:`lessonlib.weeks`.

The filter's false block rate is a ratio, P(blocks and clean) / P(clean), not a mean:
:func:`estimate_false_block_rate` estimates both parts from the same records (the labelled
sample alone, PPI or PPI++) and takes its interval by the delta method.

A sample too uniform for the classical interval (all person labels one class, the judge
agreeing with the person on every labelled record, a Rogan-Gladen rate seen at 0 or 1) would
get an interval of no width; the small-sample rule (``_unseen``) gives that part Wilson's
room instead, so no interval collapses; elsewhere the intervals are ppi-python's.

Every estimator here is written once for many weeks at a time (arrays of shape (weeks, records));
the door calls the same code with one week, ``weeks.simulate_estimates`` with many.
"""

from __future__ import annotations

import math
import statistics
import warnings
from collections.abc import Hashable, Iterable
from typing import NamedTuple

import numpy as np

from ._checks import check_choice, check_collection, check_int, check_number, check_seed
from .strata import _check_strata, _stratified

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
    """Wilson's bound on a share seen in none of ``n`` records: z^2 / (n + z^2).

    The small-sample rule: a part of an interval whose values are all alike on the records
    (every person label one class; the person and the judge agreeing on every labelled
    record) has a sample variance of 0, and the classical interval around it has no width.
    Over the records not seen, another value may have a share up to this bound, so that
    part's mean c, in a range [a, b], is given [c - u (c - a), c + u (b - c)]: for a 0/1
    share seen k = 0 or k = n times, exactly Wilson's interval."""
    return z * z / (n + z * z)


def _mean_ci(x, z):
    """The classical interval of each row's mean: mean +- z * sd / sqrt(n) (sd with ddof 0);
    a row whose values are all alike gets the small-sample rule's (``_unseen``) instead."""
    n = x.shape[1]
    mean = x.mean(axis=1)
    half = z * x.std(axis=1) / math.sqrt(n)
    alike = x.min(axis=1) == x.max(axis=1)
    u = _unseen(n, z)
    low = np.where(alike, np.maximum(mean - u * mean, 0.0), mean - half)
    high = np.where(alike, np.minimum(mean + u * (1 - mean), 1.0), mean + half)
    return mean, low, high


def _tuned_lam(y, f, g):
    """PPI++'s weight of the judge, one per row: cov(person, judge) on the labelled records
    over (1 + n/N) times the judge's variance on all records, clipped to [0, 1]; 0 when the
    judge gives every record the same value (it then carries no information)."""
    return np.clip(_raw_lam(y, f, g), 0.0, 1.0)


def _raw_lam(y, f, g):
    """:func:`_tuned_lam` before it is clipped to [0, 1]."""
    n, big_n = y.shape[1], g.shape[1]
    cov = ((y - y.mean(axis=1, keepdims=True)) * (f - f.mean(axis=1, keepdims=True))).mean(axis=1)
    total = f.sum(axis=1) + g.sum(axis=1)
    squares = (f * f).sum(axis=1) + (g * g).sum(axis=1)
    m = n + big_n
    var = (squares - total * total / m) / (m - 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(var > 1e-15, cov / ((1 + n / big_n) * var), 0.0)


def _ppi(y, f, g, z, lam):
    """Prediction-powered mean of each row: lam * mean(g) + mean(y - lam * f), its interval
    from the two parts' variances (ddof 0, as ppi_py); ``lam`` None tunes it (PPI++)."""
    n, big_n = y.shape[1], g.shape[1]
    lam = _tuned_lam(y, f, g) if lam is None else np.full(y.shape[0], float(lam))
    rectifier = y - lam[:, None] * f
    value = lam * g.mean(axis=1) + rectifier.mean(axis=1)
    half = z * np.sqrt(lam**2 * g.var(axis=1) / big_n + rectifier.var(axis=1) / n)
    # the small-sample rule (_unseen): a rectifier alike on every labelled record (the
    # judge agrees with the person on all of them) has no variance; its mean c lies in
    # [-lam, 1], and the records not seen may hold another value with a share up to u;
    # such an interval is also kept inside [0, 1], where a share lies
    # a rectifier that varies only through the person's labels (the judge agreeing on every
    # labelled record, lam < 1) keeps the part lam * (person - judge) at no width: that
    # part gets lam * u on each side
    alike = rectifier.min(axis=1) == rectifier.max(axis=1)
    agree = (y == f).all(axis=1) & ~alike
    if alike.any() or agree.any():
        u, c = _unseen(n, z), rectifier.mean(axis=1)
        judge_half = z * np.sqrt(lam**2 * g.var(axis=1) / big_n)
        below = np.sqrt(judge_half**2 + (u * (c + lam)) ** 2)
        above = np.sqrt(judge_half**2 + (u * (1 - c)) ** 2)
        wider = np.sqrt(half**2 + (lam * u) ** 2)
        low = np.where(alike, value - below, np.where(agree, value - wider, value - half))
        high = np.where(alike, value + above, np.where(agree, value + wider, value + half))
        ruled = alike | agree
        return (
            value,
            np.where(ruled, np.maximum(low, 0.0), low),
            np.where(ruled, np.minimum(high, 1.0), high),
        )
    return value, value - half, value + half


def _corrected(q, tpr, tnr):
    """Rogan-Gladen: (q + TNR - 1) / (TPR + TNR - 1), clipped to [0, 1]."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.clip((q + tnr - 1) / (tpr + tnr - 1), 0.0, 1.0)


def _rogan_gladen(y, f, g, level, resamples, rng):
    """Rogan-Gladen for each row, with a percentile bootstrap.

    A bootstrap resample of the labelled records only changes the four counts of (person,
    judge), so it is one multinomial draw of those counts; the rest's share is redrawn too
    (binomial), which judgy keeps fixed.  Resamples without both classes or with
    TPR + TNR <= 1 are left out, as judgy does."""
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
    # the small-sample rule (_unseen): a rate seen at 0 or 1 on the labelled records (the
    # judge right on every harmful one, say) is never moved by a resample, so the bootstrap
    # holds it fixed; such a row's interval also spans the correction at the ends of the
    # rates' Wilson intervals
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


def _ratio(method, y, f, g, z):
    """The false block rate of each row, sum(a) / sum(b), with a delta-method interval.

    ``y``, ``f``, ``g``: arrays (rows, records, 2) holding (a, b) = (blocked and clean, clean)
    for the person and (blocked and judged clean, judged clean) for the stand-in.  The ratio
    theta solves mean(a - theta * b) = 0, so PPI (and PPI++) treat psi = a - theta * b as the
    quantity: theta = [lam * mean_rest(a^) + mean_lab(a - lam * a^)] / [the same for b], and
    its standard error is PPI's for psi divided by the denominator (the delta method)."""
    if method in ("judge", "labelled"):  # one sample's ratio: the judge's on the rest
        parts = g if method == "judge" else y
        a, b = parts[..., 0], parts[..., 1]
        den = b.mean(axis=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            value = a.mean(axis=1) / den
            half = z * (a - value[:, None] * b).std(axis=1) / math.sqrt(a.shape[1]) / den
        return value, value - half, value + half
    a, b, ah, bh, ag, bg = y[..., 0], y[..., 1], f[..., 0], f[..., 1], g[..., 0], g[..., 1]

    def point(lam):
        num = lam * ag.mean(axis=1) + (a - lam[:, None] * ah).mean(axis=1)
        den = lam * bg.mean(axis=1) + (b - lam[:, None] * bh).mean(axis=1)
        return num / den, den

    lam = np.ones(a.shape[0])
    value, den = point(lam)
    if method == "ppi++":
        t = value[:, None]
        lam = _tuned_lam(a - t * b, ah - t * bh, ag - t * bg)
        value, den = point(lam)
    t = value[:, None]
    psi, psi_hat, psi_rest = a - t * b, ah - t * bh, ag - t * bg
    var = lam**2 * psi_rest.var(axis=1) / ag.shape[1]
    var += (psi - lam[:, None] * psi_hat).var(axis=1) / a.shape[1]
    half = z * np.sqrt(var) / np.abs(den)
    return value, value - half, value + half


def _estimate(method, y, f, g, level, resamples, rng):
    """(value, low, high), three arrays of one entry per row, for one method."""
    z = _z(level)
    if y.ndim == 3:
        return _ratio(method, y, f, g, z)
    if method == "judge":
        return _mean_ci(g, z)
    if method == "labelled":
        return _mean_ci(y, z)
    if method == "rogan_gladen":
        return _rogan_gladen(y, f, g, level, resamples, rng)
    return _ppi(y, f, g, z, 1.0 if method == "ppi" else None)


# ------------------------------------------------------------------------------- the door


def _values(name, values, *, zero_one=False):
    """A 1-D float array of numbers in [0, 1] (0/1 only with ``zero_one``)."""
    values = check_collection(name, values, "a list of 0/1 labels or scores", "value")
    for v in values:
        if isinstance(v, (str, bytes)) or not isinstance(
            v, (bool, int, float, np.number, np.bool_)
        ):
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
    """A rate of this week's traffic with its ``level`` interval (notebook 15).

    ``person``: the person's 0/1 labels on the labelled records; ``judge_labelled``: the
    judge's on the same records; ``judge_rest``: the judge's on the unlabelled rest (0/1
    labels, or scores in [0, 1] except for ``"rogan_gladen"``).  ``method`` is one of
    METHODS (see the module's docstring); ``resamples`` and ``seed`` drive the Rogan-Gladen
    bootstrap only.  Returns an :class:`Estimate` ``(value, low, high)``.

    Small samples: ``person`` needs at least 2 labels (fewer is refused).  A sample too
    uniform for the classical interval (every person label one class; the judge agreeing
    with the person on every labelled record; a rate of Rogan-Gladen seen at 0 or 1) would
    give an interval of no width; it gets the small-sample rule's instead (Wilson's bounds for
    the shares involved, ``_unseen``), so no interval collapses.  Everywhere else
    ``"labelled"``, ``"ppi"`` and ``"ppi++"`` are ppi-python's intervals.  Below about 50
    person labels every method covers less than ``level`` (notebook 15's table): the rule
    removes the zero widths, not the small sample's error.

    ``method="stratified"`` (notebook 16) is the stratified difference estimator of
    :mod:`lessonlib.strata`: ``strata_labelled`` and ``strata_rest`` give the stratum (any
    hashable value) of each labelled and each unlabelled record; the other methods take none.
    """
    check_choice("method", method, METHODS + (STRATIFIED,))
    if method != STRATIFIED and (strata_labelled is not None or strata_rest is not None):
        raise ValueError(
            "strata_labelled and strata_rest are for method='stratified' only; "
            f"method {method!r} takes no strata"
        )
    level = check_number("level", level)
    if not 0 < level < 1:
        raise ValueError(f"level must be between 0 and 1 (e.g. 0.95), got {level!r}")
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
    """The rule filter's false block rate this week with its ``level`` interval (notebook 15).

    A ratio: P(the filter blocks and the record is clean) / P(clean).  ``person``: the
    person's 0/1 labels (1 = harmful) on the labelled records; ``filter_labelled``,
    ``filter_rest``: the filter's 0/1 decisions (1 = blocks); ``judge_labelled``,
    ``judge_rest``: the judge's 0/1 labels or scores P(zararli).  The stand-ins of the two
    parts are 'blocked and judged clean' and 'judged clean'.  ``method``: one of
    RATIO_METHODS; the interval is the delta method's (see ``_ratio``).
    """
    check_choice("method", method, RATIO_METHODS)
    level = check_number("level", level)
    if not 0 < level < 1:
        raise ValueError(f"level must be between 0 and 1 (e.g. 0.95), got {level!r}")
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
    value, low, high = _ratio(
        method, person_parts[None], labelled_parts[None], rest_parts[None], _z(level)
    )
    return Estimate(float(value[0]), float(low[0]), float(high[0]))
