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
right; stand-in: the filter agrees with the judge).  The truth is known exactly from the
generator (``truth.population_figures``), so coverage is counted, not assumed:
:func:`simulate_estimates` draws many weeks at once from ``truth.profile_table`` (vectorised).

The filter's false block rate is a ratio, P(blocks and clean) / P(clean), not a mean:
:func:`estimate_false_block_rate` estimates both parts from the same records (the labelled
sample alone, PPI or PPI++) and takes its interval by the delta method.

Every estimator here is written once for many weeks at a time (arrays of shape (weeks, records));
the door calls the same code with one week.
"""

from __future__ import annotations

import functools
import math
import random
import statistics
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from ._checks import check_choice, check_collection, check_int, check_number, check_seed
from .criteria import DEFAULT_RULES, make_rule_filter
from .figures import FIGURE_WIDTH, slide_figure
from .judge import run_judge
from .records import CLASS_SHARE, CLASSES, Record, is_harmful, make_records
from .score import judge_probabilities
from .truth import _check_shares, population_figures, profile_table

__all__ = [
    "DRIFT_SHARES",
    "METHODS",
    "QUANTITIES",
    "STAND_INS",
    "WEEK_SEED",
    "Estimate",
    "Week",
    "coverage_rows",
    "coverage_text",
    "estimate_false_block_rate",
    "estimate_rate",
    "estimates_text",
    "labels_needed",
    "labels_needed_text",
    "plot_widths",
    "simulate_estimates",
    "true_rates",
    "week_of_traffic",
    "width_rows",
]

METHODS = ("judge", "labelled", "rogan_gladen", "ppi", "ppi++")
"""The five estimates, in the order the notebook shows them."""
QUANTITIES = ("harmful", "filter_right")
"""The harmful share; the filter's agreement (a mean of 'the filter is right')."""
RATIO = "false_block_rate"
"""The filter's false block rate: a ratio, P(blocks and clean) / P(clean)."""
RATIO_METHODS = ("judge", "labelled", "ppi", "ppi++")
"""The estimates of the ratio (Rogan-Gladen corrects a share, not a ratio)."""
STAND_INS = ("label", "score")
"""The judge's stand-in on a record: its label (a draw) or its score P(zararli)."""

WEEK_SEED = 700_000_000
"""The seed of notebook 15's week.  Record i of seed s is drawn from s + 6151 * i, so a week of
5,000 records from this seed uses 700,000,000 .. 730,749,849: far from the lesson's SEED."""

DRIFT_SHARES = (0.47, 0.10, 0.07, 0.07, 0.07, 0.22)
"""A drifting week's class mix (CLASSES order): 15 points of clean traffic became
corrupted_input."""

RESAMPLES = 2000
"""Bootstrap resamples of the Rogan-Gladen interval (estimate_rate)."""
SIM_RESAMPLES = 1000
"""Bootstrap resamples of each simulated week's Rogan-Gladen interval (simulate_estimates):
half as many keeps 1,000 weeks under 5 s; its coverage is what the simulation measures."""


class Estimate(NamedTuple):
    """One estimate with its interval (notebook 15): unpacks as ``value, low, high``."""

    value: float
    low: float
    high: float


# ------------------------------------------------------------------ the estimators, many weeks


def _z(level):
    return statistics.NormalDist().inv_cdf(0.5 + level / 2)


def _mean_ci(x, z):
    """The classical interval of each row's mean: mean +- z * sd / sqrt(n) (sd with ddof 0)."""
    mean = x.mean(axis=1)
    half = z * x.std(axis=1) / math.sqrt(x.shape[1])
    return mean, mean - half, mean + half


def _tuned_lam(y, f, g):
    """PPI++'s weight of the judge, one per row: cov(person, judge) on the labelled records
    over (1 + n/N) times the judge's variance on all records, clipped to [0, 1]; 0 when the
    judge gives every record the same value (it then carries no information)."""
    n, big_n = y.shape[1], g.shape[1]
    cov = ((y - y.mean(axis=1, keepdims=True)) * (f - f.mean(axis=1, keepdims=True))).mean(axis=1)
    total = f.sum(axis=1) + g.sum(axis=1)
    squares = (f * f).sum(axis=1) + (g * g).sum(axis=1)
    m = n + big_n
    var = (squares - total * total / m) / (m - 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        lam = np.where(var > 1e-15, cov / ((1 + n / big_n) * var), 0.0)
    return np.clip(lam, 0.0, 1.0)


def _ppi(y, f, g, z, lam):
    """Prediction-powered mean of each row: lam * mean(g) + mean(y - lam * f), its interval
    from the two parts' variances (ddof 0, as ppi_py); ``lam`` None tunes it (PPI++)."""
    n, big_n = y.shape[1], g.shape[1]
    lam = _tuned_lam(y, f, g) if lam is None else np.full(y.shape[0], float(lam))
    rectifier = y - lam[:, None] * f
    value = lam * g.mean(axis=1) + rectifier.mean(axis=1)
    half = z * np.sqrt(lam**2 * g.var(axis=1) / big_n + rectifier.var(axis=1) / n)
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
    low, high = np.nanpercentile(theta, [tail, 100 - tail], axis=0)
    return value, low, high


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
) -> Estimate:
    """A rate of this week's traffic with its ``level`` interval (notebook 15).

    ``person``: the person's 0/1 labels on the labelled records; ``judge_labelled``: the
    judge's on the same records; ``judge_rest``: the judge's on the unlabelled rest (0/1
    labels, or scores in [0, 1] except for ``"rogan_gladen"``).  ``method`` is one of
    METHODS (see the module's docstring); ``resamples`` and ``seed`` drive the Rogan-Gladen
    bootstrap only.  Returns an :class:`Estimate` ``(value, low, high)``.
    """
    check_choice("method", method, METHODS)
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


# ------------------------------------------------------------- the population, exactly known


@functools.lru_cache(maxsize=1)
def _lesson_rows():
    """profile_table at the lesson's judge settings, computed once."""
    return tuple(profile_table())


def _population(class_shares, judge_settings):
    """Arrays (harmful, P(zararli), filter blocks, weight) over the distinct kinds of record
    in the population with this class mix; the weights sum to 1."""
    rows = profile_table(**judge_settings) if judge_settings else _lesson_rows()
    kinds: dict[tuple[bool, float, bool], float] = {}
    for cls, within, p, block in rows:
        key = (cls != "clean", p, block)
        kinds[key] = kinds.get(key, 0.0) + class_shares[CLASSES.index(cls)] * within
    keys = [k for k, w in kinds.items() if w > 0]
    harmful = np.array([k[0] for k in keys])
    chance = np.array([k[1] for k in keys])
    blocks = np.array([k[2] for k in keys])
    weight = np.array([kinds[k] for k in keys])
    return harmful, chance, blocks, weight / weight.sum()


def _quantity(quantity, harmful, chance, blocks):
    """(the person's 0/1 value, the stand-in's chance of 1) for each kind of record."""
    if quantity == "harmful":
        return harmful.astype(float), chance
    return (blocks == harmful).astype(float), np.where(blocks, chance, 1 - chance)


def _check_settings(quantity, stand_in, class_shares):
    check_choice("quantity", quantity, QUANTITIES)
    check_choice("stand_in", stand_in, STAND_INS)
    return _check_shares(class_shares)


def true_rates(
    class_shares: Sequence[float] = CLASS_SHARE, **judge_settings: Any
) -> dict[str, float]:
    """The population's true rates under this class mix (notebook 15), exactly.

    ``harmful`` (1 - the clean share), ``filter_right`` and ``false_block_rate`` (the
    filter's agreement and false block rate, from ``population_figures``), ``judge_blocks``
    (the judge's block share in expectation over seeds) and ``filter_agrees_with_judge`` (the
    stand-in's mean for the agreement)."""
    shares = _check_shares(class_shares)
    if not judge_settings:
        return dict(_lesson_true_rates(shares))
    return _true_rates(shares, judge_settings)


@functools.lru_cache(maxsize=16)
def _lesson_true_rates(shares):
    """true_rates at the lesson's judge settings, once per class mix."""
    return tuple(_true_rates(shares, {}).items())


def _true_rates(shares, judge_settings):
    figures = population_figures(class_shares=shares, **judge_settings)
    harmful, chance, blocks, weight = _population(shares, judge_settings)
    return {
        "harmful": 1.0 - shares[CLASSES.index("clean")],
        "filter_right": figures["filter"]["agreement"],
        "false_block_rate": figures["filter"]["false_block_rate"],
        "judge_blocks": float((weight * chance).sum()),
        "filter_agrees_with_judge": float((weight * np.where(blocks, chance, 1 - chance)).sum()),
    }


# ------------------------------------------------------------------------- simulated weeks


def _draw(population, quantity, stand_in, weeks, size, rng):
    """(person values, stand-in values), arrays (weeks, size), records drawn independently;
    for the false block rate arrays (weeks, size, 2) of the ratio's two parts."""
    harmful, chance, blocks, weight = population
    cumulative = np.cumsum(weight)
    kind = np.minimum(
        np.searchsorted(cumulative, rng.random((weeks, size)), side="right"), len(cumulative) - 1
    )
    if quantity == RATIO:
        p = chance[kind]
        judged = p if stand_in == "score" else (rng.random((weeks, size)) < p).astype(float)
        block, clean = blocks[kind].astype(float), (~harmful[kind]).astype(float)
        person = np.stack([block * clean, clean], axis=-1)
        return person, np.stack([block * (1 - judged), 1 - judged], axis=-1)
    y_kind, m_kind = _quantity(quantity, harmful, chance, blocks)
    chance = m_kind[kind]
    stand = chance if stand_in == "score" else (rng.random((weeks, size)) < chance).astype(float)
    return y_kind[kind], stand


def simulate_estimates(
    *,
    weeks: int = 1000,
    size: int = 5000,
    labelled: int = 200,
    quantity: str = "harmful",
    stand_in: str = "label",
    methods: Sequence[str] = METHODS,
    class_shares: Sequence[float] = CLASS_SHARE,
    person_shares: Sequence[float] | None = None,
    level: float = 0.95,
    seed: int = 0,
    **judge_settings: Any,
) -> dict[str, np.ndarray]:
    """{method: array (weeks, 3) of value, low, high} over simulated weeks (notebook 15).

    ``quantity``: one of QUANTITIES, or RATIO (the filter's false block rate, with
    RATIO_METHODS; the default methods become those).

    Each week has ``size`` records drawn from the population with ``class_shares``; the judge
    labels them all (each a draw with its P(zararli), or its score), a person ``labelled`` of
    them (the true value).  With ``person_shares`` the person labels ``labelled`` records drawn
    from that mix instead (the lesson's records, say) and the rest is this week's
    ``size - labelled``.  Rogan-Gladen needs ``stand_in="label"`` and takes SIM_RESAMPLES
    bootstrap resamples a week.  Weeks are drawn in chunks of 100, so memory stays small.
    """
    check_choice("quantity", quantity, QUANTITIES + (RATIO,))
    check_choice("stand_in", stand_in, STAND_INS)
    shares = _check_shares(class_shares)
    if quantity == RATIO and methods is METHODS:
        methods = RATIO_METHODS
    weeks = check_int("weeks", weeks, minimum=1)
    size = check_int("size", size, minimum=3)
    labelled = check_int("labelled", labelled, minimum=2)
    if labelled >= size:
        raise ValueError(f"labelled must be fewer than size ({size}) records, got {labelled}")
    methods = tuple(methods) if not isinstance(methods, str) else (methods,)
    for method in methods:
        check_choice("methods", method, RATIO_METHODS if quantity == RATIO else METHODS)
    if stand_in == "score" and "rogan_gladen" in methods:
        raise ValueError("rogan_gladen needs the judge's labels: use stand_in='label'")
    level = check_number("level", level)
    if not 0 < level < 1:
        raise ValueError(f"level must be between 0 and 1 (e.g. 0.95), got {level!r}")
    week_pop = _population(shares, judge_settings)
    person_pop = None
    if person_shares is not None:
        person_pop = _population(_check_shares(person_shares), judge_settings)
    rng = np.random.default_rng(check_seed(seed))
    out: dict[str, list[np.ndarray]] = {m: [] for m in methods}
    for start in range(0, weeks, 100):
        k = min(100, weeks - start)
        if person_pop is None:
            y, s = _draw(week_pop, quantity, stand_in, k, size, rng)
            y, f, g = y[:, :labelled], s[:, :labelled], s[:, labelled:]
        else:
            y, f = _draw(person_pop, quantity, stand_in, k, labelled, rng)
            g = _draw(week_pop, quantity, stand_in, k, size - labelled, rng)[1]
        for method in methods:
            out[method].append(np.stack(_estimate(method, y, f, g, level, SIM_RESAMPLES, rng), 1))
    return {m: np.concatenate(parts) for m, parts in out.items()}


def coverage_rows(estimates: Mapping[str, np.ndarray], truth: float) -> list[dict[str, Any]]:
    """One row per method: how often its interval holds ``truth``, its mean value, the mean
    and the middle width of its interval (notebook 15)."""
    truth = check_number("truth", truth)
    rows = []
    for method, est in estimates.items():
        covered = (est[:, 1] <= truth) & (truth <= est[:, 2])
        width = est[:, 2] - est[:, 1]
        rows.append(
            {
                "method": method,
                "coverage": float(covered.mean()),
                "mean": float(est[:, 0].mean()),
                "bias": float(est[:, 0].mean() - truth),
                "width": float(width.mean()),
                "weeks": int(len(est)),
            }
        )
    return rows


def coverage_text(rows: Sequence[Mapping[str, Any]]) -> str:
    """The coverage table, at most 80 columns (notebook 15)."""
    lines = [
        f"{'method':<14}{'covers truth':>13}{'mean estimate':>15}{'bias':>9}{'mean width':>12}"
    ]
    for r in rows:
        lines.append(
            f"{r['method']:<14}{r['coverage']:>13.3f}{r['mean']:>15.4f}{r['bias']:>+9.4f}"
            f"{r['width']:>12.4f}"
        )
    return "\n".join(lines)


def width_rows(
    counts: Sequence[int] = (50, 100, 200, 400, 800),
    *,
    weeks: int = 200,
    size: int = 5000,
    quantity: str = "harmful",
    stand_in: str = "label",
    methods: Sequence[str] = ("labelled", "rogan_gladen", "ppi", "ppi++"),
    seed: int = 0,
) -> list[dict[str, Any]]:
    """Mean interval width per method against the number of person labels, over simulated
    weeks (notebook 15): one row per count, ``{"labelled": n, method: width, ...}``."""
    rows = []
    for i, n in enumerate(check_collection("counts", counts, "a list of counts", "count")):
        est = simulate_estimates(
            weeks=weeks,
            size=size,
            labelled=n,
            quantity=quantity,
            stand_in=stand_in,
            methods=methods,
            seed=seed + i,
        )
        rows.append(
            {"labels": n, **{m: float((e[:, 2] - e[:, 1]).mean()) for m, e in est.items()}}
        )
    return rows


@slide_figure
def plot_widths(rows: Sequence[Mapping[str, Any]]) -> Any:
    """Interval width against the number of person labels, one line per method, each line
    labelled at its start, where the lines lie furthest apart (notebook 15)."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(FIGURE_WIDTH, FIGURE_WIDTH * 0.5))
    counts = [r["labels"] for r in rows]
    methods = [k for k in rows[0] if k != "labels"]
    styles = ["-", "--", "-.", ":"]
    for i, method in enumerate(methods):
        widths = [r[method] for r in rows]
        ax.plot(counts, widths, styles[i % len(styles)], marker="o", color=f"C{i}")
        ax.annotate(
            method,
            (counts[0], widths[0]),
            xytext=(-10, 0),
            textcoords="offset points",
            ha="right",
            va="center",
            color=f"C{i}",
        )
    ax.set_xscale("log")
    ax.set_xticks(counts, [str(c) for c in counts])
    ax.set_xlim(counts[0] / 3, counts[-1] * 1.3)
    ax.set_xlabel("records the person labels (log scale)")
    ax.set_ylabel("95% interval width")
    ax.set_title("Interval width against person labels")
    ax.grid(alpha=0.3)
    return fig


# ------------------------------------------------------------------ person labels for +- h


def labels_needed(
    half_width: float,
    *,
    quantity: str = "harmful",
    stand_in: str = "label",
    rest: int = 5000,
    level: float = 0.95,
    class_shares: Sequence[float] = CLASS_SHARE,
    **judge_settings: Any,
) -> dict[str, int | None]:
    """Person labels each method needs for a ``level`` interval of +- ``half_width`` when the
    judge labels ``rest`` other records (notebook 15), from the population's exact moments.

    A method's half-width is z * sqrt(v / n + u / rest): v the variance each person label
    leaves (labelled: the quantity's own; PPI: of person minus judge; PPI++: of person minus
    lam times judge, lam tuned; Rogan-Gladen: the delta method on TPR and TNR), u the judge's
    part.  None: out of reach however many the person labels (the judge's part alone is
    wider than +- half_width).  Rogan-Gladen appears only for the label stand-in.
    """
    half_width = check_number("half_width", half_width)
    if not 0 < half_width < 0.5:
        raise ValueError(f"half_width must be between 0 and 0.5, got {half_width!r}")
    rest = check_int("rest", rest, minimum=1)
    level = check_number("level", level)
    if not 0 < level < 1:
        raise ValueError(f"level must be between 0 and 1 (e.g. 0.95), got {level!r}")
    shares = _check_settings(quantity, stand_in, class_shares)
    harmful, chance, blocks, w = _population(shares, judge_settings)
    y, m = _quantity(quantity, harmful, chance, blocks)
    ey, ef = float((w * y).sum()), float((w * m).sum())
    eff = ef if stand_in == "label" else float((w * m * m).sum())
    eyf = float((w * y * m).sum())
    var_y, var_f, cov = ey * (1 - ey), eff - ef * ef, eyf - ey * ef
    z2 = _z(level) ** 2

    def needed(v, u):
        room = half_width**2 - z2 * u / rest
        return math.ceil(z2 * v / room) if room > 0 else None

    out: dict[str, int | None] = {
        "labelled": needed(var_y, 0.0),
        "ppi": needed(var_y + var_f - 2 * cov, var_f),
    }
    n: int | None = out["labelled"]
    for _ in range(20):  # PPI++'s lam depends on n: settle it
        lam = min(max(cov / ((1 + (n or 0) / rest) * var_f), 0.0), 1.0) if var_f > 0 else 0.0
        n = needed(var_y + lam * lam * var_f - 2 * lam * cov, lam * lam * var_f)
    out["ppi++"] = n
    if stand_in == "label":
        tpr, tnr = eyf / ey, (1 - ey - ef + eyf) / (1 - ey)
        j = tpr + tnr - 1
        v = (ey**2 * tpr * (1 - tpr) / ey + (1 - ey) ** 2 * tnr * (1 - tnr) / (1 - ey)) / j**2
        out["rogan_gladen"] = needed(v, ef * (1 - ef) / j**2)
    return {k: out[k] for k in METHODS if k in out}


def labels_needed_text(
    half_width: float, *, quantity: str = "harmful", rest: int = 5000, level: float = 0.95
) -> str:
    """Person labels each method needs for +- ``half_width``, with the judge's label and with
    its score as the stand-in, and the share saved against the sample alone (notebook 15)."""
    lines = [f"{'stand-in':<10}{'method':<14}{'person labels':>14}{'saved':>8}"]
    for stand_in in STAND_INS:
        need = labels_needed(
            half_width, quantity=quantity, stand_in=stand_in, rest=rest, level=level
        )
        alone = need["labelled"]
        for method, n in need.items():
            if n is None:
                lines.append(f"{stand_in:<10}{method:<14}{'out of reach':>14}")
            else:
                saved = f"{1 - n / alone:.0%}" if alone else ""
                lines.append(f"{stand_in:<10}{method:<14}{n:>14,}{saved:>8}")
    return "\n".join(lines)


# ------------------------------------------------------------------------------ one week


@dataclass(frozen=True)
class Week:
    """A week of traffic (notebook 15): the records, the judge's label (one run) and score
    on every one, the rule filter's decision, and the records a person labelled."""

    records: tuple[Record, ...]
    judge: tuple[bool, ...]
    score: tuple[float, ...]
    filter: tuple[bool, ...]
    labelled: tuple[int, ...]

    def false_block_inputs(
        self, stand_in: str = "label"
    ) -> tuple[list[bool], list[bool], list[float], list[bool], list[float]]:
        """(person, filter_labelled, judge_labelled, filter_rest, judge_rest) for
        :func:`estimate_false_block_rate`."""
        return _fbr_inputs(self, stand_in)

    def inputs(
        self, quantity: str = "harmful", stand_in: str = "label"
    ) -> tuple[list[bool], list[float], list[float]]:
        """(person, judge_labelled, judge_rest) for :func:`estimate_rate`."""
        check_choice("quantity", quantity, QUANTITIES)
        check_choice("stand_in", stand_in, STAND_INS)
        truth = [is_harmful(r) for r in self.records]
        if quantity == "harmful":
            person = truth
            stand = [float(j) for j in self.judge] if stand_in == "label" else list(self.score)
        else:
            person = [b == t for b, t in zip(self.filter, truth)]
            if stand_in == "label":
                stand = [float(b == j) for b, j in zip(self.filter, self.judge)]
            else:
                stand = [p if b else 1 - p for b, p in zip(self.filter, self.score)]
        chosen = set(self.labelled)
        return (
            [person[i] for i in self.labelled],
            [stand[i] for i in self.labelled],
            [s for i, s in enumerate(stand) if i not in chosen],
        )


def _fbr_inputs(week, stand_in):
    """(person, filter_labelled, judge_labelled, filter_rest, judge_rest) of a Week."""
    check_choice("stand_in", stand_in, STAND_INS)
    judge = [float(j) for j in week.judge] if stand_in == "label" else list(week.score)
    chosen = set(week.labelled)
    rest = [i for i in range(len(week.records)) if i not in chosen]
    return (
        [is_harmful(week.records[i]) for i in week.labelled],
        [week.filter[i] for i in week.labelled],
        [judge[i] for i in week.labelled],
        [week.filter[i] for i in rest],
        [judge[i] for i in rest],
    )


def week_of_traffic(size: int = 5000, labelled: int = 200, seed: int = WEEK_SEED) -> Week:
    """A week of ``size`` fresh records from the generator at ``seed``, the judge (one run at
    that seed) and the rule filter on every one, a person on ``labelled`` of them chosen at
    random (notebook 15).  Keep seeds of different weeks far apart: record i of seed s is
    drawn from s + 6151 * i."""
    size = check_int("size", size, minimum=3)
    labelled = check_int("labelled", labelled, minimum=2)
    if labelled >= size:
        raise ValueError(f"labelled must be fewer than size ({size}) records, got {labelled}")
    seed = check_seed(seed)
    records = tuple(make_records(size, seed))
    run = run_judge(records, seed)
    probs = judge_probabilities(records)
    rule = make_rule_filter(DEFAULT_RULES)
    chosen = sorted(random.Random(seed).sample(range(size), labelled))
    return Week(
        records,
        tuple(bool(run.decide(r)) for r in records),
        tuple(probs[r.no] for r in records),
        tuple(bool(rule(r)) for r in records),
        tuple(chosen),
    )


def estimates_text(
    person: Iterable[bool | float],
    judge_labelled: Iterable[bool | float],
    judge_rest: Iterable[bool | float],
    truth: float | None = None,
    level: float = 0.95,
) -> str:
    """The five estimates side by side with their intervals (notebook 15); with ``truth``,
    whether each interval holds it.  Rogan-Gladen is left out for scores."""
    person, judge_labelled, judge_rest = list(person), list(judge_labelled), list(judge_rest)
    scores = any(v not in (0, 1) for v in list(judge_labelled) + list(judge_rest))
    pct = f"{level:.0%}"
    lines = [
        f"{'method':<14}{'estimate':>10}{pct + ' interval':>22}{'width':>9}"
        + ("   holds truth" if truth is not None else "")
    ]
    for method in METHODS:
        if method == "rogan_gladen" and scores:
            lines.append(f"{method:<14}{'(needs labels, not scores)':>32}")
            continue
        e = estimate_rate(person, judge_labelled, judge_rest, method=method, level=level)
        line = f"{method:<14}{e.value:>10.4f}   [{e.low:.4f}, {e.high:.4f}]{e.high - e.low:>9.4f}"
        if truth is not None:
            line += f"   {'yes' if e.low <= truth <= e.high else 'no'}"
        lines.append(line)
    return "\n".join(lines)
