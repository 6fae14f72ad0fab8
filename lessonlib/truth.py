"""Notebooks 07 and 15 - the truth the generator knows, and the bands checked against it.

Every record is drawn from a known population (``records``) and a run of the simulated judge
blocks it with a known chance over seeds (:func:`block_chances`), so each population figure
is a finite sum, computed exactly (:func:`population_figures`, from :func:`profile_table`).
:func:`band_coverage` draws fresh record sets and counts how often the records' band holds
that truth; :func:`mc_error` is the course's one Monte Carlo error of such a count.
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ._checks import (
    check_choice,
    check_collection,
    check_int,
    check_items,
    check_names,
    check_number,
    check_seed,
)
from ._frozen import ReadOnlyDict
from ._rng import LCG_INCREMENT, LCG_MULTIPLIER, M32, MIX_FIRST, MIX_SECOND
from .criteria import DEFAULT_RULES, make_rule_filter
from .figures import FIGURE_WIDTH, slide_figure
from .judge import (
    CLEAN,
    HARMFUL,
    LESSON_SETTINGS,
    JudgeSettings,
    SettingsChanges,
    _build_prompt,
    _read_label,
    resolve_settings,
)
from .records import (
    CLASS_SHARE,
    CLASSES,
    FEATURES,
    PROFILE,
    RECORD_STRIDE,
    SOURCE_SHARE,
    SOURCES,
    TEXTS,
    Flags,
    Record,
    check_records,
)
from .sample import FIGURES
from .simulator import FREE_FORM_SHARE, SINGLE_LABEL_WORD, WINDOW, _tokenize, reply_text
from .variance import _level, _z, run_band

if TYPE_CHECKING:
    from matplotlib.figure import Figure
    from typing_extensions import Unpack


__all__ = [
    "KINDS",
    "Coverage",
    "agreement_cells",
    "band_coverage",
    "mc_error",
    "plot_coverage",
    "population_figures",
    "profile_table",
    "block_chances",
]


def _check_shares(class_shares):
    shares = check_collection("class_shares", class_shares, "a list of shares", "share")
    if len(shares) != len(CLASSES):
        raise ValueError(
            f"class_shares must give one share per class ({', '.join(CLASSES)}): "
            f"{len(CLASSES)} numbers, got {len(shares)}"
        )
    shares = tuple(check_number(f"class_shares[{i}]", s) for i, s in enumerate(shares))
    if min(shares) < 0 or abs(sum(shares) - 1) > 1e-9:
        raise ValueError(f"class_shares must be shares >= 0 that sum to 1, got {shares!r}")
    return shares


def block_chances(
    records: Sequence[Record],
    settings: JudgeSettings | None = None,
    **changes: Unpack[SettingsChanges],
) -> dict[int, float]:
    """{record number: the chance that a run of the judge (``settings`` with ``changes``)
    blocks it}, over seeds: a call is read as 'zararli' with chance ``a`` and unreadable with
    ``u`` (asked once more, then ``unreadable_as``), so P(block) = a + u * (a + u * fallback);
    with the lesson's settings it is the score P(zararli).  The rate limit is left out."""
    return _block_chances(check_records(records), resolve_settings(settings, changes))


def _block_chances(records, settings):
    """:func:`block_chances` for checked records and settings."""
    from .score import judge_probabilities

    score = judge_probabilities(records, settings)
    fallback = float(settings.unreadable_as == "harmful")

    @functools.cache
    def read(label, single):  # (P(read as 'zararli'), P(unreadable)) of one reply
        forms = [(None, 1.0)] if single else list(enumerate(FREE_FORM_SHARE))
        harmful = unreadable = 0.0
        for form, share in forms:
            got = _read_label(reply_text(label, form, settings.max_output)[0])
            harmful += share * (got == HARMFUL)
            unreadable += share * (got is None)
        return harmful, unreadable

    out = {}
    for r in records:
        tokens = _tokenize(_build_prompt(r, settings.guideline))
        if len(tokens) > WINDOW:
            out[r.no] = fallback
            continue
        single, p = SINGLE_LABEL_WORD in tokens, score[r.no]
        (a1, u1), (a0, u0) = read(HARMFUL, single), read(CLEAN, single)
        a, u = p * a1 + (1 - p) * a0, p * u1 + (1 - p) * u0
        out[r.no] = a + u * (a + u * fallback)
    return out


def _cell_tables(settings=LESSON_SETTINGS, rules=DEFAULT_RULES):
    """The cells (source, text, flags), in SOURCES x TEXTS x flag-profile order (the first
    flag the most significant bit), with the judge's P(block) and the filter's decision."""
    rule = make_rule_filter(rules)
    profiles = list(itertools.product((False, True), repeat=len(FEATURES)))
    # one record per (source, text, flags), asked in one call; the prompt also carries the
    # record's number, which no cue of the course's tables reads
    cells = [(source, text, flags) for source in SOURCES for text in TEXTS for flags in profiles]
    probe = [Record(i + 1, "clean", s, Flags(f), t, 40) for i, (s, t, f) in enumerate(cells)]
    chance = _block_chances(probe, settings)
    return cells, [chance[i + 1] for i in range(len(cells))], [bool(rule(r)) for r in probe]


def profile_table(
    settings: JudgeSettings | None = None,
    rules: Sequence[str] = DEFAULT_RULES,
    **changes: Unpack[SettingsChanges],
) -> list[tuple[str, float, float, bool]]:
    """One row (class, probability within the class, judge's P(block), filter blocks) per
    source, text and flag profile of each class; a class's rows sum to 1 (notebooks 08, 15)."""
    settings = resolve_settings(settings, changes)
    rules = check_names("rules", rules, FEATURES)
    return _profile_table(settings, rules)


def _profile_table(settings, rules=DEFAULT_RULES):
    cells, chance, blocks = _cell_tables(settings, rules)
    rows = []
    for cls in CLASSES:
        for i, (source, _text, flags) in enumerate(cells):
            weight = SOURCE_SHARE[cls][SOURCES.index(source)] / len(TEXTS)
            for on, p in zip(flags, PROFILE[cls]):
                weight *= p if on else 1 - p
            rows.append((cls, weight, chance[i], blocks[i]))
    return rows


def _figures(shares, rows, which):
    """The four figures from expected counts per record drawn; which: 2 (judge) or 3 (filter)."""
    tp = fp = harmful = 0.0
    for row in rows:
        w = shares[CLASSES.index(row[0])] * row[1]
        block = float(row[which])
        if row[0] == "clean":
            fp += w * block
        else:
            harmful += w
            tp += w * block
    clean = 1.0 - harmful
    tn = clean - fp
    return {
        "agreement": tp + tn,
        "recall": tp / harmful if harmful else 0.0,
        "false_block_rate": fp / clean if clean else 0.0,
        "precision": tp / (tp + fp) if tp + fp else 0.0,
    }


def population_figures(
    settings: JudgeSettings | None = None,
    *,
    class_shares: Sequence[float] = CLASS_SHARE,
    **changes: Unpack[SettingsChanges],
) -> dict[str, dict[str, float]]:
    """The population's true figures, ``{"judge": {...}, "filter": {...}}`` (notebook 07):
    agreement, recall, false_block_rate and precision summed exactly (the judge in expectation
    over seeds); ``class_shares`` (one per class, CLASSES order) draws another week's mix."""
    settings = resolve_settings(settings, changes)
    shares = _check_shares(class_shares)
    rows = _profile_table(settings)
    return {"judge": _figures(shares, rows, 2), "filter": _figures(shares, rows, 3)}


KINDS = ReadOnlyDict(
    {
        "run": "one run's decisions",
        "averaged": "seed-averaged decision",
        "records_and_runs": "records and runs (noise twice)",
    }
)
"""The bands :func:`band_coverage` checks: kind -> what the judge's side of the band holds."""
CELLS = 1 << 21  # (set, resample) cells drawn at once: a few arrays of 16 MiB
_SPAN = 1 << 48  # mix32 reads only the low 48 bits of its argument


@dataclass(frozen=True)
class Coverage:
    """What :func:`band_coverage` measured over ``n_sets`` fresh record sets (notebook 07):
    the ``truth`` (judge - filter), the share of bands that hold it (``coverage``), their
    ``mean_width`` and the share clear of zero (``excludes_zero``)."""

    kind: str
    figure: str
    truth: float
    coverage: float
    mean_width: float
    excludes_zero: float
    n_sets: int
    n_records: int
    n_resamples: int
    level: float

    @property
    def mc_error(self) -> float:
        """The Monte Carlo error of ``coverage``: :func:`mc_error` over ``n_sets`` sets."""
        return mc_error(self.coverage, self.n_sets)


def mc_error(share: float, n: int, level: float = 0.95) -> float:
    """The Monte Carlo error of a ``share`` counted over ``n`` simulated sets (notebooks 07,
    15; GLOSSARY.md#monte-carlo-error): z * sqrt(share (1 - share) / n), z of ``level``."""
    share = check_number("share", share)
    if not 0 <= share <= 1:
        raise ValueError(f"share must be a share in [0, 1], got {share!r}")
    n = check_int("n", n, minimum=1)
    return _z(level) * math.sqrt(share * (1 - share) / n)


@functools.lru_cache(maxsize=1)
def _default_cells():
    """The distinct P(block) of the cells, each cell's index among them, the filter's blocks."""
    _, chance, blocks = _cell_tables()
    values, index = np.unique(np.array(chance), return_inverse=True)
    return values, index.reshape(-1), np.array(blocks)


def _draw_sets(n_sets, n_records, seed, start=0):
    """Sets ``start ..`` of fresh records as (sets, records) arrays of class and cell index:
    set k is ``make_records(n_records, seed + k * RECORD_STRIDE * n_records)``, its draws
    repeated here exactly on uint64 arrays (no two sets share a record)."""
    u64 = np.uint64
    first = start * n_records
    steps = np.arange(first, first + n_sets * n_records, dtype=np.uint64)
    t = (u64(seed % _SPAN) + u64(RECORD_STRIDE) * steps) % u64(_SPAN)
    mask = u64(M32)
    x = (((t ^ (t >> u64(16))) & mask) * u64(MIX_FIRST)) & mask
    x = ((x ^ (x >> u64(13))) * u64(MIX_SECOND)) & mask
    state = (x ^ (x >> u64(16))) & mask

    def uniform():
        nonlocal state
        state = (state * u64(LCG_MULTIPLIER) + u64(LCG_INCREMENT)) & mask
        return state.astype(np.float64) / 4294967296.0

    def pick(u, weights):  # records.pick: the first running sum above u, else the last
        sums = np.cumsum(np.asarray(weights, dtype=float), axis=-1)
        return np.minimum(np.sum(u[..., None] >= sums, axis=-1), sums.shape[-1] - 1)

    cls = pick(uniform(), CLASS_SHARE)
    source = pick(uniform(), np.array([SOURCE_SHARE[c] for c in CLASSES])[cls])
    profile = np.array([PROFILE[c] for c in CLASSES])[cls]
    flags = np.zeros(len(t), dtype=np.int64)
    for k in range(len(FEATURES)):
        flags = flags * 2 + (uniform() < profile[:, k])
    text = (uniform() * len(TEXTS)).astype(np.int64)
    cell = (source * len(TEXTS) + text) * (1 << len(FEATURES)) + flags
    return cls.reshape(n_sets, n_records), cell.reshape(n_sets, n_records)


# how many sums over the drawn records each figure's difference needs
SUMS = ReadOnlyDict({"agreement": 1, "recall": 2, "false_block_rate": 2, "precision": 4})


def _coefficients(figure, harmful, share, filt):
    """Per category, the weights (on the judge's blocks J, on the records drawn k) of each
    sum a resample needs (precision needs four, the others one beside the denominator)."""
    h, f = harmful.astype(float), filt.astype(float)
    c = 1.0 - h
    zero = np.zeros_like(h)
    if figure == "agreement":  # judge right - filter right
        weights = [(h - c, c - (h * f + c * (1.0 - f)))]
    elif figure == "recall":  # harmful drawn; judge tp - filter tp
        weights = [(zero, h), (h, -f * h)]
    elif figure == "false_block_rate":  # clean drawn; judge fp - filter fp
        weights = [(zero, c), (c, -f * c)]
    else:  # precision: judge tp, judge blocks, filter tp, filter blocks
        weights = [(h, zero), (np.ones_like(h), zero), (zero, f * h), (zero, f)]
    return np.array([[a for a, _ in weights], [b for _, b in weights]])  # (2, sums, cats)


def _difference(figure, sums, n):
    """The resamples' differences judge - filter from the sums of :func:`_coefficients`."""

    def ratio(part, whole):  # a rate with nothing to count is 0, as in rates()
        return np.divide(part, whole, out=np.zeros(part.shape), where=whole > 0)

    if figure == "agreement":
        return sums[0] / n
    if figure == "precision":
        return ratio(sums[0], sums[1]) - ratio(sums[2], sums[3])
    return ratio(sums[1], sums[0])


def _set_categories(kind, figure, cls, cell, rng):
    """Per set, its categories smallest first: how many records fall in each, and their
    weights (:func:`_coefficients`); categories with the same weights are merged."""
    values, index, blocks = _default_cells()
    harmful, filt = cls != 0, blocks[cell]
    if kind == "run":  # a run blocks each record with its P(zararli), records independently
        judge = rng.random(cell.shape) < values[index[cell]]
        key, share = judge.astype(np.int64), np.array([0.0, 1.0])
    else:
        key, share = index[cell], values
    width = len(share)
    key = (harmful * 2 + filt) * width + key
    base = np.arange(4 * width)
    chance = share[base % width]
    weights = _coefficients(figure, base // (2 * width) == 1, chance, (base // width) % 2 == 1)
    if kind == "records_and_runs":  # the judge's blocks are drawn per resample
        rows = np.vstack([weights[0], weights[1], chance[None]]).T
    else:  # J = k * share: the judge's weight folds into the records'
        rows = (weights[1] + weights[0] * chance).T
    merged, to = np.unique(rows, axis=0, return_inverse=True)
    n_sets, n_base = len(cell), len(base)
    counts = np.bincount(
        (np.arange(n_sets)[:, None] * n_base + key).ravel(), minlength=n_sets * n_base
    ).reshape(n_sets, n_base)
    counts = counts @ (to.reshape(-1)[:, None] == np.arange(len(merged))).astype(np.int64)
    order = np.argsort(counts, axis=1, kind="stable")
    return np.take_along_axis(counts, order, axis=1), merged[order]


def _resampled_sums(kind, figure, categories, n_resamples, rng):
    """Per (set, resample) the sums of :func:`_coefficients` over the drawn records: each
    resample a multinomial over the categories, drawn as binomials from the smallest up."""
    counts, rows = categories
    n_sets, n = len(counts), int(counts[0].sum())
    n_sums = SUMS[figure]
    left = np.full((n_sets, n_resamples), n, dtype=np.int64)
    records_left = np.full(n_sets, float(n))
    sums = np.zeros((n_sums, n_sets, n_resamples))
    last = counts.shape[1] - 1
    for j in range(counts.shape[1]):
        size = counts[:, j]
        if not size.any():
            continue
        if j == last:
            k = left
        else:
            p = np.divide(size, records_left, out=np.zeros(n_sets), where=records_left > 0)
            k = rng.binomial(left, np.minimum(p, 1.0)[:, None])
            left -= k
            records_left -= size
        weight = rows[:, j, :, None]  # (sets, columns, 1)
        if kind == "records_and_runs":  # this resample's run blocks b of the category
            blocked = rng.binomial(np.broadcast_to(size[:, None], k.shape), weight[:, -1])
            ratio = np.divide(
                blocked, size[:, None], out=np.zeros(k.shape), where=size[:, None] > 0
            )
            judged = rng.binomial(k, ratio)
            for m in range(n_sums):
                sums[m] += judged * weight[:, m] + k * weight[:, n_sums + m]
        else:
            for m in range(n_sums):
                if weight[:, m].any():
                    sums[m] += k * weight[:, m]
    return n, sums


def band_coverage(
    kind: str,
    figure: str = "agreement",
    *,
    n_sets: int = 1000,
    n_records: int = 240,
    n_resamples: int = 2000,
    level: float = 0.95,
    seed: int = 0,
) -> Coverage:
    """How often the records' band of ``figure``, judge minus filter (``paired_bootstrap`` on
    ``n_sets`` fresh sets of ``n_records``), holds the population's difference (notebook 07).
    ``kind``: ``"run"`` (one run's decisions), ``"averaged"`` (the seed-averaged decision) or
    ``"records_and_runs"`` (a fresh run per resample: the judge's noise counted twice).
    Returns a :class:`Coverage`."""
    kind = check_choice("kind", kind, tuple(KINDS))
    figure = check_choice("figure", figure, FIGURES)
    n_sets = check_int("n_sets", n_sets, minimum=1)
    n_records = check_int("n_records", n_records, minimum=1)
    n_resamples = check_int("n_resamples", n_resamples, minimum=1)
    level, seed = _level(level), check_seed(seed)
    truth_figures = population_figures()
    truth = truth_figures["judge"][figure] - truth_figures["filter"][figure]
    # the band's ends are the sorted differences at run_band's two positions
    low_at, high_at = (int(i) for i in run_band(np.arange(n_resamples), level))
    rng = np.random.default_rng([seed, len(kind)])
    block = max(1, CELLS // n_resamples)
    covered = clear = 0
    width = 0.0
    for start in range(0, n_sets, block):
        size = min(block, n_sets - start)
        cls, cell = _draw_sets(size, n_records, seed, start)
        categories = _set_categories(kind, figure, cls, cell, rng)
        n, sums = _resampled_sums(kind, figure, categories, n_resamples, rng)
        diff = np.sort(_difference(figure, sums, n), axis=1)
        low, high = diff[:, low_at], diff[:, high_at]
        covered += int(np.count_nonzero((low <= truth) & (truth <= high)))
        clear += int(np.count_nonzero((low > 0) | (high < 0)))
        width += float(np.sum(high - low))
    return Coverage(
        kind,
        figure,
        float(truth),
        float(covered / n_sets),
        float(width / n_sets),
        float(clear / n_sets),
        n_sets,
        n_records,
        n_resamples,
        level,
    )


@functools.lru_cache(maxsize=1)
def _agreement_cells():
    rows = _profile_table(LESSON_SETTINGS)
    weight = np.array([CLASS_SHARE[CLASSES.index(c)] * p for c, p, _, _ in rows])
    harmful = np.array([c != "clean" for c, *_ in rows])
    judge = np.where(harmful, [row[2] for row in rows], [1 - row[2] for row in rows])
    crit = (np.array([row[3] for row in rows]) == harmful).astype(float)
    return weight, judge, crit


def agreement_cells() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per cell of :func:`profile_table` (notebook 07): its share of the population, the
    chance a run of the judge is right on it, and whether the filter is right (1.0 or 0.0);
    ``weight @ (judge - crit)`` is the population's difference in agreement.  Copies."""
    weight, judge, crit = _agreement_cells()
    return weight.copy(), judge.copy(), crit.copy()


@slide_figure
def plot_coverage(results: Sequence[Coverage]) -> Figure:
    """Notebook 07: each :class:`Coverage` (with its Monte Carlo error) against the level it
    promises, and its mean width; one row per kind."""
    import matplotlib.pyplot as plt

    results = check_items("results", results, Coverage)
    fig, (left, right) = plt.subplots(
        1, 2, figsize=(FIGURE_WIDTH, 3.6), sharey=True, gridspec_kw={"width_ratios": [3, 2]}
    )
    ys = list(range(len(results)))
    level = results[0].level
    errors = [r.mc_error for r in results]
    for y, r, error in zip(ys, results, errors):
        colour = "C3" if r.kind == "records_and_runs" else "C0"
        left.errorbar(r.coverage, y, xerr=error, fmt="o", color=colour, capsize=4)
        right.barh(y, r.mean_width, color=colour, height=0.5)
        right.text(r.mean_width, y, f" {r.mean_width:.3f}", va="center")
    left.axvline(level, color="black", linewidth=1)
    left.text(level, len(results) - 0.45, f" promised {100 * level:g}%", va="center")
    low = min(min(r.coverage - e for r, e in zip(results, errors)), level) - 0.01
    left.set_xlim(max(0.0, low), 1.0)
    left.set_yticks(ys)
    left.set_yticklabels([KINDS[r.kind] for r in results])
    left.set_ylim(len(results) - 0.2, -0.6)
    left.set_xlabel("coverage of the truth")
    right.set_xlabel("mean width")
    right.set_xlim(0, 1.35 * max(r.mean_width for r in results))
    fig.suptitle(
        f"The records' band of {results[0].figure.replace('_', ' ')} on "
        f"{results[0].n_sets:,} fresh record sets"
    )
    return fig
