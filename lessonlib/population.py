"""Notebook 08 - the judge's score over the whole population, summed exactly.

``truth.profile_table(...)`` lists every kind of record the generator draws (class, its
probability within the class, the judge's P(block), the filter's decision); with the
lesson's settings P(block) is the score P(zararli).  Read level by level, it gives each
score's true share harmful (:func:`population_levels`) and the Brier score and AUC over
endless records (:func:`population_score`): the truth that 08's sample figures estimate.
"""

from __future__ import annotations

from collections.abc import Sequence

from .score import _class_shares, _table

__all__ = ["population_levels", "population_score"]


def population_levels(
    table: Sequence[tuple[str, float, float, bool]],
    class_shares: Sequence[float] | None = None,
) -> list[dict[str, float]]:
    """The judge's score over the whole population, level by level, lowest first: per
    distinct P(zararli) of ``table`` (``truth.profile_table(...)``: class, probability
    within the class, P(zararli), filter blocks) the ``"score"``, the ``"share"`` of all
    records that get it and the ``"harmful"`` share among them, summed exactly
    (notebook 08).  A calibrated level has ``harmful`` equal to ``score``."""
    table = _table(table)
    shares = _class_shares(class_shares)
    levels: dict[float, list[float]] = {}
    for cls, w, p, _ in table:
        row = levels.setdefault(p, [0.0, 0.0])
        row[0] += shares[cls] * w
        row[1] += shares[cls] * w * (cls != "clean")
    return [
        {"score": p, "share": n, "harmful": k / n if n else 0.0}
        for p, (n, k) in sorted(levels.items())
    ]


def population_score(
    table: Sequence[tuple[str, float, float, bool]],
    class_shares: Sequence[float] | None = None,
) -> dict[str, float]:
    """``{"brier": ..., "auc": ...}`` of the judge's score over the whole population of
    ``table`` (``truth.profile_table(...)``), exact sums, not a sample (notebook 08): the
    Brier score is the mean of (P(zararli) - outcome)^2 over every record drawn, the AUC the
    chance that a harmful record scores above a clean one, a tie counting one half - what
    ``score.brier`` and ``score.roc_auc`` give on a sample, over endless records."""
    levels = population_levels(table, class_shares)
    brier_sum = below = wins = 0.0
    harmful = sum(row["share"] * row["harmful"] for row in levels)
    for row in levels:
        p, pos = row["score"], row["share"] * row["harmful"]
        neg = row["share"] - pos
        brier_sum += pos * (1 - p) ** 2 + neg * p**2
        wins += pos * (below + neg / 2)
        below += neg
    clean = 1.0 - harmful
    return {"brier": brier_sum, "auc": wins / (harmful * clean) if harmful * clean else 0.0}
