"""Notebook 16 - a person's labels spent well, a person who errs, a dashboard read every day.

The choice of records and the stratified estimate are in :mod:`lessonlib.strata` (doors:
``choose_records``, ``score_strata``, ``estimate_rate(..., method="stratified")``); this
module measures them on simulated weeks whose truth is known (:mod:`lessonlib.weeks`):

1. **Which records to label.**  :func:`simulate_designs` runs each design over many simulated
   weeks at once (vectorised): the random sample estimated with PPI++ and the score (notebook
   15's best), the stratified designs with the stratified difference estimator.
   :func:`design_labels_needed` gives the labels each design needs for +- h from the
   population's exact table, with the spread Neyman is given (the clipped score's, the raw
   score's, or the true one, which no one knows before labelling).
2. **The person errs.**  A person who slips (calls a record the other class) with chance e on
   every record moves every correction by e (1 - 2 pi).  :func:`simulate_slips` measures what
   that does to PPI++'s coverage; the remedy is a subset labelled twice: two independent
   labellings disagree with chance 2 e (1 - e), which measures e (:func:`slip_rate`), and
   :func:`estimate_with_slips` undoes the slips with an interval that carries e's uncertainty.
3. **The dashboard read every day.**  A 95% interval looked at again and again will, at some
   look, miss.  :func:`confidence_sequence` is an interval valid at every look at once (the
   normal-mixture boundary of Howard, Ramdas, McAuliffe & Sekhon 2021, with the variance
   estimated as in Waudby-Smith et al.'s asymptotic confidence sequences);
   :func:`simulate_dashboard` counts how often each kind of interval misses at some look, and
   :func:`plot_dashboard` draws one stream of labels.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ._checks import check_choice, check_collection, check_int, check_number, check_seed
from .figures import FIGURE_WIDTH, slide_figure
from .judge import JudgeSettings, SettingsChanges, resolve_settings
from .production import Estimate, _estimate, _values, _z, estimate_rate
from .records import CLASS_SHARE
from .strata import DESIGNS, _allocate, _merge, prior_spread
from .truth import _check_shares
from .weeks import _population

if TYPE_CHECKING:
    from matplotlib.figure import Figure
    from typing_extensions import Unpack

__all__ = [
    "LOOKS",
    "PLANNED_LOOK",
    "SPREADS",
    "confidence_sequence",
    "design_labels_needed",
    "estimate_with_slips",
    "plot_dashboard",
    "score_levels",
    "simulate_dashboard",
    "simulate_designs",
    "simulate_slips",
    "slip_rate",
]

SPREADS = ("prior", "score", "true")
"""The spread Neyman is given: the clipped score's (choose_records), the raw score's
sqrt(s (1 - s)), or the true one of each level (known only to the generator)."""
LOOKS = tuple(range(10, 501, 10))
"""The dashboard's looks: after every 10 labels up to 500."""
PLANNED_LOOK = 250
"""The look at which the confidence sequence is tuned to be narrowest."""


def _checked_level(level):
    level = check_number("level", level)
    if not 0 < level < 1:
        raise ValueError(f"level must be between 0 and 1 (e.g. 0.95), got {level!r}")
    return level


# ---------------------------------------------------------------- 1. which records to label


def _design_weeks(population, design, k, size, budget, rng, z):
    """(value, low, high), arrays of k weeks, for one design on k simulated weeks.

    Records are drawn independently, so a week is its count of each kind of record
    (multinomial), and a stratified design's labelled records are, in each stratum, a random
    subset of the stratum's records: a multivariate hypergeometric draw over its kinds.  That
    is what ``choose_records`` does record by record, at a fraction of the cost."""
    harmful, chance, _, weight = population
    y_kind = harmful.astype(float)
    if design == "random":  # the first `budget` records of a week are a random sample
        cumulative = np.cumsum(weight)
        kind = np.minimum(
            np.searchsorted(cumulative, rng.random((k, size)), side="right"), len(weight) - 1
        )
        y, s = y_kind[kind], chance[kind]
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
        share = sizes / size
        person[w] = (share**2 * np.maximum(d_var, 0.0) / n_h).sum()
        week[w] = (c * (corrected - value[w]) ** 2).sum() / (size - 1) / size
    half = z * np.sqrt(person + week)
    return value, value - half, value + half


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
    """{design: array (weeks, 3) of value, low, high} over simulated weeks (notebook 16).

    Each week holds ``size`` records from the population with ``class_shares``; the judge's
    score is on every record, the person (who never errs) labels ``budget`` of them, chosen as
    ``choose_records`` would with each design.  ``"random"`` is estimated with PPI++ and the
    score, the stratified designs with ``estimate_rate(..., method="stratified")``'s estimator.
    A 95% interval; weeks in chunks of 100, so memory stays small."""
    designs = (designs,) if isinstance(designs, str) else tuple(designs)
    if not designs:
        raise ValueError(f"designs must name at least one of {', '.join(DESIGNS)}")
    for design in designs:
        check_choice("designs", design, DESIGNS)
    weeks = check_int("weeks", weeks, minimum=1)
    size = check_int("size", size, minimum=200)
    budget = check_int("budget", budget, minimum=40)
    if budget >= size:
        raise ValueError(f"budget must be fewer than size ({size}) records, got {budget}")
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
    """The population's score levels, exactly (notebook 16): one row per distinct score
    P(zararli), lowest first, with its ``share`` of the traffic and the ``harmful`` share of
    its records (what a person would find there: the level's calibration)."""
    shares = _check_shares(class_shares)
    harmful, chance, _, weight = _population(shares, resolve_settings(settings, changes))
    levels, where = np.unique(chance, return_inverse=True)
    share = np.bincount(where, weight)
    truth = np.bincount(where, weight * harmful) / share
    return [
        {"score": float(s), "share": float(w), "harmful": float(p)}
        for s, w, p in zip(levels, share, truth)
    ]


def design_labels_needed(
    half_width: float,
    *,
    size: int = 5000,
    level: float = 0.95,
    class_shares: Sequence[float] = CLASS_SHARE,
    settings: JudgeSettings | None = None,
    **changes: Unpack[SettingsChanges],
) -> dict[str, int]:
    """Person labels each design needs for a ``level`` interval of +- ``half_width`` on the
    harmful share in a week of ``size`` records (notebook 16), from the population's exact
    table, each score level one stratum (the variance the stratified estimator's interval
    estimates: the person's part sum W_h^2 sigma_h^2 / n_h plus the week's part, the spread of
    the true share between levels over ``size``).

    Keys: ``random`` (the sample alone), ``proportional``, and ``neyman (prior)``, ``neyman
    (score)``, ``neyman (true)`` for the three SPREADS Neyman may be given."""
    half_width = check_number("half_width", half_width)
    if not 0 < half_width < 0.5:
        raise ValueError(f"half_width must be between 0 and 0.5, got {half_width!r}")
    size = check_int("size", size, minimum=2)
    level = _checked_level(level)
    shares = _check_shares(class_shares)
    harmful, chance, _, weight = _population(shares, resolve_settings(settings, changes))
    levels, where = np.unique(chance, return_inverse=True)
    share = np.bincount(where, weight)
    truth = np.bincount(where, weight * harmful) / share
    spread = np.sqrt(truth * (1 - truth))
    theta = float((weight * harmful).sum())
    z2 = _z(level) ** 2
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
    """(weeks, 3) array of value, low, high of PPI++ with the score (notebook 16) when the
    person slips: each label is the other class with chance ``slip``, independently.

    ``double`` = 0: PPI++ on the slipped labels as if they were true.  ``double`` = m > 0: m of
    the ``labelled`` records are labelled a second time (independent slips); the disagreement
    measures the slip rate and :func:`estimate_with_slips`'s correction is applied."""
    slip = check_number("slip", slip, minimum=0.0)
    if slip >= 0.5:
        raise ValueError(
            f"slip must be below 0.5 (a person who errs less than a coin), got {slip}"
        )
    weeks = check_int("weeks", weeks, minimum=1)
    size = check_int("size", size, minimum=3)
    labelled = check_int("labelled", labelled, minimum=2)
    if labelled >= size:
        raise ValueError(f"labelled must be fewer than size ({size}) records, got {labelled}")
    double = check_int("double", double, minimum=0)
    if double > labelled:
        raise ValueError(f"double must be at most labelled ({labelled}), got {double}")
    if double == 1:
        raise ValueError("double must be 0 (no second labels) or at least 2")
    population = _population(_check_shares(class_shares), resolve_settings(settings, changes))
    harmful, chance, _, weight = population
    rng = np.random.default_rng(check_seed(seed))
    z = _z(0.95)
    cumulative = np.cumsum(weight)
    parts = []
    for start in range(0, weeks, 100):
        k = min(100, weeks - start)
        kind = np.minimum(
            np.searchsorted(cumulative, rng.random((k, size)), side="right"), len(weight) - 1
        )
        y, s = harmful[kind[:, :labelled]].astype(float), chance[kind]
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
    """The person's slip rate e from records labelled twice (notebook 16), with its interval.

    ``first``, ``second``: the two labellings (0/1) of the same records, each slipping with
    chance e independently; they disagree with chance 2 e (1 - e), so e = (1 - sqrt(1 - 2 D))
    / 2 from the share D that disagrees (the delta method for the interval, clipped at 0)."""
    level = _checked_level(level)
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
    """A rate corrected for the person's symmetric slips (notebook 16).

    ``person``, ``judge_labelled``, ``judge_rest``: as for ``estimate_rate``; ``first``,
    ``second``: two labellings of a double-labelled subset (see :func:`slip_rate`).  The
    estimate of what the person says, v, becomes (v - e) / (1 - 2 e); its interval adds e's
    uncertainty to v's by the delta method."""
    check_choice("method", method, ("labelled", "ppi", "ppi++"))
    level = _checked_level(level)
    a, b = _pairs(first, second)
    z = _z(level)
    value, low, _ = estimate_rate(person, judge_labelled, judge_rest, method=method, level=level)
    e, var_e = _slip_from_disagreement(np.array([(a != b).mean()]), len(a))
    theta, lo, hi = _undo_slips(value, ((value - low) / z) ** 2, e[0], var_e[0], z)
    return Estimate(float(theta), float(lo), float(hi))


# --------------------------------------------------------------------- 3. the dashboard


def _radii(t, var, level, kind, planned):
    """Half-widths at t labels: the fixed-n interval, or the normal-mixture sequence's."""
    z = _z(level)
    if kind == "interval":
        return z * np.sqrt(var / t)
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
    """The share of 1s after each label of a stream, with an interval that holds at every
    look at once with chance ``level`` (notebook 16): one :class:`Estimate` per prefix.

    The normal-mixture boundary (Howard et al. 2021): after t labels with running variance
    v_t, the half-width is sqrt(v_t) * sqrt(2 (t r + 1) / (t^2 r) * log(sqrt(t r + 1) /
    alpha)), r chosen so the sequence is narrowest near ``planned`` labels.  Asymptotic (the
    variance is estimated, as in Waudby-Smith et al.'s confidence sequences): the first few
    looks are not to be trusted; a variance of 0 (all labels alike) gives a zero width."""
    level = _checked_level(level)
    planned = check_int("planned", planned, minimum=1)
    y = _values("labels", labels, zero_one=True)
    t, mean, var = _running(y)
    half = _radii(t, var, level, "sequence", planned)
    return [Estimate(float(m), float(m - h), float(m + h)) for m, h in zip(mean, half)]


def simulate_dashboard(
    *,
    streams: int = 1000,
    looks: Sequence[int] = LOOKS,
    level: float = 0.95,
    planned: int = PLANNED_LOOK,
    seed: int = 0,
    class_shares: Sequence[float] = CLASS_SHARE,
) -> dict[str, dict[str, Any]]:
    """How often a dashboard's interval misses the truth at some look (notebook 16).

    ``streams`` streams of person labels (random records, the true class); at each of
    ``looks`` (label counts) the fixed-n 95% interval and the confidence sequence are
    recomputed.  {"interval" | "sequence": {"missed at some look": share of streams, "held at
    every look": 1 - that, "width": mean width at each look (array), "missed at look": share
    missing at each look (array)}}."""
    streams = check_int("streams", streams, minimum=1)
    looks = check_collection("looks", looks, "a list of label counts", "look")
    for n in looks:
        check_int("looks (each a count of labels)", n, minimum=2)
    level = _checked_level(level)
    planned = check_int("planned", planned, minimum=1)
    truth = 1 - _check_shares(class_shares)[0]
    rng = np.random.default_rng(check_seed(seed))
    y = (rng.random((streams, max(looks))) < truth).astype(float)
    t, mean, var = _running(y)
    at = np.array(looks) - 1
    out = {}
    for kind in ("interval", "sequence"):
        half = _radii(t[at], var[:, at], level, kind, planned)
        missed = np.abs(mean[:, at] - truth) > half
        out[kind] = {
            "missed at some look": float(missed.any(axis=1).mean()),
            "held at every look": float(1 - missed.any(axis=1).mean()),
            "width": (2 * half).mean(axis=0),
            "missed at look": missed.mean(axis=0),
        }
    return out


@slide_figure
def plot_dashboard(
    labels: Iterable[bool | float],
    truth: float,
    *,
    looks: Sequence[int] = LOOKS,
    level: float = 0.95,
    planned: int = PLANNED_LOOK,
) -> Figure:
    """One stream of labels read at each look: the running share, its fixed-n interval (a
    cross where it misses the truth) and the confidence sequence, the truth as a line
    (notebook 16)."""
    import matplotlib.pyplot as plt

    y = _values("labels", labels, zero_one=True)
    truth = check_number("truth", truth)
    looks = check_collection("looks", looks, "a list of label counts", "look")
    for n in looks:
        check_int("looks (each a count of labels)", n, minimum=2)
    if max(looks) > len(y):
        raise ValueError(f"looks must be at most the {len(y)} labels given, got {max(looks)}")
    level = _checked_level(level)
    t, mean, var = _running(y)
    at = np.array(looks) - 1
    fig, ax = plt.subplots(figsize=(FIGURE_WIDTH, FIGURE_WIDTH * 0.5))
    x, m = t[at], mean[at]
    half = _radii(x, var[at], level, "sequence", planned)
    ax.fill_between(x, m - half, m + half, color="C1", alpha=0.3, label="confidence sequence")
    half = _radii(x, var[at], level, "interval", planned)
    ax.plot(x, m - half, color="C0", linewidth=2, label=f"{level:.0%} interval")
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
