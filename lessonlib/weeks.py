"""Notebook 15 - weeks of traffic, simulated, with their truth known.

The estimators live in :mod:`lessonlib.production` (the door: ``estimate_rate``); this module
gives them weeks to work on and counts how well they do:

* the population's true rates under any class mix, exactly, from the generator
  (:func:`true_rates`, from ``truth.population_figures`` and ``truth.profile_table``);
* many simulated weeks at once (:func:`simulate_estimates`, vectorised), so coverage is
  counted, not assumed (:func:`coverage_rows`, a table in the notebook), and the interval's
  width against the number of person labels (:func:`width_rows`, :func:`plot_widths`);
* the person labels each method needs for an interval of +- h, from the population's exact
  moments (:func:`labels_needed`);
* one week of real traffic: fresh records, the judge and the rule filter on every one, a person
  on a random few (:func:`week_of_traffic`, :class:`Week`); the notebook estimates it by hand
  and with ``estimate_rate``.
"""

from __future__ import annotations

import functools
import math
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from ._checks import (
    check_choice,
    check_collection,
    check_int,
    check_items,
    check_number,
    check_seed,
)
from ._frozen import ReadOnlyDict
from .criteria import DEFAULT_RULES, make_rule_filter
from .figures import FIGURE_WIDTH, slide_figure
from .judge import JudgeSettings, SettingsChanges, resolve_settings, run_judge
from .production import METHODS, RATIO_METHODS, _estimate, _ppi, _raw_lam, _z
from .records import (
    CLASS_SHARE,
    CLASSES,
    FEATURES,
    PROFILE,
    SOURCE_SHARE,
    SOURCES,
    TEXTS,
    Record,
    is_harmful,
    make_records,
)
from .score import judge_probabilities
from .truth import _cell_tables, _check_shares, _profile_table, mc_error, population_figures

if TYPE_CHECKING:
    from typing_extensions import Unpack

__all__ = [
    "DRIFT_SHARES",
    "QUANTITIES",
    "STAND_INS",
    "WEEK_SEED",
    "WITHIN_SHIFT",
    "Week",
    "best_lam",
    "coverage_by_labels",
    "coverage_rows",
    "labels_needed",
    "plot_widths",
    "simulate_estimates",
    "true_rates",
    "tuned_lams",
    "week_of_traffic",
    "width_rows",
]

QUANTITIES = ("harmful", "filter_right")
"""The harmful share; the filter's agreement (a mean of 'the filter is right')."""
RATIO = "false_block_rate"
"""The filter's false block rate: a ratio, P(blocks and clean) / P(clean)."""
STAND_INS = ("label", "score")
"""The judge's stand-in on a record: its label (a draw) or its score P(zararli)."""

WEEK_SEED = 700_000_000
"""The seed of notebook 15's week.  Record i of seed s is drawn from s + 6151 * i, so a week of
5,000 records from this seed uses 700,000,000 .. 730,749,849: far from the lesson's SEED."""

DRIFT_SHARES = (0.47, 0.10, 0.07, 0.07, 0.07, 0.22)
"""A drifting week's class mix (CLASSES order): 15 points of clean traffic became
corrupted_input."""

WITHIN_SHIFT = ReadOnlyDict({"clean": ReadOnlyDict({"instruction_mode": 0.18})})
"""A shift within a class (``flag_shares``): clean records carrying instruction_mode three
times as often as the generator draws them (0.06), the class mix unchanged."""

SIM_RESAMPLES = 1000
"""Bootstrap resamples of each simulated week's Rogan-Gladen interval (simulate_estimates):
half as many keeps 1,000 weeks under 5 s; its coverage is what the simulation measures."""


# ------------------------------------------------------------- the population, exactly known


@functools.lru_cache(maxsize=1)
@functools.lru_cache(maxsize=4)
def _rows(settings):
    """profile_table for one judge's settings (a JudgeSettings), computed once."""
    return tuple(_profile_table(settings))


@functools.lru_cache(maxsize=4)
def _cells(settings):
    """truth's cell tables (source, text, flags; P(block); filter blocks), computed once."""
    return _cell_tables(settings)


def _check_flag_shares(flag_shares):
    """``{class: {flag: share}}`` -> a sorted tuple of (class, flag index, share); None -> ()."""
    if not isinstance(flag_shares, Mapping | None):
        raise TypeError(
            "flag_shares must be a mapping {class: {flag: share}}, e.g. "
            f"{{'clean': {{'instruction_mode': 0.18}}}}; got {type(flag_shares).__name__}"
        )
    out = []
    for cls, flags in (flag_shares or {}).items():
        check_choice("flag_shares (each class)", cls, CLASSES)
        if not isinstance(flags, Mapping):
            raise TypeError(
                f"flag_shares[{cls!r}] must be a mapping {{flag: share}}, got "
                f"{type(flags).__name__}"
            )
        for flag, share in flags.items():
            check_choice(f"flag_shares[{cls!r}] (each flag)", flag, FEATURES)
            share = check_number(f"flag_shares[{cls!r}][{flag!r}]", share)
            if not 0 <= share <= 1:
                raise ValueError(
                    f"flag_shares[{cls!r}][{flag!r}] must be a share between 0 and 1, "
                    f"got {share!r}"
                )
            out.append((cls, FEATURES.index(flag), float(share)))
    return tuple(sorted(out))


def _shifted_rows(settings, flags):
    """profile_table's rows with the flag shares of some classes changed (a shift within a
    class: the class's share of records carrying a flag), the rest as the generator draws."""
    cells, chance, blocks = _cells(settings)
    profile = {cls: list(PROFILE[cls]) for cls in CLASSES}
    for cls, k, share in flags:
        profile[cls][k] = share
    rows = []
    for cls in CLASSES:
        for i, (source, _text, on) in enumerate(cells):
            weight = SOURCE_SHARE[cls][SOURCES.index(source)] / len(TEXTS)
            for bit, p in zip(on, profile[cls]):
                weight *= p if bit else 1 - p
            rows.append((cls, weight, chance[i], blocks[i]))
    return rows


def _population(class_shares, settings, flags=()):
    """Arrays (harmful, the judge's P(block), filter blocks, weight) over the distinct kinds of
    record in the population with this class mix (and ``flags``, a within-class shift from
    _check_flag_shares); the weights sum to 1.  P(block) is also the judge's score at the
    lesson's settings, where every reply is read."""
    rows = _shifted_rows(settings, flags) if flags else _rows(settings)
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
    class_shares: Sequence[float] = CLASS_SHARE,
    settings: JudgeSettings | None = None,
    *,
    flag_shares: Mapping[str, Mapping[str, float]] | None = None,
    **changes: Unpack[SettingsChanges],
) -> dict[str, float]:
    """The population's true rates under this class mix (notebook 15), exactly.

    ``harmful`` (1 - the clean share), ``filter_right`` and ``false_block_rate`` (the
    filter's agreement and false block rate, from ``population_figures``), ``judge_blocks``
    (the judge's block share in expectation over seeds), ``filter_agrees_with_judge`` (the
    stand-in's mean for the agreement), and the judge's ``judge_tpr`` and ``judge_tnr``
    (its recall, and 1 - its false block rate).  ``flag_shares`` (``{class: {flag:
    share}}``) shifts the traffic within a class: that class's share of records carrying the
    flag, e.g. ``{"clean": {"instruction_mode": 0.18}}``."""
    shares = _check_shares(class_shares)
    flags = _check_flag_shares(flag_shares)
    return dict(_cached_true_rates(shares, resolve_settings(settings, changes), flags))


@functools.lru_cache(maxsize=16)
def _cached_true_rates(shares, settings, flags=()):
    """true_rates once per class mix, within-class shift and judge."""
    return tuple(_true_rates(shares, settings, flags).items())


def _true_rates(shares, settings, flags=()):
    harmful, chance, blocks, weight = _population(shares, settings, flags)
    clean, harm = weight * ~harmful, weight * harmful
    if flags:  # the generator's figures do not know the shift: sum the kinds of record
        figures = {
            "filter": {
                "agreement": float((weight * (blocks == harmful)).sum()),
                "false_block_rate": float((clean * blocks).sum() / clean.sum()),
            }
        }
    else:
        figures = population_figures(settings, class_shares=shares)
    return {
        "harmful": 1.0 - shares[CLASSES.index("clean")],
        "filter_right": figures["filter"]["agreement"],
        "false_block_rate": figures["filter"]["false_block_rate"],
        "judge_blocks": float((weight * chance).sum()),
        "filter_agrees_with_judge": float((weight * np.where(blocks, chance, 1 - chance)).sum()),
        "judge_tpr": float((harm * chance).sum() / harm.sum()) if harm.sum() else 0.0,
        "judge_tnr": float((clean * (1 - chance)).sum() / clean.sum()) if clean.sum() else 0.0,
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
    settings: JudgeSettings | None = None,
    flag_shares: Mapping[str, Mapping[str, float]] | None = None,
    lams: Mapping[str, float] | None = None,
    **changes: Unpack[SettingsChanges],
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

    ``flag_shares`` (as :func:`true_rates` takes it) shifts this week's traffic within a
    class; with ``person_shares`` the person's records keep the generator's flag shares (an
    old labelled set).  ``lams`` (``{row name: lam}``) adds rows of PPI with the judge's
    weight fixed at ``lam`` (say the population's best, :func:`best_lam`), on the same weeks
    (a mean only, not the ratio).
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
    flags = _check_flag_shares(flag_shares)
    fixed = {}
    if lams is not None:
        if not isinstance(lams, Mapping):
            raise TypeError(f"lams must be a mapping {{row name: lam}}, got {type(lams).__name__}")
        if quantity == RATIO:
            raise ValueError("lams fixes PPI's weight for a mean; the ratio tunes its own")
        for name, lam in lams.items():
            if not isinstance(name, str) or name in methods:
                raise ValueError(f"lams needs new row names (strings), got {name!r}")
            fixed[name] = check_number(f"lams[{name!r}]", lam)
    settings = resolve_settings(settings, changes)
    week_pop = _population(shares, settings, flags)
    person_pop = None
    if person_shares is not None:
        person_pop = _population(_check_shares(person_shares), settings)
    rng = np.random.default_rng(check_seed(seed))
    out: dict[str, list[np.ndarray]] = {m: [] for m in methods + tuple(fixed)}
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
        for name, lam in fixed.items():
            out[name].append(np.stack(_ppi(y, f, g, _z(level), lam), 1))
    return {m: np.concatenate(parts) for m, parts in out.items()}


def tuned_lams(
    *,
    weeks: int = 1000,
    size: int = 5000,
    labelled: int = 200,
    quantity: str = "harmful",
    stand_in: str = "label",
    seed: int = 0,
) -> np.ndarray:
    """PPI++'s tuned weight of the judge in each of ``weeks`` simulated weeks, before it is
    clipped to [0, 1] (notebook 15); for the ratio (RATIO), the weight of its psi = a -
    theta * b at PPI's theta, as ``estimate_false_block_rate`` tunes it."""
    check_choice("quantity", quantity, QUANTITIES + (RATIO,))
    check_choice("stand_in", stand_in, STAND_INS)
    weeks = check_int("weeks", weeks, minimum=1)
    size = check_int("size", size, minimum=3)
    labelled = check_int("labelled", labelled, minimum=2)
    if labelled >= size:
        raise ValueError(f"labelled must be fewer than size ({size}) records, got {labelled}")
    pop = _population(CLASS_SHARE, resolve_settings(None, {}))
    rng = np.random.default_rng(check_seed(seed))
    out = []
    for start in range(0, weeks, 100):
        y, s = _draw(pop, quantity, stand_in, min(100, weeks - start), size, rng)
        y, f, g = y[:, :labelled], s[:, :labelled], s[:, labelled:]
        if quantity == RATIO:
            theta = _estimate("ppi", y, f, g, 0.95, 1, rng)[0][:, None]
            y, f, g = (x[..., 0] - theta * x[..., 1] for x in (y, f, g))
        out.append(_raw_lam(y, f, g))
    return np.concatenate(out)


def best_lam(
    *,
    size: int = 5000,
    labelled: int = 200,
    quantity: str = "harmful",
    stand_in: str = "label",
) -> float:
    """The population's best weight of the judge for PPI (notebook 15), not clipped:
    cov(person, stand-in) / ((1 + labelled / rest) * var(stand-in)), from the exact moments
    (the rest: ``size - labelled`` records); for the ratio (RATIO), of psi = a - theta * b at
    the true false block rate theta.  What PPI++ tunes from each week's labels."""
    check_choice("quantity", quantity, QUANTITIES + (RATIO,))
    check_choice("stand_in", stand_in, STAND_INS)
    size = check_int("size", size, minimum=3)
    labelled = check_int("labelled", labelled, minimum=2)
    if labelled >= size:
        raise ValueError(f"labelled must be fewer than size ({size}) records, got {labelled}")
    harmful, chance, blocks, w = _population(CLASS_SHARE, resolve_settings(None, {}))
    if quantity == RATIO:
        theta = true_rates()["false_block_rate"]
        block, clean = blocks.astype(float), (~harmful).astype(float)
        y = block * clean - theta * clean
        # the stand-in's psi: the block * (1 - judged) - theta * (1 - judged), judged ~ chance
        m = (block - theta) * (1 - chance)
        mm = (block - theta) ** 2 * ((1 - chance) if stand_in == "label" else (1 - chance) ** 2)
    else:
        y, m = _quantity(quantity, harmful, chance, blocks)
        mm = m if stand_in == "label" else m * m
    ey, ef = float((w * y).sum()), float((w * m).sum())
    cov = float((w * y * m).sum()) - ey * ef
    var = float((w * mm).sum()) - ef * ef
    return cov / ((1 + labelled / (size - labelled)) * var)


def coverage_rows(estimates: Mapping[str, np.ndarray], truth: float) -> list[dict[str, Any]]:
    """One row per method: how often its interval holds ``truth`` (``coverage``) with its
    Monte Carlo error (``error``: 1.96 binomial standard errors over the weeks, as 07's
    picture draws it), its mean value, its bias and the mean width of its interval
    (notebook 15)."""
    if not isinstance(estimates, Mapping) or not estimates:
        raise TypeError(
            "estimates must be a non-empty mapping method -> (weeks, 3) array of (estimate, "
            f"low, high), as simulate_estimates returns; got {type(estimates).__name__}"
        )
    for method, est in estimates.items():
        if getattr(est, "ndim", None) != 2 or est.shape[1] < 3:
            raise TypeError(
                f"estimates[{method!r}] must be a (weeks, 3) array of (estimate, low, high), "
                f"as simulate_estimates returns; got {type(est).__name__}"
            )
    truth = check_number("truth", truth)
    rows = []
    for method, est in estimates.items():
        covered = (est[:, 1] <= truth) & (truth <= est[:, 2])
        width = est[:, 2] - est[:, 1]
        rows.append(
            {
                "method": method,
                "coverage": float(covered.mean()),
                "error": mc_error(float(covered.mean()), len(est)),
                "mean": float(est[:, 0].mean()),
                "bias": float(est[:, 0].mean() - truth),
                "width": float(width.mean()),
                "weeks": int(len(est)),
            }
        )
    return rows


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
    counts = check_collection("counts", counts, "a list of counts", "count")
    for n in counts:
        check_int("counts (each count of person labels)", n, minimum=2)
    rows = []
    for i, n in enumerate(counts):
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


def coverage_by_labels(
    counts: Sequence[int] = (10, 20, 50, 100, 200),
    *,
    weeks: int = 1000,
    size: int = 5000,
    methods: Sequence[str] = ("labelled", "rogan_gladen", "ppi", "ppi++"),
    seed: int = 0,
) -> list[dict[str, Any]]:
    """Coverage of the harmful share against the number of person labels (notebook 15): one
    row per count and method, ``{"labels", "method", "coverage", "error", "width"}``, over
    ``weeks`` simulated weeks each (the judge's label as stand-in)."""
    counts = check_collection("counts", counts, "a list of counts", "count")
    for n in counts:
        check_int("counts (each count of person labels)", n, minimum=2)
    truth = true_rates()["harmful"]
    rows = []
    for i, n in enumerate(counts):
        est = simulate_estimates(
            weeks=weeks, size=size, labelled=n, methods=methods, seed=seed + i
        )
        keys = ("method", "coverage", "error", "width")
        rows += [{"labels": n, **{k: r[k] for k in keys}} for r in coverage_rows(est, truth)]
    return rows


@slide_figure
def plot_widths(rows: Sequence[Mapping[str, Any]]) -> Any:
    """Interval width against the number of person labels, one line per method, each line
    labelled at its start, where the lines lie furthest apart (notebook 15)."""
    import matplotlib.pyplot as plt

    rows = check_items("rows", rows, Mapping)  # type: ignore[type-abstract]
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
    settings: JudgeSettings | None = None,
    **changes: Unpack[SettingsChanges],
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
    harmful, chance, blocks, w = _population(shares, resolve_settings(settings, changes))
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
