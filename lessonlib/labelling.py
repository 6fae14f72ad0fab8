"""Notebook 16 - a person's labels spent well, a person who errs, a dashboard read every day.

Measured on simulated weeks whose truth is known (:mod:`lessonlib.weeks`): the designs of
:mod:`lessonlib.strata` (:func:`simulate_designs`, :func:`design_labels_needed`); a person who
slips with chance e, measured from records labelled twice (:func:`slip_rate`) and undone
(:func:`estimate_with_slips`, :func:`simulate_slips`); and a dashboard read at every look, with
the normal-mixture :func:`confidence_sequence` (Howard et al. 2021) against a fixed-n interval
(:func:`plot_dashboard`).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

import numpy as np

from ._checks import (
    check_between,
    check_choice,
    check_fewer,
    check_int,
    check_names,
    check_number,
    check_seed,
)
from .figures import FIGURE_WIDTH, slide_figure
from .judge import JudgeSettings, SettingsChanges, resolve_settings
from .production import Estimate, _estimate, _z, estimate_rate
from .records import CLASS_SHARE
from .strata import DESIGNS, _allocate, _merge, _person_part, _values, prior_spread
from .truth import _check_shares
from .weeks import _draw, _population

if TYPE_CHECKING:
    from matplotlib.figure import Figure
    from typing_extensions import Unpack

__all__ = [
    "LOOKS",
    "PLANNED_LOOK",
    "confidence_sequence",
    "design_labels_needed",
    "estimate_with_slips",
    "plot_dashboard",
    "score_levels",
    "simulate_designs",
    "simulate_slips",
    "slip_rate",
]

LOOKS = tuple(range(10, 501, 10))
"""The dashboard's looks: after every 10 labels up to 500."""
PLANNED_LOOK = 250
"""The look at which the confidence sequence is tuned to be narrowest."""


# ---------------------------------------------------------------- 1. which records to label


def _design_weeks(population, design, k, size, budget, rng, z):
    """(value, low, high), arrays of k weeks, for one design: a week is its count of each kind
    of record (multinomial), a stratum's labels a multivariate hypergeometric draw."""
    harmful, chance, _, weight = population
    y_kind = harmful.astype(float)
    if design == "random":  # the first `budget` records of a week are a random sample
        y, s = _draw(population, "harmful", "score", k, size, rng)
        return _estimate("ppi++", y[:, :budget], s[:, :budget], s[:, budget:], 0.95, 0, rng)
    levels, level_of_kind = np.unique(chance, return_inverse=True)
    level_of_kind = level_of_kind.ravel()
    counts = rng.multinomial(size, weight, size=k)  # (k, kinds)
    value, person, week = np.empty(k), np.empty(k), np.empty(k)
    d_kind, d2_kind = y_kind - chance, (y_kind - chance) ** 2
    for w in range(k):  # a week: a few levels and strata, cheap
        c = counts[w]
        per_level = np.bincount(level_of_kind, c, minlength=len(levels))
        of_level = _merge(per_level, size)
        stratum = of_level[level_of_kind]
        sizes = np.bincount(stratum, c, minlength=of_level[-1] + 1)
        if design == "proportional":
            weights = sizes
        else:
            weights = sizes * prior_spread(np.bincount(stratum, c * chance) / sizes)
        n_h = _allocate(sizes, weights, budget)
        lab = np.zeros_like(c)
        for h, n in enumerate(n_h):
            inside = np.flatnonzero(stratum == h)
            lab[inside] = rng.multivariate_hypergeometric(c[inside], int(n))
        d_mean = np.bincount(stratum, lab * d_kind) / n_h
        d_var = (np.bincount(stratum, lab * d2_kind) - n_h * d_mean**2) / (n_h - 1)
        corrected = chance + d_mean[stratum]
        value[w] = (c * corrected).sum() / size
        person[w] = _person_part(sizes / size, d_var, n_h, z)
        week[w] = (c * (corrected - value[w]) ** 2).sum() / (size - 1) / size
    half = z * np.sqrt(person + week)
    return value, np.maximum(value - half, 0.0), np.minimum(value + half, 1.0)


def simulate_designs(
    designs: Sequence[str] = DESIGNS,
    *,
    weeks: int = 1000,
    size: int = 5000,
    budget: int = 360,
    class_shares: Sequence[float] = CLASS_SHARE,
    seed: int = 0,
    settings: JudgeSettings | None = None,
    **changes: Unpack[SettingsChanges],
) -> dict[str, np.ndarray]:
    """{design: array (weeks, 3) of value, low, high} over simulated weeks of ``size`` records,
    ``budget`` labelled as ``choose_records`` would; ``"random"`` estimated with PPI++ and the
    score, the stratified designs with the stratified estimator (95% intervals)."""
    designs = check_names("designs", (designs,) if isinstance(designs, str) else designs, DESIGNS)
    if not designs:
        raise ValueError(f"designs must name at least one of {', '.join(DESIGNS)}")
    weeks = check_int("weeks", weeks, minimum=1)
    size = check_int("size", size, minimum=200)
    budget = check_fewer("budget", budget, "size", size, minimum=40)
    shares = _check_shares(class_shares)
    population = _population(shares, resolve_settings(settings, changes))
    rng = np.random.default_rng(check_seed(seed))
    z = _z(0.95)
    out: dict[str, list[np.ndarray]] = {d: [] for d in designs}
    for start in range(0, weeks, 100):
        k = min(100, weeks - start)
        for design in designs:
            out[design].append(
                np.stack(_design_weeks(population, design, k, size, budget, rng, z), 1)
            )
    return {d: np.concatenate(parts) for d, parts in out.items()}


def score_levels(
    class_shares: Sequence[float] = CLASS_SHARE,
    settings: JudgeSettings | None = None,
    **changes: Unpack[SettingsChanges],
) -> list[dict[str, float]]:
    """The population's score levels, exactly: one row per distinct score, lowest first, with
    its ``share`` of the traffic and the ``harmful`` share of its records."""
    levels, share, truth = _levels(class_shares, settings, changes)
    return [
        {"score": float(s), "share": float(w), "harmful": float(p)}
        for s, w, p in zip(levels, share, truth)
    ]


def _levels(class_shares, settings, changes):
    """(score levels, their shares of the traffic, the harmful share at each), exactly."""
    harmful, chance, _, weight = _population(
        _check_shares(class_shares), resolve_settings(settings, changes)
    )
    levels, where = np.unique(chance, return_inverse=True)
    share = np.bincount(where, weight)
    return levels, share, np.bincount(where, weight * harmful) / share


def design_labels_needed(
    half_width: float,
    *,
    size: int = 5000,
    class_shares: Sequence[float] = CLASS_SHARE,
    settings: JudgeSettings | None = None,
    **changes: Unpack[SettingsChanges],
) -> dict[str, int]:
    """Person labels each design needs for a 95% interval of +- ``half_width`` on the
    harmful share in a week of ``size`` records, from the population's exact table (each score
    level a stratum): ``random``, ``proportional`` and ``neyman (prior|score|true)``."""
    half_width = check_between("half_width", half_width, 0, 0.5)
    size = check_int("size", size, minimum=2)
    levels, share, truth = _levels(class_shares, settings, changes)
    spread = np.sqrt(truth * (1 - truth))
    theta = float((share * truth).sum())
    z2 = _z(0.95) ** 2
    room = half_width**2 / z2 - float((share * truth**2).sum() - theta**2) / size

    def needed(alloc):  # alloc: the share of the labels each level gets
        return math.ceil(float((share**2 * spread**2 / alloc).sum()) / room)

    out = {"random": math.ceil(z2 * theta * (1 - theta) / half_width**2)}
    out["proportional"] = needed(share)
    for name, guess in (
        ("prior", prior_spread(levels)),
        ("score", np.sqrt(levels * (1 - levels))),
        ("true", spread),
    ):
        w = share * np.maximum(guess, 1e-12)
        out[f"neyman ({name})"] = needed(w / w.sum())
    return out


# --------------------------------------------------------------------------- 2. slips


def _slip_from_disagreement(disagree, m):
    """(e, var e) from the share of m double-labelled records labelled differently."""
    dd = np.minimum(disagree, 0.5 - 1e-9)
    e = (1 - np.sqrt(1 - 2 * dd)) / 2
    var = np.maximum(dd * (1 - dd), 0.25 / m) / m / (4 * (1 - 2 * dd))
    return e, var


def _undo_slips(value, var_value, e, var_e, z):
    """(theta, low, high): theta = (value - e) / (1 - 2 e), the delta method for both parts."""
    scale = 1 - 2 * e
    theta = (value - e) / scale
    var = var_value / scale**2 + (2 * value - 1) ** 2 / scale**4 * var_e
    half = z * np.sqrt(var)
    return theta, theta - half, theta + half


def simulate_slips(
    slip: float,
    labelled: int,
    *,
    double: int = 0,
    weeks: int = 1000,
    size: int = 5000,
    seed: int = 0,
    class_shares: Sequence[float] = CLASS_SHARE,
    settings: JudgeSettings | None = None,
    **changes: Unpack[SettingsChanges],
) -> np.ndarray:
    """(weeks, 3) array of value, low, high of PPI++ with the score when each person label
    slips with chance ``slip``; ``double`` = m >= 2 labels m records twice and undoes the slips
    as :func:`estimate_with_slips` does."""
    slip = check_number("slip", slip, minimum=0.0)
    if slip >= 0.5:
        raise ValueError(
            f"slip must be below 0.5 (a person who errs less than a coin), got {slip}"
        )
    weeks = check_int("weeks", weeks, minimum=1)
    size = check_int("size", size, minimum=3)
    labelled = check_fewer("labelled", labelled, "size", size)
    double = check_int("double", double, minimum=0)
    if double > labelled:
        raise ValueError(f"double must be at most labelled ({labelled}), got {double}")
    if double == 1:
        raise ValueError("double must be 0 (no second labels) or at least 2")
    population = _population(_check_shares(class_shares), resolve_settings(settings, changes))
    rng = np.random.default_rng(check_seed(seed))
    z = _z(0.95)
    parts = []
    for start in range(0, weeks, 100):
        k = min(100, weeks - start)
        y, s = _draw(population, "harmful", "score", k, size, rng)
        y = y[:, :labelled]
        first = np.abs(y - (rng.random(y.shape) < slip))
        value, low, high = _estimate(
            "ppi++", first, s[:, :labelled], s[:, labelled:], 0.95, 0, rng
        )
        if double:
            second = np.abs(y[:, :double] - (rng.random((k, double)) < slip))
            e, var_e = _slip_from_disagreement((first[:, :double] != second).mean(axis=1), double)
            var_value = ((high - low) / (2 * z)) ** 2
            value, low, high = _undo_slips(value, var_value, e, var_e, z)
        parts.append(np.stack([value, low, high], 1))
    return np.concatenate(parts)


def _pairs(first, second):
    a = _values("first", first, zero_one=True)
    b = _values("second", second, zero_one=True)
    if len(a) != len(b):
        raise ValueError(
            "first and second must be two labellings of the same records, one label each: "
            f"got {len(a)} and {len(b)}"
        )
    if len(a) < 2:
        raise ValueError(f"first must hold at least 2 double-labelled records, got {len(a)}")
    return a, b


def slip_rate(
    first: Iterable[bool | float], second: Iterable[bool | float], *, level: float = 0.95
) -> Estimate:
    """The person's slip rate e, with its interval, from ``first`` and ``second``, two 0/1
    labellings of the same records: they disagree with chance D = 2 e (1 - e)."""
    level = check_between("level", level, 0, 1, "0.95")
    a, b = _pairs(first, second)
    e, var = _slip_from_disagreement(np.array([(a != b).mean()]), len(a))
    half = _z(level) * math.sqrt(float(var[0]))
    return Estimate(float(e[0]), max(0.0, float(e[0]) - half), float(e[0]) + half)


def estimate_with_slips(
    person: Iterable[bool | float],
    judge_labelled: Iterable[bool | float],
    judge_rest: Iterable[bool | float],
    first: Iterable[bool | float],
    second: Iterable[bool | float],
    *,
    method: str = "ppi++",
    level: float = 0.95,
) -> Estimate:
    """``estimate_rate``'s v corrected for symmetric slips, (v - e) / (1 - 2 e), e from
    ``first`` and ``second`` as :func:`slip_rate`; the interval carries e's uncertainty."""
    check_choice("method", method, ("labelled", "ppi", "ppi++"))
    level = check_between("level", level, 0, 1, "0.95")
    a, b = _pairs(first, second)
    z = _z(level)
    value, low, _ = estimate_rate(person, judge_labelled, judge_rest, method=method, level=level)
    e, var_e = _slip_from_disagreement(np.array([(a != b).mean()]), len(a))
    theta, lo, hi = _undo_slips(value, ((value - low) / z) ** 2, e[0], var_e[0], z)
    return Estimate(float(theta), float(lo), float(hi))


# --------------------------------------------------------------------- 3. the dashboard


def _radii(t, var, level, planned):
    """The normal-mixture sequence's half-widths at t labels of running variance var."""
    alpha = 1 - level
    rho2 = (-2 * math.log(alpha) + math.log(-2 * math.log(alpha) + 1)) / planned
    return np.sqrt(var) * np.sqrt(
        2 * (t * rho2 + 1) / (t * t * rho2) * np.log(np.sqrt(t * rho2 + 1) / alpha)
    )


def _running(labels):
    """(t, running mean, running variance (ddof 0)) of each row of labels."""
    t = np.arange(1, labels.shape[-1] + 1)
    mean = np.cumsum(labels, axis=-1) / t
    var = np.maximum(np.cumsum(labels * labels, axis=-1) / t - mean**2, 0.0)
    return t, mean, var


def confidence_sequence(
    labels: Iterable[bool | float], *, level: float = 0.95, planned: int = PLANNED_LOOK
) -> list[Estimate]:
    """One :class:`Estimate` per prefix of a stream of 0/1 ``labels``: the share of 1s with an
    interval valid at every look at once (the normal-mixture boundary, narrowest near
    ``planned`` labels; asymptotic: the first few looks are not to be trusted)."""
    level = check_between("level", level, 0, 1, "0.95")
    planned = check_int("planned", planned, minimum=1)
    y = _values("labels", labels, zero_one=True)
    t, mean, var = _running(y)
    half = _radii(t, var, level, planned)
    return list(
        map(Estimate._make, zip(mean.tolist(), (mean - half).tolist(), (mean + half).tolist()))
    )


@slide_figure
def plot_dashboard(labels: Iterable[bool | float], truth: float) -> Figure:
    """One stream of 0/1 ``labels`` read at each look: the running share, its fixed-n interval
    (a cross where it misses ``truth``) and the confidence sequence."""
    import matplotlib.pyplot as plt

    y = _values("labels", labels, zero_one=True)
    truth = check_number("truth", truth)
    if len(y) < LOOKS[-1]:
        raise ValueError(f"labels must hold at least {LOOKS[-1]} (the last look), got {len(y)}")
    t, mean, var = _running(y)
    at = np.array(LOOKS) - 1
    fig, ax = plt.subplots(figsize=(FIGURE_WIDTH, FIGURE_WIDTH * 0.5))
    x, m = t[at], mean[at]
    half = _radii(x, var[at], 0.95, PLANNED_LOOK)
    ax.fill_between(x, m - half, m + half, color="C1", alpha=0.3, label="confidence sequence")
    half = _z(0.95) * np.sqrt(var[at] / x)
    ax.plot(x, m - half, color="C0", linewidth=2, label="95% interval")
    ax.plot(x, m + half, color="C0", linewidth=2)
    ax.plot(x, m, color="black", label="running share")
    ax.axhline(truth, color="C3", linestyle="--", label="truth")
    missed = np.abs(m - truth) > half
    if missed.any():
        ax.plot(x[missed], m[missed], "X", color="C3", markersize=9, label="interval misses")
    ax.set_ylim(max(0.0, truth - 0.3), min(1.0, truth + 0.3))
    ax.set_xlabel("labels so far")
    ax.set_ylabel("harmful share")
    ax.set_title("One stream of labels, read at every look")
    ax.legend(loc="lower right", ncol=3)
    ax.grid(alpha=0.3)
    return fig
