"""Notebook 15 - weeks of traffic, simulated, with their truth known.

The estimators are in :mod:`lessonlib.production`; this module gives them weeks: the true
rates under any class mix (:func:`true_rates`), many simulated weeks at once
(:func:`simulate_estimates`, counted by :func:`coverage_rows`), the labels each method needs
for +- h (:func:`labels_needed`) and one week of real traffic (:func:`week_of_traffic`).
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
    check_between,
    check_choice,
    check_fewer,
    check_int,
    check_items,
    check_number,
    check_seed,
)
from ._frozen import ReadOnlyDict
from .criteria import DEFAULT_RULES, make_rule_filter
from .figures import FIGURE_WIDTH, slide_figure
from .judge import JudgeSettings, SettingsChanges, resolve_settings, run_judge
from .production import METHODS, RATIO_METHODS, _estimate, _ppi, _z
from .records import (
    CLASS_SHARE,
    CLASSES,
    FEATURES,
    PROFILE,
    SOURCE_SHARE,
    SOURCES,
    TEXTS,
    Record,
    make_records,
)
from .score import judge_probabilities
from .truth import _cell_tables, _check_shares, _profile_table, mc_error

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
    "coverage_rows",
    "labels_needed",
    "plot_widths",
    "simulate_estimates",
    "true_rates",
    "week_of_traffic",
]

QUANTITIES = ("harmful", "filter_right")
"""The harmful share; the filter's agreement (a mean of 'the filter is right')."""
RATIO = "false_block_rate"
"""The filter's false block rate: a ratio, P(blocks and clean) / P(clean)."""
STAND_INS = ("label", "score")
"""The judge's stand-in on a record: its label (a draw) or its score P(zararli)."""

WEEK_SEED = 700_000_000
"""The seed of notebook 15's week (record i of seed s is drawn from s + 6151 * i: far from
the lesson's SEED)."""

DRIFT_SHARES = (0.47, 0.10, 0.07, 0.07, 0.07, 0.22)
"""A drifting week's class mix (CLASSES order): 15 points of clean traffic became
corrupted_input."""

WITHIN_SHIFT = ReadOnlyDict({"clean": ReadOnlyDict({"instruction_mode": 0.18})})
"""A shift within a class (``flag_shares``): clean records carrying instruction_mode three
times as often as the generator draws them (0.06), the class mix unchanged."""

SIM_RESAMPLES = 1000
"""Bootstrap resamples of each simulated week's Rogan-Gladen interval (half the door's)."""


# ------------------------------------------------------------- the population, exactly known


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
    """profile_table's rows with some classes' flag shares changed (a shift within a class)."""
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
    """Arrays (harmful, the judge's P(block) = its score, filter blocks, weight) over the
    distinct kinds of record in the population; the weights sum to 1."""
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


def _moments(quantity, stand_in, shares, settings):
    """(E y, E f, var f, cov(y, f)) of the person's value y and the stand-in f, exactly."""
    harmful, chance, blocks, w = _population(shares, settings)
    y, m = _quantity(quantity, harmful, chance, blocks)
    ey, ef = float((w * y).sum()), float((w * m).sum())
    eff = ef if stand_in == "label" else float((w * m * m).sum())
    return ey, ef, eff - ef * ef, float((w * y * m).sum()) - ey * ef


def true_rates(
    class_shares: Sequence[float] = CLASS_SHARE,
    settings: JudgeSettings | None = None,
    *,
    flag_shares: Mapping[str, Mapping[str, float]] | None = None,
    **changes: Unpack[SettingsChanges],
) -> dict[str, float]:
    """The population's true rates under this class mix, exactly: ``harmful``,
    ``filter_right``, ``false_block_rate``, ``judge_blocks``, ``filter_agrees_with_judge``,
    ``judge_tpr``, ``judge_tnr``.  ``flag_shares`` ``{class: {flag: share}}`` shifts the
    traffic within a class (e.g. WITHIN_SHIFT).  Refuses shares that do not sum to 1."""
    shares = _check_shares(class_shares)
    flags = _check_flag_shares(flag_shares)
    return dict(_cached_true_rates(shares, resolve_settings(settings, changes), flags))


@functools.lru_cache(maxsize=16)
def _cached_true_rates(shares, settings, flags=()):
    return tuple(_true_rates(shares, settings, flags).items())


def _true_rates(shares, settings, flags=()):
    harmful, chance, blocks, weight = _population(shares, settings, flags)
    clean, harm = weight * ~harmful, weight * harmful
    return {
        "harmful": 1.0 - shares[CLASSES.index("clean")],
        "filter_right": float((weight * (blocks == harmful)).sum()),
        "false_block_rate": float((clean * blocks).sum() / clean.sum()) if clean.sum() else 0.0,
        "judge_blocks": float((weight * chance).sum()),
        "filter_agrees_with_judge": float((weight * np.where(blocks, chance, 1 - chance)).sum()),
        "judge_tpr": float((harm * chance).sum() / harm.sum()) if harm.sum() else 0.0,
        "judge_tnr": float((clean * (1 - chance)).sum() / clean.sum()) if clean.sum() else 0.0,
    }


# ------------------------------------------------------------------------- simulated weeks


def _draw(population, quantity, stand_in, weeks, size, rng):
    """(person values, stand-in values), arrays (weeks, size); (weeks, size, 2) for RATIO."""
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
    seed: int = 0,
    settings: JudgeSettings | None = None,
    flag_shares: Mapping[str, Mapping[str, float]] | None = None,
    lams: Mapping[str, float] | None = None,
    **changes: Unpack[SettingsChanges],
) -> dict[str, np.ndarray]:
    """{method: array (weeks, 3) of value, low, high} over simulated weeks of ``size`` records,
    a person labelling ``labelled`` (from ``person_shares``' mix if given).  ``quantity``: one
    of QUANTITIES or RATIO; ``lams`` ``{row: lam}`` adds PPI rows with the judge's weight fixed.
    Refuses rogan_gladen with ``stand_in="score"``."""
    check_choice("quantity", quantity, QUANTITIES + (RATIO,))
    check_choice("stand_in", stand_in, STAND_INS)
    shares = _check_shares(class_shares)
    if quantity == RATIO and methods is METHODS:
        methods = RATIO_METHODS
    weeks = check_int("weeks", weeks, minimum=1)
    size = check_int("size", size, minimum=3)
    labelled = check_fewer("labelled", labelled, "size", size)
    methods = tuple(methods) if not isinstance(methods, str) else (methods,)
    for method in methods:
        check_choice("methods", method, RATIO_METHODS if quantity == RATIO else METHODS)
    if stand_in == "score" and "rogan_gladen" in methods:
        raise ValueError("rogan_gladen needs the judge's labels: use stand_in='label'")
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
            out[method].append(np.stack(_estimate(method, y, f, g, 0.95, SIM_RESAMPLES, rng), 1))
        for name, lam in fixed.items():
            out[name].append(np.stack(_ppi(y, f, g, _z(0.95), lam), 1))
    return {m: np.concatenate(parts) for m, parts in out.items()}


def best_lam(
    *,
    size: int = 5000,
    labelled: int = 200,
    quantity: str = "harmful",
    stand_in: str = "label",
) -> float:
    """The population's best weight of the judge for PPI, not clipped: cov(person, stand-in)
    / ((1 + labelled / rest) * var(stand-in)) from the exact moments; what PPI++ tunes."""
    check_choice("quantity", quantity, QUANTITIES)
    check_choice("stand_in", stand_in, STAND_INS)
    size = check_int("size", size, minimum=3)
    labelled = check_fewer("labelled", labelled, "size", size)
    _, _, var, cov = _moments(quantity, stand_in, CLASS_SHARE, resolve_settings(None, {}))
    return cov / ((1 + labelled / (size - labelled)) * var)


def coverage_rows(estimates: Mapping[str, np.ndarray], truth: float) -> list[dict[str, Any]]:
    """One row per method of ``estimates`` (as simulate_estimates returns): ``coverage`` of
    ``truth``, its Monte Carlo ``error`` (1.96 binomial standard errors), ``mean``, ``bias``,
    ``width`` and ``weeks``."""
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


@slide_figure
def plot_widths(rows: Sequence[Mapping[str, Any]]) -> Any:
    """Interval width against the number of person labels: ``rows`` of ``{"labels": n,
    method: width, ...}``, one line per method, labelled at its start."""
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
    class_shares: Sequence[float] = CLASS_SHARE,
    settings: JudgeSettings | None = None,
    **changes: Unpack[SettingsChanges],
) -> dict[str, int | None]:
    """Person labels each method needs for a 95% interval of +- ``half_width`` when the
    judge labels ``rest`` other records, from the population's exact moments: z^2 v / (h^2 -
    z^2 u / rest), v the variance a person label leaves, u the judge's.  None: out of reach."""
    half_width = check_between("half_width", half_width, 0, 0.5)
    rest = check_int("rest", rest, minimum=1)
    check_choice("quantity", quantity, QUANTITIES)
    check_choice("stand_in", stand_in, STAND_INS)
    settings = resolve_settings(settings, changes)
    ey, ef, var_f, cov = _moments(quantity, stand_in, _check_shares(class_shares), settings)
    var_y, eyf = ey * (1 - ey), cov + ey * ef
    z2 = _z(0.95) ** 2

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
    """A week of traffic: the records, the judge's label (one run) and score on every one,
    the rule filter's decision, and the indices of the records a person labelled."""

    records: tuple[Record, ...]
    judge: tuple[bool, ...]
    score: tuple[float, ...]
    filter: tuple[bool, ...]
    labelled: tuple[int, ...]


def week_of_traffic(size: int = 5000, labelled: int = 200, seed: int = WEEK_SEED) -> Week:
    """A :class:`Week` of ``size`` fresh records at ``seed``, the judge (one run) and the rule
    filter on every one, a person on ``labelled`` of them chosen at random."""
    size = check_int("size", size, minimum=3)
    labelled = check_fewer("labelled", labelled, "size", size)
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
