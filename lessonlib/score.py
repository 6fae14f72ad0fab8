"""Notebook 08 - the judge's score: ROC, threshold, calibration.

* :func:`judge_probabilities` - P(zararli) for every record, the simulator's
  ``label_probabilities``;
* :func:`roc_auc`, :func:`brier`, :func:`calibration_table`, :func:`calibration_levels` - how well
  a score ranks and how well it is calibrated against the human label (True = harmful);
* :func:`threshold_costs` and the figures :func:`plot_roc`, :func:`plot_levels`.

Notebook 08 computes the score groups, the operating points, the cross-validated threshold
and the population's costs itself; the cascade is in ``designs``.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ._checks import (
    check_collection,
    check_int,
    check_items,
    check_number,
)
from .figures import FIGURE_WIDTH, slide_figure
from .judge import (
    HARMFUL,
    JudgeSettings,
    SettingsChanges,
    _build_prompt,
    resolve_settings,
)
from .metrics import rates, threshold_counts
from .records import Record, check_records
from .simulator import _tokenize, label_probabilities

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
    "threshold_costs",
    "plot_roc",
    "plot_levels",
    "first_run_percentile",
]


# ---------------------------------------------------------------------------------- the score


def judge_probabilities(
    records: Iterable[Record],
    settings: JudgeSettings | None = None,
    **changes: Unpack[SettingsChanges],
) -> dict[int, float]:
    """{record number: P(zararli)} for the judge ``settings`` with the keyword ``changes``
    (as run_judge takes them): ``label_probabilities(build_prompt(record, guideline), ...)
    ['zararli']``, 1.0 or 0.0 at temperature 0.  ``max_output``, ``unreadable_as``, the context
    window and the rate limit act on a call, not on the score (``truth.block_chances``)."""
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
            seen[key] = label_probabilities(
                key, settings.temperature, settings.cues, settings.spurious, settings.prior
            )[HARMFUL]
        out[record.no] = seen[key]
    return out


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
    name: str, values: Iterable[float], n: int, *, unit: bool = False
) -> tuple[float, ...]:
    """Finite real numbers, as many as ``n``; with ``unit``, each in [0, 1]."""
    what = "probabilities in [0, 1]" if unit else "real numbers"
    values = check_collection(name, values, f"a collection of {what}, one per record", "number")
    if len(values) != n:
        raise ValueError(
            f"{name} must hold one value per entry of truth: got {len(values)} "
            f"{name} for {n} truth values (unequal lengths)"
        )
    out = []
    for value in values:
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
    """The reliability diagram as rows, one per non-empty bin of ``n_bins`` equal-width bins
    over [0, 1]: ``sklearn.calibration.calibration_curve(..., strategy="uniform")`` (an inner
    edge goes to the bin below; ``predicted``, ``observed`` are its prob_pred, prob_true)."""
    import numpy as np

    t = np.array(_check_truth(truth), dtype=float)
    p = np.array(_check_values("probs", probs, len(t), unit=True))
    n_bins = check_int("n_bins", n_bins, minimum=1)
    edges = np.linspace(0.0, 1.0, n_bins + 1)
    bins = np.searchsorted(edges[1:-1], p)  # as scikit-learn bins them
    count = np.bincount(bins, minlength=n_bins)
    predicted = np.bincount(bins, weights=p, minlength=n_bins)
    observed = np.bincount(bins, weights=t, minlength=n_bins)
    return [
        CalibrationRow(
            float(edges[k]),
            float(edges[k + 1]),
            int(count[k]),
            float(predicted[k] / count[k]),
            float(observed[k] / count[k]),
        )
        for k in np.flatnonzero(count)
    ]


# ------------------------------------------------------------------ study helpers (notebook 08)
# Each checks its first argument's kind once at the door (records and their scores, truth
# and scores, a table of rows); the helpers they call trust them.


def _scores(truth, scores):
    """The door's check of (truth, scores): bools and as many finite scores."""
    truth = _check_truth(truth)
    return truth, _check_values("scores", scores, len(truth))


def _costs(false_block, miss):
    return check_number("false_block", false_block, minimum=0.0), check_number(
        "miss", miss, minimum=0.0
    )


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
    checked, values = _scores(truth, scores)
    false_block, miss = _costs(false_block, miss)
    thresholds, (_, fp, fn, _) = threshold_counts(checked, values)
    return [
        {"threshold": t, "false blocks": f, "misses": m, "cost": false_block * f + miss * m}
        for t, f, m in zip(
            [math.inf, *thresholds.tolist()], [0, *fp.tolist()], [sum(checked), *fn.tolist()]
        )
    ]


@slide_figure
def plot_roc(
    truth: Iterable[bool],
    scores: Iterable[float],
    marks: Mapping[str, tuple[float, float]] | None = None,
) -> Figure:
    """The ROC curve of a score: recall against false block rate at every threshold; ``marks``
    maps a name to a decide function's (false block rate, recall), drawn as a
    point labelled with its name."""
    import matplotlib.pyplot as plt

    truth, scores = _scores(truth, scores)
    if marks is not None and not isinstance(marks, Mapping):
        raise TypeError(
            "marks must be None or a mapping name -> (false block rate, recall), "
            f"got {type(marks).__name__}"
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
    for k, (name, (fbr, recall)) in enumerate((marks or {}).items()):
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


@slide_figure
def plot_levels(rows: Sequence[LevelRow]) -> Figure:
    """Calibration per score level: each level's share harmful (dot, area by its records) with
    its interval (bar) against its score; a calibrated level touches the diagonal."""
    import matplotlib.pyplot as plt

    rows = check_items("rows", rows, LevelRow)
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


# ------------------------------------------------ the first run among its seeds (notebook 14)


def first_run_percentile(values: Sequence[float] | np.ndarray) -> float:
    """The first run's (the lesson's run 1) percentile among its seeds, in percent: the
    course's one definition, :func:`lessonlib.variance.percentile` (the share of runs below
    it, a tie counting half; GLOSSARY.md#percentile)."""
    from .variance import _check_runs, _position

    array = _check_runs(values)
    return _position(array, float(array[0]))


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
