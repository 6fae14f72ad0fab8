"""Notebook 08 - the judge's score: ROC, threshold, calibration.

Behind each label the simulated judge gives there is a score, P(zararli), the
probability it answers 'zararli' for the record's prompt.  The doors:

* :func:`judge_probabilities` - that score for every record, exactly the simulator's
  ``label_probabilities`` (at temperature 0: 1.0 for the label with the top score);
* :func:`roc_auc`, :func:`brier`, :func:`calibration_table` - how well a score ranks and how
  well it is calibrated against the human label (truth as bools, True = harmful);
The cascade and the designs built on the score are in ``designs``.  The study helpers after
the doors (ROC points, the cost table, calibration per score level, the threshold chosen on
other records, the figures) serve notebook 08 and trust their caller.  This module imports
no numpy at the top: the helpers that need it import it when called.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ._checks import (
    check_collection,
    check_int,
    check_items,
    check_number,
    check_seed,
)
from .figures import FIGURE_WIDTH, slide_figure
from .judge import (
    CLEAN,
    HARMFUL,
    JudgeSettings,
    SettingsChanges,
    _build_prompt,
    build_prompt,
    resolve_settings,
)
from .metrics import rates, threshold_counts
from .records import Record, check_records, is_harmful
from .simulator import _tokenize, label_probabilities, label_scores, tokenize

if TYPE_CHECKING:
    import numpy as np
    from matplotlib.figure import Figure
    from typing_extensions import Unpack

__all__ = [
    "judge_probabilities",
    "roc_auc",
    "brier",
    "calibration_table",
    "CalibrationRow",
    "calibration_levels",
    "LevelRow",
    "variant_tables",
    # the study helpers notebook 08 calls (tables, texts, figures)
    "aligned",
    "best_threshold",
    "first_run_percentile",
    "operating_points",
    "plot_levels",
    "plot_roc",
    "population_costs",
    "score_groups",
    "score_names",
    "threshold_costs",
    "threshold_folds",
]


# ---------------------------------------------------------------------------------- the score


def judge_probabilities(
    records: Iterable[Record],
    settings: JudgeSettings | None = None,
    **changes: Unpack[SettingsChanges],
) -> dict[int, float]:
    """{record number: P(zararli)} for the judge ``settings`` with the keyword ``changes``,
    as run_judge takes them (notebook 08): the judge's score.

    Exactly ``label_probabilities(build_prompt(record, guideline), temperature, cues, spurious,
    prior)['zararli']``: the probability that one call answers 'zararli'.  At temperature 0 it
    is 1.0 for the label with the higher score and 0.0 for the other.  ``max_output`` and
    ``unreadable_as`` are not part of the score by its definition (they act on the reply
    after the label is drawn), nor are the context window and the rate limit (they refuse a
    call, they do not weigh labels); ``truth.block_chances`` folds them into the chance that
    a run blocks the record.
    """
    records = check_records(records)
    settings = resolve_settings(settings, changes)
    relevant = set(settings.cues) | set(settings.spurious)
    out, seen = {}, {}
    for record in records:
        # the weights depend only on the cue tokens, in order: ask once per such sequence
        # (its tokens are pieces of at most five characters, so they tokenize to themselves)
        key = " ".join(
            t for t in _tokenize(_build_prompt(record, settings.guideline)) if t in relevant
        )
        if key not in seen:
            seen[key] = _label_probabilities(key, settings)[HARMFUL]
        out[record.no] = seen[key]
    return out


def _label_probabilities(prompt, settings):
    """label_probabilities of ``prompt`` under checked ``settings``."""
    return label_probabilities(
        prompt, settings.temperature, settings.cues, settings.spurious, settings.prior
    )


# ------------------------------------------------------------------------- checks of the doors


def _is_bool(value):
    """A bool, or a numpy bool scalar (not an array of them)."""
    return isinstance(value, bool) or (
        getattr(value, "shape", None) == () and getattr(value.dtype, "kind", "") == "b"
    )


def _check_truth(truth: Iterable[bool], *, both: bool = False) -> tuple[bool, ...]:
    """A non-empty collection of bools (True = harmful); with ``both``, both values present."""
    truth = check_collection(
        "truth", truth, "a collection of bools (True = harmful), one per record", "bool"
    )
    for value in truth:
        if not _is_bool(value):
            raise TypeError(
                f"truth must hold bools (True = harmful), found {type(value).__name__} {value!r}"
            )
    truth = tuple(bool(v) for v in truth)
    if both and len(set(truth)) < 2:
        raise ValueError(
            f"truth must hold both classes (True = harmful and False = clean); "
            f"got only {truth[0]} for all {len(truth)} records"
        )
    return truth


def _check_values(
    name: str, values: Iterable[float], n: int, *, unit: bool = False, bools: bool = False
) -> tuple[float, ...]:
    """Finite real numbers, as many as ``n``; with ``unit``, each in [0, 1]; with ``bools``,
    a bool is taken too (as 1.0 or 0.0)."""
    what = "probabilities in [0, 1]" if unit else "real numbers"
    if bools:
        what = "bools or shares in [0, 1]"
    values = check_collection(name, values, f"a collection of {what}, one per record", "number")
    if len(values) != n:
        raise ValueError(
            f"{name} must hold one value per entry of truth: got {len(values)} "
            f"{name} for {n} truth values (unequal lengths)"
        )
    out = []
    for value in values:
        if bools and _is_bool(value):
            out.append(float(value))
            continue
        if isinstance(value, bool) or not isinstance(value, numbers.Real):
            raise TypeError(f"{name} must hold {what}, found {type(value).__name__} {value!r}")
        value = float(value)
        if not math.isfinite(value) or (unit and not 0.0 <= value <= 1.0):
            raise ValueError(f"{name} must hold {what}, found {value!r}")
        out.append(value)
    return tuple(out)


# --------------------------------------------------------------------- ranking and calibration


def roc_auc(truth: Iterable[bool], scores: Iterable[float]) -> float:
    """Area under the ROC curve of ``scores`` against ``truth`` (notebook 08).

    The share of (harmful, clean) pairs in which the harmful record has the higher score,
    a tie counting one half (Mann-Whitney); equals ``sklearn.metrics.roc_auc_score``.
    ``truth`` needs both classes.
    """
    truth = _check_truth(truth, both=True)
    scores = _check_values("scores", scores, len(truth))
    groups: dict[float, list[int]] = {}
    for t, s in zip(truth, scores):
        pos_neg = groups.setdefault(s, [0, 0])
        pos_neg[0 if t else 1] += 1
    below, twice_wins = 0, 0  # clean records with a lower score; 2 x the wins
    for s in sorted(groups):
        pos, neg = groups[s]
        twice_wins += 2 * pos * below + pos * neg
        below += neg
    pos_total = sum(truth)
    return twice_wins / (2 * pos_total * (len(truth) - pos_total))


def brier(truth: Iterable[bool], probs: Iterable[float]) -> float:
    """The Brier score: the mean of (P(zararli) - outcome)^2, outcome 1 for harmful (notebook 08).

    0 is perfect; always saying 0.5 scores 0.25.  Equals ``sklearn.metrics.brier_score_loss``.
    """
    truth = _check_truth(truth)
    probs = _check_values("probs", probs, len(truth), unit=True)
    return sum((p - t) ** 2 for t, p in zip(truth, probs)) / len(truth)


@dataclass(frozen=True)
class CalibrationRow:
    """One bin of a reliability diagram: the bin's ends, its records, their mean P(zararli)
    (``predicted``) and the share of them that is harmful (``observed``)."""

    low: float
    high: float
    count: int
    predicted: float
    observed: float


def calibration_table(
    truth: Iterable[bool], probs: Iterable[float], n_bins: int = 10
) -> list[CalibrationRow]:
    """The reliability diagram as rows, one per non-empty bin (notebook 08).

    ``n_bins`` equal-width bins over [0, 1], as ``sklearn.calibration.calibration_curve(...,
    strategy="uniform")``: the edges are ``k / n_bins``; a probability on an inner edge goes
    to the bin below it (0 and 1 to the first and the last bin); empty bins are left out.
    ``predicted`` and ``observed`` of the rows are that function's ``prob_pred`` and
    ``prob_true``.
    """
    truth = _check_truth(truth)
    probs = _check_values("probs", probs, len(truth), unit=True)
    n_bins = check_int("n_bins", n_bins, minimum=1)
    step = 1.0 / n_bins
    edges = [k * step for k in range(n_bins)] + [1.0]  # numpy.linspace(0, 1, n_bins + 1)
    inner = edges[1:-1]
    members: list[list[tuple[bool, float]]] = [[] for _ in range(n_bins)]
    for t, p in zip(truth, probs):
        members[_bisect_left(inner, p)].append((t, p))
    return [
        CalibrationRow(
            edges[k], edges[k + 1], len(m), _mean(p for _, p in m), _mean(float(t) for t, _ in m)
        )
        for k, m in enumerate(members)
        if m
    ]


def _bisect_left(edges, value):
    """numpy.searchsorted(edges, value) (side 'left'): edges strictly below ``value``."""
    lo, hi = 0, len(edges)
    while lo < hi:
        mid = (lo + hi) // 2
        if edges[mid] < value:
            lo = mid + 1
        else:
            hi = mid
    return lo


def _mean(values):
    """Sum in order, then divide (numpy.bincount's weighted sum is sequential too)."""
    total, n = 0.0, 0
    for v in values:
        total += v
        n += 1
    return total / n


# ------------------------------------------------------------------ study helpers (notebook 08)
# Each checks its first argument's kind once at the door (records and their scores, truth
# and scores, a table of rows); the helpers they call trust them.


def _scored(records, probs):
    """The door's check of (records, probs): Records, and a mapping that scores each of them."""
    records = check_records(records)
    if not isinstance(probs, Mapping):
        raise TypeError(
            "probs must be a mapping record number -> P(zararli) (what judge_probabilities "
            f"returns), got {type(probs).__name__}"
        )
    missing = [r.no for r in records if r.no not in probs]
    if missing:
        raise ValueError(
            f"probs must score every record: no P(zararli) for record(s) {missing[:5]}"
            + (" ..." if len(missing) > 5 else "")
        )
    return records


def _scores(truth, scores):
    """The door's check of (truth, scores): bools and as many finite scores."""
    truth = _check_truth(truth)
    return truth, _check_values("scores", scores, len(truth))


def _costs(false_block, miss):
    return check_number("false_block", false_block, minimum=0.0), check_number(
        "miss", miss, minimum=0.0
    )


def _rows(name, rows, kind=Mapping):
    """A table's rows: a non-empty collection of ``kind`` (a dict a row, or a LevelRow)."""
    return check_items(name, rows, kind)


def aligned(
    records: Iterable[Record], probs: Mapping[int, float]
) -> tuple[list[bool], list[float]]:
    """(truth, scores) as two lists in the order of ``records``: the human label (True =
    harmful) and ``probs[record.no]``."""
    records = _scored(records, probs)
    return [is_harmful(r) for r in records], [probs[r.no] for r in records]


def score_groups(records: Iterable[Record], probs: Mapping[int, float]) -> list[dict[str, Any]]:
    """One row per distinct score, highest first: the score, its records, how many of them
    are harmful, the margin (the harmful label's weight minus the clean one's at the lesson's
    settings) and the flag sets behind it (each as a tuple of flag names)."""
    records = _scored(records, probs)
    rows: dict[float, dict[str, Any]] = {}
    for r in records:
        scores = label_scores(tokenize(build_prompt(r)))
        row = rows.setdefault(
            probs[r.no],
            {
                "score": probs[r.no],
                "records": 0,
                "harmful": 0,
                "margin": round(scores[HARMFUL] - scores[CLEAN], 6),
                "flag sets": set(),
            },
        )
        row["records"] += 1
        row["harmful"] += is_harmful(r)
        row["flag sets"].add(tuple(r.features.on()))
    return [
        dict(row, **{"flag sets": sorted(row["flag sets"])})
        for _, row in sorted(rows.items(), reverse=True)
    ]


def operating_points(
    records: Iterable[Record], decides: Mapping[str, Callable[[Record], bool]]
) -> dict[str, tuple[float, float, float]]:
    """name -> (false block rate, recall, precision) of each decide function, as ``measure``
    gives them: the points drawn on the ROC and precision-recall curves."""
    from .metrics import measure

    records = check_records(records)
    if not isinstance(decides, Mapping):
        raise TypeError(
            f"decides must be a mapping name -> decide function, got {type(decides).__name__}"
        )
    out = {}
    for name, decide in decides.items():
        m = measure(records, decide)
        out[name] = (m["false_block_rate"], m["recall"], m["precision"])
    return out


def variant_tables(
    records: Sequence[Record],
    variants: Mapping[str, JudgeSettings | Mapping[str, Any]],
    n_bins: int = 10,
) -> dict[str, tuple[float, float, list[CalibrationRow]]]:
    """name -> (Brier score, AUC, calibration rows) of the judge's score under each variant
    of the judge (notebook 08): a JudgeSettings, or the keyword changes run_judge takes
    (e.g. ``{"no spurious cue": {"spurious": {}}}``)."""
    records = check_records(records)
    if not isinstance(variants, Mapping) or not variants:
        raise TypeError(
            "variants must be a non-empty mapping name -> JudgeSettings or a dict of judge "
            f"settings (e.g. {{'no spurious cue': {{'spurious': {{}}}}}}), got {variants!r}"
        )
    judges = {
        name: v if isinstance(v, JudgeSettings) else resolve_settings(None, _changes(v))
        for name, v in variants.items()
    }
    check_int("n_bins", n_bins, minimum=1)
    out = {}
    for name, settings in judges.items():
        truth, scores = aligned(records, judge_probabilities(records, settings))
        out[name] = (
            brier(truth, scores),
            roc_auc(truth, scores),
            calibration_table(truth, scores, n_bins),
        )
    return out


def _changes(value):
    if not isinstance(value, Mapping):
        raise TypeError(
            f"variants must map each name to a JudgeSettings or a dict of judge settings, "
            f"got {type(value).__name__} {value!r}"
        )
    return value


def roc_points(truth, scores):
    """The ROC curve: (threshold, false block rate, recall, precision) for blocking every
    record with score >= threshold, one point per distinct score plus 'block nothing'."""
    thresholds, counts = threshold_counts(truth, scores)
    f = rates(*counts, rounded=False)
    return [
        (math.inf, 0.0, 0.0, 1.0),
        *zip(
            thresholds.tolist(),
            f["false_block_rate"].tolist(),
            f["recall"].tolist(),
            f["precision"].tolist(),
        ),
    ]


def threshold_costs(
    truth: Iterable[bool], scores: Iterable[float], false_block: float = 1.0, miss: float = 1.0
) -> list[dict[str, float]]:
    """The cost table: for each threshold (each distinct score, and 'block nothing'), the
    false blocks, the misses and their cost ``false_block * fp + miss * fn``."""
    return _threshold_costs(*_scores(truth, scores), *_costs(false_block, miss))


def _threshold_costs(truth, scores, false_block, miss):
    thresholds, (_, fp, fn, _) = threshold_counts(truth, scores)
    return [
        {"threshold": t, "false blocks": f, "misses": m, "cost": false_block * f + miss * m}
        for t, f, m in zip(
            [math.inf, *thresholds.tolist()], [0, *fp.tolist()], [sum(truth), *fn.tolist()]
        )
    ]


def best_threshold(
    truth: Iterable[bool], scores: Iterable[float], false_block: float = 1.0, miss: float = 1.0
) -> dict[str, float]:
    """The row of :func:`threshold_costs` with the lowest cost (the highest threshold on a
    tie: fewer blocks for the same cost)."""
    return _best_threshold(*_scores(truth, scores), *_costs(false_block, miss))


def _best_threshold(truth, scores, false_block, miss):
    rows = _threshold_costs(truth, scores, false_block, miss)
    return min(rows, key=lambda row: row["cost"])


@slide_figure
def plot_roc(
    truth: Iterable[bool],
    scores: Iterable[float],
    marks: Mapping[str, tuple[float, float, float]] | None = None,
) -> Figure:
    """The ROC curve of a score: recall against false block rate at every threshold; ``marks``
    maps a name to a decide function's (false block rate, recall, precision), drawn as a
    point labelled with its name."""
    import matplotlib.pyplot as plt

    truth, scores = _scores(truth, scores)
    if marks is not None and not isinstance(marks, Mapping):
        raise TypeError(
            "marks must be None or a mapping name -> (false block rate, recall, precision) "
            f"(what operating_points returns), got {type(marks).__name__}"
        )
    points = roc_points(truth, scores)
    fig, ax = plt.subplots(figsize=(FIGURE_WIDTH, 5))
    ax.plot([p[1] for p in points], [p[2] for p in points], marker=".", color="0.3")
    ax.annotate(
        "the judge's score, every threshold",
        (points[-2][1], points[-2][2]),
        xytext=(10, -22),
        textcoords="offset points",
        color="0.3",
    )
    ax.plot([0, 1], [0, 1], linestyle=":", color="0.6")
    ax.annotate("ranking by chance", (0.62, 0.62), rotation=24, color="0.5", va="bottom")
    for k, (name, (fbr, recall, _)) in enumerate((marks or {}).items()):
        ax.plot([fbr], [recall], marker="os^D"[k % 4], linestyle="", markersize=9, color=f"C{k}")
        # the first label left of its point, the others below theirs: clear of the curve,
        # which climbs steeply at the left and runs flat along the top
        ax.annotate(
            name,
            (fbr, recall),
            xytext=(-12, 4) if k == 0 else (0, -14),
            textcoords="offset points",
            ha="right" if k == 0 else "center",
            va="baseline" if k == 0 else "top",
            color=f"C{k}",
        )
    ax.set(
        title="ROC: recall against false block rate",
        xlabel="false block rate",
        ylabel="recall",
        xlim=(-0.02, 1.02),
        ylim=(-0.02, 1.04),
    )
    fig.tight_layout()
    return fig


# ------------------------------------------------- calibration per score level (notebook 08)


@dataclass(frozen=True)
class LevelRow:
    """One score level of the judge (notebook 08): the score, its records, how many of them
    are harmful, that share (``observed``) and its interval (``low``, ``high``, Wilson)."""

    score: float
    count: int
    harmful: int
    observed: float
    low: float
    high: float


def _wilson(k, n, level):
    """Wilson's score interval for k successes in n trials (Wilson 1927)."""
    from statistics import NormalDist

    z = NormalDist().inv_cdf(1 - (1 - level) / 2)
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return max(0.0, centre - half), min(1.0, centre + half)


def calibration_levels(
    truth: Iterable[bool], probs: Iterable[float], level: float = 0.95
) -> list[LevelRow]:
    """Calibration per score level: one row per distinct P(zararli), lowest first (notebook 08).

    The simulated judge gives few distinct scores (one per margin), so instead of bins each
    level is its own row: its records, how many are harmful, that share and its ``level``
    Wilson score interval (as ``statsmodels.stats.proportion.proportion_confint(...,
    method="wilson")``).  A calibrated level has its score inside its interval.
    """
    truth = _check_truth(truth)
    probs = _check_values("probs", probs, len(truth), unit=True)
    level = check_number("level", level)
    if not 0 < level < 1:
        raise ValueError(f"level must be a share strictly between 0 and 1, got {level!r}")
    counts: dict[float, list[int]] = {}
    for t, p in zip(truth, probs):
        row = counts.setdefault(p, [0, 0])
        row[0] += 1
        row[1] += t
    return [
        LevelRow(p, n, k, k / n, *_wilson(k, n, level)) for p, (n, k) in sorted(counts.items())
    ]


def score_names(values: Iterable[float]) -> dict[float, str]:
    """Each distinct finite value as text: four decimals, more (up to 8) only for values that
    would otherwise print alike (two scores just below 1 both read 1.0000 at four)."""
    if isinstance(values, (str, bytes, Mapping)) or not hasattr(values, "__iter__"):
        raise TypeError(
            f"values must be a collection of real numbers (scores), got {type(values).__name__}"
        )
    values = list(values)
    for v in values:
        if isinstance(v, bool) or not isinstance(v, numbers.Real):
            raise TypeError(f"values must hold real numbers, found {type(v).__name__} {v!r}")
    return _score_names(values)


def _score_names(values):
    values = sorted({v for v in values if math.isfinite(v)})
    names = {v: f"{v:.4f}" for v in values}
    for places in range(5, 9):
        seen: dict[str, int] = {}
        for name in names.values():
            seen[name] = seen.get(name, 0) + 1
        clash = [v for v in values if seen[names[v]] > 1]
        if not clash:
            break
        for v in clash:
            names[v] = f"{v:.{places}f}"
    return names


@slide_figure
def plot_levels(rows: Sequence[LevelRow]) -> Figure:
    """Calibration per score level: each level's share harmful (dot, area by its records) with
    its interval (bar) against its score; a calibrated level touches the diagonal."""
    import matplotlib.pyplot as plt

    rows = _rows("rows", rows, LevelRow)
    fig, ax = plt.subplots(figsize=(FIGURE_WIDTH, 5.2))
    ax.plot([0, 1], [0, 1], linestyle=":", color="0.5")
    ax.annotate("calibrated", (0.55, 0.55), rotation=25, color="0.4", ha="center", va="bottom")
    for r in rows:
        ax.vlines(r.score, r.low, r.high, color="C0", linewidth=3, alpha=0.5)
        ax.scatter([r.score], [r.observed], s=12 + 2 * r.count, color="C0", zorder=3)
    # the two largest levels outside the diagonal's reach carry a label; the crowd near 1 none
    missed = [r for r in rows if not r.low <= r.score <= r.high]
    for r in sorted(missed, key=lambda r: -r.count)[:2]:
        right = r.score < 0.5  # the label on the side with room
        ax.annotate(
            f"{r.harmful} of {r.count} harmful",
            (r.score, r.observed),
            xytext=(14 if right else -14, 0),
            textcoords="offset points",
            ha="left" if right else "right",
            va="center",
        )
    ax.set(
        title="calibration per score level (bar: 95% interval)",
        xlabel="the judge's score P(zararli)",
        ylabel="share harmful",
        xlim=(-0.02, 1.02),
        ylim=(-0.02, 1.02),
    )
    fig.tight_layout()
    return fig


# --------------------------------------------- a paired difference with its p (notebook 08)


def first_run_percentile(values: Sequence[float] | np.ndarray) -> float:
    """The first run's (the lesson's run 1) percentile among its seeds, in percent: the
    course's one definition, :func:`lessonlib.variance.percentile` (the share of runs below
    it, a tie counting half; GLOSSARY.md#percentile)."""
    from .variance import _check_runs, _position

    array = _check_runs(values)
    return _position(array, float(array[0]))


# ------------------------------------------- a threshold chosen on other records (notebook 08)


def threshold_folds(
    truth: Iterable[bool],
    scores: Iterable[float],
    false_block: float = 1.0,
    miss: float = 1.0,
    folds: int = 5,
    seed: int = 0,
) -> list[dict[str, Any]]:
    """Cross-validated threshold: the records split into ``folds`` parts at random (``seed``);
    for each part the cheapest threshold is chosen on the other parts and its false blocks and
    misses are counted on this part.  Returns one dict per part (threshold, records, false
    blocks, misses, cost) and, last, the totals over all records (threshold None)."""
    import numpy as np

    checked, values = _scores(truth, scores)
    false_block, miss = _costs(false_block, miss)
    folds = check_int("folds", folds, minimum=2)
    if folds > len(checked):
        raise ValueError(f"folds must be at most the {len(checked)} records, got {folds}")
    seed = check_seed(seed)
    truth, scores = np.asarray(checked, dtype=bool), np.asarray(values, dtype=float)
    order = np.random.default_rng(seed).permutation(len(truth))
    rows = []
    for part in np.array_split(order, folds):
        rest = np.setdiff1d(order, part)
        best = _best_threshold(truth[rest].tolist(), scores[rest].tolist(), false_block, miss)
        block = scores[part] >= best["threshold"]
        fp = int((block & ~truth[part]).sum())
        fn = int((~block & truth[part]).sum())
        rows.append(
            {
                "threshold": best["threshold"],
                "records": len(part),
                "false blocks": fp,
                "misses": fn,
                "cost": false_block * fp + miss * fn,
            }
        )
    total = {k: sum(r[k] for r in rows) for k in ("records", "false blocks", "misses", "cost")}
    return [*rows, {"threshold": None, **total}]


def population_costs(
    table: Sequence[tuple[str, float, float, bool]],
    thresholds: Iterable[float],
    false_block: float = 1.0,
    miss: float = 1.0,
    n: int = 240,
    class_shares: Sequence[float] | None = None,
) -> dict[float, float]:
    """The expected cost per ``n`` records of blocking at each threshold, over the population:
    ``table`` is ``truth.profile_table()`` (class, probability within the class, P(zararli),
    filter blocks).  threshold -> expected cost."""
    table = _table(table)
    thresholds = check_collection("thresholds", thresholds, "a collection of scores", "score")
    false_block, miss = _costs(false_block, miss)
    check_int("n", n, minimum=1)
    shares = _class_shares(class_shares)
    out = {}
    for t in thresholds:
        fp = sum(shares[c] * w for c, w, p, _ in table if c == "clean" and p >= t)
        fn = sum(shares[c] * w for c, w, p, _ in table if c != "clean" and p < t)
        out[t] = n * (false_block * fp + miss * fn)
    return out


def _table(table):
    """The door's check of a population table: the rows of ``truth.profile_table()``."""
    table = check_collection(
        "table",
        table,
        "the rows of truth.profile_table() (class, share, P(zararli), blocks)",
        "row",
    )
    if not all(isinstance(row, tuple) and len(row) == 4 for row in table[:1]):
        raise TypeError(
            "table must hold (class, share, P(zararli), filter blocks) rows, as "
            f"truth.profile_table() returns; found {table[0]!r}"
        )
    return table


def _class_shares(class_shares):
    """{class: share}: CLASS_SHARE, or ``class_shares`` (one share per class) when given."""
    from .records import CLASS_SHARE, CLASSES

    if class_shares is not None:
        class_shares = check_collection(
            "class_shares", class_shares, "one share per class (as CLASS_SHARE)", "share"
        )
        if len(class_shares) != len(CLASSES):
            raise ValueError(
                f"class_shares must hold one share per class ({len(CLASSES)}), "
                f"got {len(class_shares)}"
            )
    return dict(zip(CLASSES, class_shares or CLASS_SHARE))
